// tl.reduce whose combine region branches (used by reduce_control_flow.test): the max by
// cmpf + scf.if, an argmax that keeps the first index on ties, and a plain sum for contrast.
module {
  func.func @rowmax(%x: tensor<4x8xf32>) -> tensor<4xf32> {
    %m = tl.reduce %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32> {
    ^bb0(%a: f32, %b: f32):
      %gt = arith.cmpf ogt, %a, %b : f32
      %r = scf.if %gt -> (f32) {
        scf.yield %a : f32
      } else {
        scf.yield %b : f32
      }
      tl.reduce.return %r : f32
    }
    func.return %m : tensor<4xf32>
  }
  func.func @argmax(%x: tensor<8xf32>, %i: tensor<8xi32>) -> (f32, i32) {
    %m, %j = tl.reduce %x, %i {axis = 0 : i32} : tensor<8xf32>, tensor<8xi32> -> f32, i32 {
    ^bb0(%a: f32, %ia: i32, %b: f32, %ib: i32):
      %lt = arith.cmpf olt, %a, %b : f32
      %r:2 = scf.if %lt -> (f32, i32) {
        scf.yield %b, %ib : f32, i32
      } else {
        scf.yield %a, %ia : f32, i32
      }
      tl.reduce.return %r#0, %r#1 : f32, i32
    }
    func.return %m, %j : f32, i32
  }
}

// A cumulative sum inside a loop, layout-free: for two rounds, x <- cumsum(x) + 1 on 512 f32 (one
// program, 4 warps), then a reversed running maximum of the result. The scans cross warps
// through a shared buffer; in the loop the next round's stores wait for this round's loads.
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @scan_loop(%x_ptr: !tl.ptr<f32>, %o_ptr: !tl.ptr<f32>) {
    %r = tl.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<512x!tl.ptr<f32>>
    %xp = tl.addptr %xb, %r : tensor<512x!tl.ptr<f32>>, tensor<512xi32>
    %x = tl.load %xp : tensor<512x!tl.ptr<f32>>
    %one = arith.constant dense<1.0> : tensor<512xf32>
    %lb = arith.constant 0 : i32
    %ub = arith.constant 2 : i32
    %st = arith.constant 1 : i32
    %y = scf.for %k = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<512xf32>) : i32 {
      %s = tl.scan %acc {axis = 0 : i32, reverse = false} : tensor<512xf32> -> tensor<512xf32> {
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tl.scan.return %c : f32
      }
      %n = arith.addf %s, %one : tensor<512xf32>
      scf.yield %n : tensor<512xf32>
    }
    %m = tl.scan %y {axis = 0 : i32, reverse = true} : tensor<512xf32> -> tensor<512xf32> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.maximumf %a, %b : f32
      tl.scan.return %c : f32
    }
    %ob = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<512x!tl.ptr<f32>>
    %op = tl.addptr %ob, %r : tensor<512x!tl.ptr<f32>>, tensor<512xi32>
    tl.store %op, %m : tensor<512x!tl.ptr<f32>>
    func.return
  }
}

// A 1-D gather inside a loop, layout-free: for two rounds, x <- x[idx] + 1 on 256 f32 (one
// program, 4 warps). A 1-D tensor cannot keep its only axis inside one warp, so the gather goes
// through shared memory; the loop makes the next round's stores wait for this round's loads.
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @gather_1d(%x_ptr: !tl.ptr<f32>, %i_ptr: !tl.ptr<i32>, %o_ptr: !tl.ptr<f32>) {
    %r = tl.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<256x!tl.ptr<f32>>
    %xp = tl.addptr %xb, %r : tensor<256x!tl.ptr<f32>>, tensor<256xi32>
    %x = tl.load %xp : tensor<256x!tl.ptr<f32>>
    %ib = tl.splat %i_ptr : !tl.ptr<i32> -> tensor<256x!tl.ptr<i32>>
    %ip = tl.addptr %ib, %r : tensor<256x!tl.ptr<i32>>, tensor<256xi32>
    %i = tl.load %ip : tensor<256x!tl.ptr<i32>>
    %one = arith.constant dense<1.0> : tensor<256xf32>
    %lb = arith.constant 0 : i32
    %ub = arith.constant 2 : i32
    %st = arith.constant 1 : i32
    %y = scf.for %k = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<256xf32>) : i32 {
      %g = tl.gather %acc[%i] {axis = 0 : i32} : (tensor<256xf32>, tensor<256xi32>) -> tensor<256xf32>
      %n = arith.addf %g, %one : tensor<256xf32>
      scf.yield %n : tensor<256xf32>
    }
    %ob = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<256x!tl.ptr<f32>>
    %op = tl.addptr %ob, %r : tensor<256x!tl.ptr<f32>>, tensor<256xi32>
    tl.store %op, %y : tensor<256x!tl.ptr<f32>>
    func.return
  }
}

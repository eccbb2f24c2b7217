// A conversion that crosses warps (shared memory) inside a two-round loop: the barrier between
// its stores and loads, and the trailing one that keeps the next round's stores behind this
// round's loads (test/unit/test_barriers.py deletes each).
#a = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @convert_loop(%x: !tl.ptr<f32>, %y: !tl.ptr<f32>) {
    %r = tl.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #a>
    %rb = tl.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b>
    %xs = tl.splat %x : !tl.ptr<f32> -> tensor<512x!tl.ptr<f32>, #a>
    %xp = tl.addptr %xs, %r : tensor<512x!tl.ptr<f32>, #a>, tensor<512xi32, #a>
    %ys = tl.splat %y : !tl.ptr<f32> -> tensor<512x!tl.ptr<f32>, #b>
    %yp = tl.addptr %ys, %rb : tensor<512x!tl.ptr<f32>, #b>, tensor<512xi32, #b>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    scf.for %i = %c0 to %c2 step %c1 : i32 {
      %v = tl.load %xp : tensor<512x!tl.ptr<f32>, #a>
      %fi = arith.sitofp %i : i32 to f32
      %s = tl.splat %fi : f32 -> tensor<512xf32, #a>
      %w = arith.addf %v, %s : tensor<512xf32, #a>
      %c = tl.convert_layout %w : tensor<512xf32, #a> -> tensor<512xf32, #b>
      tl.store %yp, %c : tensor<512x!tl.ptr<f32>, #b>
    }
    func.return
  }
}

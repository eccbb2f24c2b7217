// A row gather, layout-free: out[i, j] = x[i, idx[i, j]] on a 32x32 f32 tile (one program).
// The gather axis (columns) fits in a warp, so llc-compile keeps it warp-local: shuffles only.
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @gather_rows(%x_ptr: !tl.ptr<f32>, %i_ptr: !tl.ptr<i32>, %o_ptr: !tl.ptr<f32>) {
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %r2 = tl.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %rb = tl.broadcast %r2 : tensor<32x1xi32> -> tensor<32x32xi32>
    %c = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %c2 = tl.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %cb = tl.broadcast %c2 : tensor<1x32xi32> -> tensor<32x32xi32>
    %c32 = arith.constant dense<32> : tensor<32x32xi32>
    %row = arith.muli %rb, %c32 : tensor<32x32xi32>
    %off = arith.addi %row, %cb : tensor<32x32xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>>
    %xp = tl.addptr %xb, %off : tensor<32x32x!tl.ptr<f32>>, tensor<32x32xi32>
    %x = tl.load %xp : tensor<32x32x!tl.ptr<f32>>
    %ib = tl.splat %i_ptr : !tl.ptr<i32> -> tensor<32x32x!tl.ptr<i32>>
    %ip = tl.addptr %ib, %off : tensor<32x32x!tl.ptr<i32>>, tensor<32x32xi32>
    %i = tl.load %ip : tensor<32x32x!tl.ptr<i32>>
    %g = tl.gather %x[%i] {axis = 1 : i32} : (tensor<32x32xf32>, tensor<32x32xi32>) -> tensor<32x32xf32>
    %ob = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>>
    %op = tl.addptr %ob, %off : tensor<32x32x!tl.ptr<f32>>, tensor<32x32xi32>
    tl.store %op, %g : tensor<32x32x!tl.ptr<f32>>
    func.return
  }
}

// A column gather, layout-free: out[i, j] = x[idx[i, j], j] on a 64x8 f16 tile (one program).
// llc-compile gives the gather a layout with the rows (the gather axis) inside each warp.
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @gather_cols(%x_ptr: !tl.ptr<f16>, %i_ptr: !tl.ptr<i32>, %o_ptr: !tl.ptr<f16>) {
    %r = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %r2 = tl.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %rb = tl.broadcast %r2 : tensor<64x1xi32> -> tensor<64x8xi32>
    %c = tl.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %c2 = tl.expand_dims %c {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
    %cb = tl.broadcast %c2 : tensor<1x8xi32> -> tensor<64x8xi32>
    %c8 = arith.constant dense<8> : tensor<64x8xi32>
    %row = arith.muli %rb, %c8 : tensor<64x8xi32>
    %off = arith.addi %row, %cb : tensor<64x8xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<f16> -> tensor<64x8x!tl.ptr<f16>>
    %xp = tl.addptr %xb, %off : tensor<64x8x!tl.ptr<f16>>, tensor<64x8xi32>
    %x = tl.load %xp : tensor<64x8x!tl.ptr<f16>>
    %ib = tl.splat %i_ptr : !tl.ptr<i32> -> tensor<64x8x!tl.ptr<i32>>
    %ip = tl.addptr %ib, %off : tensor<64x8x!tl.ptr<i32>>, tensor<64x8xi32>
    %i = tl.load %ip : tensor<64x8x!tl.ptr<i32>>
    %g = tl.gather %x[%i] {axis = 0 : i32} : (tensor<64x8xf16>, tensor<64x8xi32>) -> tensor<64x8xf16>
    %ob = tl.splat %o_ptr : !tl.ptr<f16> -> tensor<64x8x!tl.ptr<f16>>
    %op = tl.addptr %ob, %off : tensor<64x8x!tl.ptr<f16>>, tensor<64x8xi32>
    tl.store %op, %g : tensor<64x8x!tl.ptr<f16>>
    func.return
  }
}

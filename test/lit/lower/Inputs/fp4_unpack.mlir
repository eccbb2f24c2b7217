// fp4 unpacking, layout-free: a 32x16 tile of bytes (two e2m1 codes each, low nibble first)
// becomes 32x32 values, stored as f32, f16 and bf16 (widened to f32 for
// the buffer; one program).
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @fp4_unpack(%p_ptr: !tl.ptr<i8>, %f_ptr: !tl.ptr<f32>, %h_ptr: !tl.ptr<f16>, %b_ptr: !tl.ptr<f32>) {
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %r2 = tl.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %c = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %c2 = tl.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %rb = tl.broadcast %r2 : tensor<32x1xi32> -> tensor<32x16xi32>
    %cb = tl.broadcast %c2 : tensor<1x16xi32> -> tensor<32x16xi32>
    %c16 = arith.constant dense<16> : tensor<32x16xi32>
    %row = arith.muli %rb, %c16 : tensor<32x16xi32>
    %off = arith.addi %row, %cb : tensor<32x16xi32>
    %pb = tl.splat %p_ptr : !tl.ptr<i8> -> tensor<32x16x!tl.ptr<i8>>
    %pp = tl.addptr %pb, %off : tensor<32x16x!tl.ptr<i8>>, tensor<32x16xi32>
    %packed = tl.load %pp : tensor<32x16x!tl.ptr<i8>>
    %f = tl.fp4_to_fp %packed {axis = 1 : i32} : (tensor<32x16xi8>) -> tensor<32x32xf32>
    %h = tl.fp4_to_fp %packed {axis = 1 : i32} : (tensor<32x16xi8>) -> tensor<32x32xf16>
    %b = tl.fp4_to_fp %packed {axis = 1 : i32} : (tensor<32x16xi8>) -> tensor<32x32xbf16>
    %c_out = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %co2 = tl.expand_dims %c_out {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %r2b = tl.broadcast %r2 : tensor<32x1xi32> -> tensor<32x32xi32>
    %cob = tl.broadcast %co2 : tensor<1x32xi32> -> tensor<32x32xi32>
    %c32 = arith.constant dense<32> : tensor<32x32xi32>
    %orow = arith.muli %r2b, %c32 : tensor<32x32xi32>
    %ooff = arith.addi %orow, %cob : tensor<32x32xi32>
    %fb = tl.splat %f_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>>
    %fp = tl.addptr %fb, %ooff : tensor<32x32x!tl.ptr<f32>>, tensor<32x32xi32>
    tl.store %fp, %f : tensor<32x32x!tl.ptr<f32>>
    %hb = tl.splat %h_ptr : !tl.ptr<f16> -> tensor<32x32x!tl.ptr<f16>>
    %hp = tl.addptr %hb, %ooff : tensor<32x32x!tl.ptr<f16>>, tensor<32x32xi32>
    tl.store %hp, %h : tensor<32x32x!tl.ptr<f16>>
    %b32 = arith.extf %b : tensor<32x32xbf16> to tensor<32x32xf32>
    %bb = tl.splat %b_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>>
    %bp = tl.addptr %bb, %ooff : tensor<32x32x!tl.ptr<f32>>, tensor<32x32xi32>
    tl.store %bp, %b32 : tensor<32x32x!tl.ptr<f32>>
    func.return
  }
}

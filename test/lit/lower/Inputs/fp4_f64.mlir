// fp4_to_fp to f64 has no register lowering (f32, f16 and bf16 do): a located error.
module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @fp4_f64(%p_ptr: !tl.ptr<i8>, %o_ptr: !tl.ptr<f64>) {
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %pb = tl.splat %p_ptr : !tl.ptr<i8> -> tensor<32x!tl.ptr<i8>>
    %pp = tl.addptr %pb, %r : tensor<32x!tl.ptr<i8>>, tensor<32xi32>
    %packed = tl.load %pp : tensor<32x!tl.ptr<i8>>
    %f = tl.fp4_to_fp %packed {axis = 0 : i32} : (tensor<32xi8>) -> tensor<64xf64>
    %r2 = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %ob = tl.splat %o_ptr : !tl.ptr<f64> -> tensor<64x!tl.ptr<f64>>
    %op = tl.addptr %ob, %r2 : tensor<64x!tl.ptr<f64>>, tensor<64xi32>
    tl.store %op, %f : tensor<64x!tl.ptr<f64>>
    func.return
  }
}

// One block of attention: O = softmax(Q K^T * sm_scale) V for 64 queries and 64 keys, head
// dimension 64 (Q, K, V, O are 64x64 row-major; Q, K, V in f16, O in f32).
//
// K is loaded row-major in #blocked and transposed with tl.trans (the transposed blocked
// layout #blocked_t), then converted to the B operand of the first dot. The scores stay in the
// #mma accumulator layout for the softmax (row statistics in #rows, a slice of #mma); the
// probabilities are rounded to f16 and converted from #mma to the A operand of the second dot.
//
//   llc-run examples/attention.mlir --entry attention_kernel \
//       --args q.npy k.npy v.npy zeros:64x64xf32 0.125 --print-buffers
#blocked = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_t = #tl.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot_a = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#rows = #tl.slice<{dim = 1, parent = #mma}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @attention_kernel(%q_ptr: !tl.ptr<f16>, %k_ptr: !tl.ptr<f16>, %v_ptr: !tl.ptr<f16>,
                              %o_ptr: !tl.ptr<f32>, %sm_scale: f32) {
    // Offsets of a 64x64 row-major tile: i * 64 + j.
    %i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %i_2d = tl.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %i_b = tl.broadcast %i_2d : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked}>>
    %j_2d = tl.expand_dims %j {axis = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %j_b = tl.broadcast %j_2d : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %c64 = tl.constant 64 : tensor<64x64xi32, #blocked>
    %row_off = arith.muli %i_b, %c64 : tensor<64x64xi32, #blocked>
    %off = arith.addi %row_off, %j_b : tensor<64x64xi32, #blocked>
    // Load Q, K, V.
    %q_base = tl.splat %q_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>, #blocked>
    %q_ptrs = tl.addptr %q_base, %off : tensor<64x64x!tl.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %q = tl.load %q_ptrs : tensor<64x64x!tl.ptr<f16>, #blocked>
    %k_base = tl.splat %k_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>, #blocked>
    %k_ptrs = tl.addptr %k_base, %off : tensor<64x64x!tl.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %k = tl.load %k_ptrs : tensor<64x64x!tl.ptr<f16>, #blocked>
    %v_base = tl.splat %v_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>, #blocked>
    %v_ptrs = tl.addptr %v_base, %off : tensor<64x64x!tl.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %v = tl.load %v_ptrs : tensor<64x64x!tl.ptr<f16>, #blocked>
    // S = Q K^T * sm_scale
    %q_dot = tl.convert_layout %q : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_a>
    %k_t = tl.trans %k {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked_t>
    %k_dot = tl.convert_layout %k_t : tensor<64x64xf16, #blocked_t> -> tensor<64x64xf16, #dot_b>
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32, #mma>
    %qk = tl.dot %q_dot, %k_dot, %zero : tensor<64x64xf16, #dot_a> * tensor<64x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
    %scale = tl.splat %sm_scale : f32 -> tensor<64x64xf32, #mma>
    %s = arith.mulf %qk, %scale : tensor<64x64xf32, #mma>
    // P = softmax(S) along the keys.
    %row_max = tl.reduce %s {axis = 1 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #rows> {
    ^bb0(%lhs: f32, %rhs: f32):
      %m = arith.maxnumf %lhs, %rhs : f32
      tl.reduce.return %m : f32
    }
    %max_2d = tl.expand_dims %row_max {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #mma>
    %max_b = tl.broadcast %max_2d : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %shifted = arith.subf %s, %max_b : tensor<64x64xf32, #mma>
    %e = math.exp %shifted : tensor<64x64xf32, #mma>
    %row_sum = tl.reduce %e {axis = 1 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #rows> {
    ^bb0(%lhs: f32, %rhs: f32):
      %t = arith.addf %lhs, %rhs : f32
      tl.reduce.return %t : f32
    }
    %sum_2d = tl.expand_dims %row_sum {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #mma>
    %sum_b = tl.broadcast %sum_2d : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %p = arith.divf %e, %sum_b : tensor<64x64xf32, #mma>
    // O = P V
    %p16 = arith.truncf %p : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %p_dot = tl.convert_layout %p16 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    %v_dot = tl.convert_layout %v : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_b>
    %o = tl.dot %p_dot, %v_dot, %zero : tensor<64x64xf16, #dot_a> * tensor<64x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
    %o_blocked = tl.convert_layout %o : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %o_base = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>, #blocked>
    %o_ptrs = tl.addptr %o_base, %off : tensor<64x64x!tl.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    tl.store %o_ptrs, %o_blocked : tensor<64x64x!tl.ptr<f32>, #blocked>
    func.return
  }
}

// Flash-attention forward: O = softmax(Q K^T * sm_scale) V, one 64-query block per program,
// streaming over the keys and values in blocks of 32 with a running max and sum (the online
// softmax). Q, K, V are N_CTX x 64 row-major f16, O is N_CTX x 64 row-major f32; N_CTX must be a
// multiple of 64 (grid = N_CTX / 64).
//
// Q and each K/V block are loaded in the coalesced #blocked (8 consecutive f16 = 128 bits per
// thread along a row). Q becomes the A operand (#dot_a) of S = Q K^T once, before the loop; each
// K block is transposed (tl.trans gives #blocked_t) and converted to the B operand #dot_b. S, the
// probabilities P and the output accumulator live in the #mma accumulator layout (NVIDIA mma v2,
// 4 warps along the queries), and the running row statistics m_i / l_i in its row slice #rows.
// P is rounded to f16 and converted from #mma to the A operand of O += P V, and the V block from
// #blocked to #dot_b. At the end O = acc / l_i is converted to #blocked_o for a coalesced store.
//
//   llc-run examples/flash_attention.mlir --entry attention_fwd_kernel --grid 2 \
//       --args q.npy k.npy v.npy zeros:128x64xf32 0.125 128 --print-buffers
#blocked = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_t = #tl.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked_o = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot_a = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#rows = #tl.slice<{dim = 1, parent = #mma}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @attention_fwd_kernel(%q_ptr: !tl.ptr<f16>, %k_ptr: !tl.ptr<f16>, %v_ptr: !tl.ptr<f16>,
                                  %o_ptr: !tl.ptr<f32>, %sm_scale: f32, %N_CTX: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %c64_i32 = arith.constant 64 : i32
    %pid = tl.get_program_id x : i32
    %q0 = arith.muli %pid, %c64_i32 : i32

    // Q block: rows q0 + i (i < 64), all 64 columns: offsets (q0 + i) * 64 + d.
    %qi_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %q0_i = tl.splat %q0 : i32 -> tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %qi = arith.addi %q0_i, %qi_range : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %qi_2d = tl.expand_dims %qi {axis = 1 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %qi_b = tl.broadcast %qi_2d : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %d_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked}>>
    %d_2d = tl.expand_dims %d_range {axis = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %d_q = tl.broadcast %d_2d : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %c64_q = tl.constant 64 : tensor<64x64xi32, #blocked>
    %q_row = arith.muli %qi_b, %c64_q : tensor<64x64xi32, #blocked>
    %q_off = arith.addi %q_row, %d_q : tensor<64x64xi32, #blocked>
    %q_base = tl.splat %q_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>, #blocked>
    %q_ptrs = tl.addptr %q_base, %q_off : tensor<64x64x!tl.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %q = tl.load %q_ptrs : tensor<64x64x!tl.ptr<f16>, #blocked>
    %q_dot = tl.convert_layout %q : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_a>

    // K/V block pointers: rows j < 32 of the current block, offsets j * 64 + d.
    %kj_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %kj_2d = tl.expand_dims %kj_range {axis = 1 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
    %kj_b = tl.broadcast %kj_2d : tensor<32x1xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %d_kv = tl.broadcast %d_2d : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %c64_kv = tl.constant 64 : tensor<32x64xi32, #blocked>
    %kv_row = arith.muli %kj_b, %c64_kv : tensor<32x64xi32, #blocked>
    %kv_off = arith.addi %kv_row, %d_kv : tensor<32x64xi32, #blocked>
    %k_base = tl.splat %k_ptr : !tl.ptr<f16> -> tensor<32x64x!tl.ptr<f16>, #blocked>
    %k_ptrs0 = tl.addptr %k_base, %kv_off : tensor<32x64x!tl.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %v_base = tl.splat %v_ptr : !tl.ptr<f16> -> tensor<32x64x!tl.ptr<f16>, #blocked>
    %v_ptrs0 = tl.addptr %v_base, %kv_off : tensor<32x64x!tl.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %kv_step = tl.constant 2048 : tensor<32x64xi32, #blocked>

    // The online softmax over key blocks.
    %scale = tl.splat %sm_scale : f32 -> tensor<64x32xf32, #mma>
    %zero_s = tl.constant 0.000000e+00 : tensor<64x32xf32, #mma>
    %m_init = tl.constant -inf : tensor<64xf32, #rows>
    %l_init = tl.constant 0.000000e+00 : tensor<64xf32, #rows>
    %acc_init = tl.constant 0.000000e+00 : tensor<64x64xf32, #mma>
    %m_end, %l_end, %acc_end, %k_end, %v_end = scf.for %n = %c0_i32 to %N_CTX step %c32_i32 iter_args(%m_i = %m_init, %l_i = %l_init, %acc = %acc_init, %k_ptrs = %k_ptrs0, %v_ptrs = %v_ptrs0) -> (tensor<64xf32, #rows>, tensor<64xf32, #rows>, tensor<64x64xf32, #mma>, tensor<32x64x!tl.ptr<f16>, #blocked>, tensor<32x64x!tl.ptr<f16>, #blocked>) : i32 {
      // S = Q K^T * sm_scale for this block of 32 keys.
      %k = tl.load %k_ptrs : tensor<32x64x!tl.ptr<f16>, #blocked>
      %k_t = tl.trans %k {order = array<i32: 1, 0>} : tensor<32x64xf16, #blocked> -> tensor<64x32xf16, #blocked_t>
      %k_dot = tl.convert_layout %k_t : tensor<64x32xf16, #blocked_t> -> tensor<64x32xf16, #dot_b>
      %qk = tl.dot %q_dot, %k_dot, %zero_s : tensor<64x64xf16, #dot_a> * tensor<64x32xf16, #dot_b> -> tensor<64x32xf32, #mma>
      %s = arith.mulf %qk, %scale : tensor<64x32xf32, #mma>
      // m_new = max(m_i, rowmax(S)); P = exp(S - m_new); alpha = exp(m_i - m_new).
      %block_max = tl.reduce %s {axis = 1 : i32} : tensor<64x32xf32, #mma> -> tensor<64xf32, #rows> {
      ^bb0(%lhs: f32, %rhs: f32):
        %mx = arith.maxnumf %lhs, %rhs : f32
        tl.reduce.return %mx : f32
      }
      %m_new = arith.maxnumf %m_i, %block_max : tensor<64xf32, #rows>
      %m_new_2d = tl.expand_dims %m_new {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #mma>
      %m_new_b = tl.broadcast %m_new_2d : tensor<64x1xf32, #mma> -> tensor<64x32xf32, #mma>
      %shifted = arith.subf %s, %m_new_b : tensor<64x32xf32, #mma>
      %p = math.exp %shifted : tensor<64x32xf32, #mma>
      %m_diff = arith.subf %m_i, %m_new : tensor<64xf32, #rows>
      %alpha = math.exp %m_diff : tensor<64xf32, #rows>
      // l_i = l_i * alpha + rowsum(P); acc = acc * alpha + P V.
      %p_sum = tl.reduce %p {axis = 1 : i32} : tensor<64x32xf32, #mma> -> tensor<64xf32, #rows> {
      ^bb0(%lhs: f32, %rhs: f32):
        %sm = arith.addf %lhs, %rhs : f32
        tl.reduce.return %sm : f32
      }
      %l_scaled = arith.mulf %l_i, %alpha : tensor<64xf32, #rows>
      %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32, #rows>
      %alpha_2d = tl.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #mma>
      %alpha_b = tl.broadcast %alpha_2d : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
      %acc_scaled = arith.mulf %acc, %alpha_b : tensor<64x64xf32, #mma>
      %p16 = arith.truncf %p : tensor<64x32xf32, #mma> to tensor<64x32xf16, #mma>
      %p_dot = tl.convert_layout %p16 : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot_a>
      %v = tl.load %v_ptrs : tensor<32x64x!tl.ptr<f16>, #blocked>
      %v_dot = tl.convert_layout %v : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #dot_b>
      %acc_new = tl.dot %p_dot, %v_dot, %acc_scaled : tensor<64x32xf16, #dot_a> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
      %k_next = tl.addptr %k_ptrs, %kv_step : tensor<32x64x!tl.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      %v_next = tl.addptr %v_ptrs, %kv_step : tensor<32x64x!tl.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      scf.yield %m_new, %l_new, %acc_new, %k_next, %v_next : tensor<64xf32, #rows>, tensor<64xf32, #rows>, tensor<64x64xf32, #mma>, tensor<32x64x!tl.ptr<f16>, #blocked>, tensor<32x64x!tl.ptr<f16>, #blocked>
    }

    // O = acc / l_i, stored row-major.
    %l_2d = tl.expand_dims %l_end {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #mma>
    %l_b = tl.broadcast %l_2d : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %o = arith.divf %acc_end, %l_b : tensor<64x64xf32, #mma>
    %o_out = tl.convert_layout %o : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked_o>
    %oi_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_o}>>
    %q0_o = tl.splat %q0 : i32 -> tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_o}>>
    %oi = arith.addi %q0_o, %oi_range : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_o}>>
    %oi_2d = tl.expand_dims %oi {axis = 1 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_o}>> -> tensor<64x1xi32, #blocked_o>
    %oi_b = tl.broadcast %oi_2d : tensor<64x1xi32, #blocked_o> -> tensor<64x64xi32, #blocked_o>
    %od_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_o}>>
    %od_2d = tl.expand_dims %od_range {axis = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_o}>> -> tensor<1x64xi32, #blocked_o>
    %od_b = tl.broadcast %od_2d : tensor<1x64xi32, #blocked_o> -> tensor<64x64xi32, #blocked_o>
    %c64_o = tl.constant 64 : tensor<64x64xi32, #blocked_o>
    %o_row = arith.muli %oi_b, %c64_o : tensor<64x64xi32, #blocked_o>
    %o_off = arith.addi %o_row, %od_b : tensor<64x64xi32, #blocked_o>
    %o_base = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>, #blocked_o>
    %o_ptrs = tl.addptr %o_base, %o_off : tensor<64x64x!tl.ptr<f32>, #blocked_o>, tensor<64x64xi32, #blocked_o>
    tl.store %o_ptrs, %o_out : tensor<64x64x!tl.ptr<f32>, #blocked_o>
    func.return
  }
}

// llc-pipeline{num-stages=N}: the loads of the K loop that feed the dot become asynchronous
// copies into a ring of swizzled shared buffers: N-1 of them, since the tiles are read into
// registers (a slot a wgmma reads would need N). Prologue: N-1 iterations' copies, each its
// own group, masked past the upper bound; the loop waits for its own group (num = N-2), reads
// its slot straight into the dot-operand layout, then issues N-1 iterations ahead into that
// same slot; the last N-1 iterations are peeled after the loop (no copies, waits counting down
// to 0).
// (The matmul example, its row strides N and K hinted divisible by 16 as Triton specializes
// them: 16-byte copies need 16-byte aligned rows.)
// RUN: llc-opt %s -p 'llc-pipeline{num-stages=3}' | filecheck %s
// CHECK:      %[[RA:.*]] = tl.local_alloc : () -> !tl.memdesc<2x64x32xf16, #[[SA:shared[0-9]*]]>
// CHECK-NEXT: %[[RB:.*]] = tl.local_alloc : () -> !tl.memdesc<2x32x64xf16, #{{shared[0-9]*}}>
// Prologue, iteration 0 (k = 0): the original mask and'ed with 0 < K, into slot 0.
// CHECK:      %[[V0:.*]] = arith.cmpi slt, %c0_i32, %K : i32
// CHECK-NEXT: %[[S0:.*]] = tl.splat %[[V0]] : i1 -> tensor<64x32xi1, #blocked>
// CHECK-NEXT: %[[M0:.*]] = arith.andi %a_mask, %[[S0]]
// CHECK-NEXT: %[[D0:.*]] = tl.memdesc_index %[[RA]][%[[ZERO:.*]]]
// CHECK-NEXT: tl.async_copy_global_to_local %a_ptrs0, %[[D0]] mask %[[M0]]
// CHECK:      tl.async_copy_global_to_local %b_ptrs0,
// CHECK-NEXT: tl.async_commit_group
// Iteration 1 (k = 32) with the pointers advanced once, into slot 1.
// CHECK:      %[[K1:.*]] = arith.addi %c0_i32, %c32_i32 : i32
// CHECK:      %a_next_1 = tl.addptr %a_next, %step_a
// CHECK:      arith.cmpi slt, %[[K1]], %K : i32
// CHECK:      tl.async_copy_global_to_local %a_next,
// CHECK:      tl.async_copy_global_to_local %b_next,
// CHECK-NEXT: tl.async_commit_group
// CHECK-NOT:  tl.async_copy_global_to_local
// The loop stops two iterations early (K - 2*32) and carries the pointers two iterations ahead,
// the two slot counters and its next induction value; its copies are for iterations that run:
// no bound check, the original masks only.
// CHECK:      %[[UB:.*]] = arith.subi %K, %{{.*}} : i32
// CHECK:      scf.for %k = %c0_i32 to %[[UB]] step %c32_i32 iter_args(%acc_i = %acc0, %a_ptrs = %a_next_1, %b_ptrs = %b_next_1, %fill_slot = %{{.*}}, %read_slot = %{{.*}}, %next_iv = %c0_i32)
// CHECK-NEXT:   tl.async_wait {num = 1 : i32}
// CHECK-NEXT:   arith.addi %k, %{{.*}} : i32
// CHECK-NEXT:   %[[TA:.*]] = tl.memdesc_index %[[RA]][%read_slot]
// CHECK-NEXT:   %a_dot = tl.local_load %[[TA]] : !tl.memdesc<64x32xf16, #{{.*}}> -> tensor<64x32xf16, #dot_op>
// CHECK:        %b_dot = tl.local_load
// CHECK-NOT:    arith.cmpi slt, %{{.*}}, %K : i32
// CHECK:        tl.memdesc_index %[[RA]][%fill_slot]
// CHECK-NEXT:   tl.async_copy_global_to_local %a_ptrs, %{{.*}} mask %a_mask_2
// CHECK:        tl.memdesc_index %[[RB]][%fill_slot]
// CHECK-NEXT:   tl.async_copy_global_to_local %b_ptrs, %{{.*}} mask %b_mask_2
// CHECK-NEXT:   tl.async_commit_group
// CHECK-NEXT:   %acc_next = tl.dot %a_dot, %b_dot, %acc_i
// CHECK-NOT:    tl.load
// CHECK:        scf.yield %acc_next, %a_next_2, %b_next_2,
// CHECK-NEXT: }
// Epilogue: the last two iterations, peeled, without copies; each waits for its own group (one
// may stay in flight, then none) and runs only if it is an iteration of the loop (K < 64).
// CHECK-NEXT: tl.async_wait {num = 1 : i32}
// CHECK-NEXT: %[[P0:.*]] = arith.cmpi slt, %{{.*}}, %K : i32
// CHECK-NEXT: scf.if %[[P0]]
// CHECK-NOT:    tl.async_copy_global_to_local
// CHECK:        tl.local_load
// CHECK:        tl.dot
// CHECK:      } else {
// CHECK:      tl.async_wait {num = 0 : i32}
// CHECK-NEXT: %[[P1:.*]] = arith.cmpi slt, %{{.*}}, %K : i32
// CHECK-NEXT: %acc, {{.*}} = scf.if %[[P1]]
// CHECK-NOT:  tl.async
//
// Without peeling (Triton 3.9's form): the loop runs every iteration, its copies masked off
// past the upper bound, and a wait 0 after it drains them.
// RUN: llc-opt %s -p 'llc-pipeline{num-stages=3 peel-epilogue=false}' | filecheck %s --check-prefix=MASKED
// MASKED:      scf.for %k = %c0_i32 to %K step %c32_i32
// MASKED-NEXT:   tl.async_wait {num = 1 : i32}
// MASKED-NEXT:   %[[KA:.*]] = arith.addi %k, %{{.*}} : i32
// MASKED:        arith.cmpi slt, %[[KA]], %K : i32
// MASKED:        tl.async_commit_group
// MASKED:      }
// MASKED-NEXT: tl.async_wait {num = 0 : i32}
// MASKED-NOT:  scf.if
//
// Two stages: one prologue group, the loop waits for everything.
// RUN: llc-opt %s -p 'llc-pipeline{num-stages=2}' | filecheck %s --check-prefix=TWO
// TWO:     tl.local_alloc : () -> !tl.memdesc<1x64x32xf16
// TWO-COUNT-1: tl.async_commit_group
// TWO:     scf.for
// TWO-NEXT:  tl.async_wait {num = 0 : i32}
// One stage: nothing to do.
// RUN: llc-opt %s -p 'llc-pipeline{num-stages=1}' | filecheck %s --check-prefix=ONE
// ONE-NOT: tl.async
// ONE-NOT: tl.local_alloc
//
// Lowered: 16-byte cp.async (two per thread and tile), the loop's wait and its barrier; the
// rings side by side in the arena (the epilogue's scratch later reuses their bytes).
// RUN: llc-opt %s -p 'llc-pipeline{num-stages=3},llc-lower-to-simt' | filecheck %s --check-prefix=SIMT
// SIMT:      simt.shared_alloc : !simt.smem<8192, align 16> offset 0
// SIMT-NEXT: simt.shared_alloc : !simt.smem<8192, align 16> offset 8192
// SIMT:      simt.cp_async %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} bytes 16
// SIMT:      simt.cp_async_commit_group
// SIMT:      scf.for
// SIMT-NEXT:   simt.cp_async_wait_group 1
// SIMT-NEXT:   gpu.barrier
// SIMT:      simt.cp_async_wait_group 0
// PTX for sm_80: cp.async.cg with the src-size operand; ptxas says nothing.
// RUN: llc-opt %s -p 'llc-pipeline{num-stages=3},llc-lower-to-simt' -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// PTX:     cp.async.cg.shared.global [{{.*}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX:     cp.async.commit_group;
// PTX:     cp.async.wait_group 1;
// PTX-NEXT: bar.sync 0;
// PTX:     cp.async.wait_group 0;
// RUN: python3 -c "import sys; from llc.testing.ptxas import assemble; print(repr(assemble(open(sys.argv[1]).read(), 'sm_80')))" %t.ptx | filecheck %s --check-prefix=PTXAS
// PTXAS: ''

#blocked_a = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_b = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_c = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot_a = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @matmul_kernel(%a_ptr: !tl.ptr<f16>, %b_ptr: !tl.ptr<f16>, %c_ptr: !tl.ptr<f32>,
                           %M: i32, %N: i32 {tl.divisibility = 16 : i32}, %K: i32 {tl.divisibility = 16 : i32}) {
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %c64_i32 = arith.constant 64 : i32
    %pid_m = tl.get_program_id x : i32
    %pid_n = tl.get_program_id y : i32
    %m0 = arith.muli %pid_m, %c64_i32 : i32
    %n0 = arith.muli %pid_n, %c64_i32 : i32

    // A tile pointers: a_ptr + (m0 + i) * K + k, i < 64, k < 32.
    %am_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_a}>>
    %m0_a = tl.splat %m0 : i32 -> tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_a}>>
    %am = arith.addi %m0_a, %am_range : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_a}>>
    %am_2d = tl.expand_dims %am {axis = 1 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_a}>> -> tensor<64x1xi32, #blocked_a>
    %am_b = tl.broadcast %am_2d : tensor<64x1xi32, #blocked_a> -> tensor<64x32xi32, #blocked_a>
    %ak = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked_a}>>
    %ak_2d = tl.expand_dims %ak {axis = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked_a}>> -> tensor<1x32xi32, #blocked_a>
    %ak_b = tl.broadcast %ak_2d : tensor<1x32xi32, #blocked_a> -> tensor<64x32xi32, #blocked_a>
    %K_a = tl.splat %K : i32 -> tensor<64x32xi32, #blocked_a>
    %a_row_off = arith.muli %am_b, %K_a : tensor<64x32xi32, #blocked_a>
    %a_off = arith.addi %a_row_off, %ak_b : tensor<64x32xi32, #blocked_a>
    %a_base = tl.splat %a_ptr : !tl.ptr<f16> -> tensor<64x32x!tl.ptr<f16>, #blocked_a>
    %a_ptrs0 = tl.addptr %a_base, %a_off : tensor<64x32x!tl.ptr<f16>, #blocked_a>, tensor<64x32xi32, #blocked_a>
    %M_a = tl.splat %M : i32 -> tensor<64x32xi32, #blocked_a>
    %a_row_ok = tl.cmpi slt, %am_b, %M_a : tensor<64x32xi32, #blocked_a>

    // B tile pointers: b_ptr + k * N + (n0 + j), k < 32, j < 64.
    %bk = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked_b}>>
    %bk_2d = tl.expand_dims %bk {axis = 1 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked_b}>> -> tensor<32x1xi32, #blocked_b>
    %bk_b = tl.broadcast %bk_2d : tensor<32x1xi32, #blocked_b> -> tensor<32x64xi32, #blocked_b>
    %bn_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_b}>>
    %n0_b = tl.splat %n0 : i32 -> tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_b}>>
    %bn = arith.addi %n0_b, %bn_range : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_b}>>
    %bn_2d = tl.expand_dims %bn {axis = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_b}>> -> tensor<1x64xi32, #blocked_b>
    %bn_b = tl.broadcast %bn_2d : tensor<1x64xi32, #blocked_b> -> tensor<32x64xi32, #blocked_b>
    %N_b = tl.splat %N : i32 -> tensor<32x64xi32, #blocked_b>
    %b_row_off = arith.muli %bk_b, %N_b : tensor<32x64xi32, #blocked_b>
    %b_off = arith.addi %b_row_off, %bn_b : tensor<32x64xi32, #blocked_b>
    %b_base = tl.splat %b_ptr : !tl.ptr<f16> -> tensor<32x64x!tl.ptr<f16>, #blocked_b>
    %b_ptrs0 = tl.addptr %b_base, %b_off : tensor<32x64x!tl.ptr<f16>, #blocked_b>, tensor<32x64xi32, #blocked_b>
    %b_col_ok = tl.cmpi slt, %bn_b, %N_b : tensor<32x64xi32, #blocked_b>

    // acc += A[:, k:k+32] @ B[k:k+32, :] for k = 0, 32, ... < K; the K tail is masked to 0.
    %zero_a = tl.constant 0.000000e+00 : tensor<64x32xf16, #blocked_a>
    %zero_b = tl.constant 0.000000e+00 : tensor<32x64xf16, #blocked_b>
    %step_a = tl.constant 32 : tensor<64x32xi32, #blocked_a>
    %step_b_scalar = arith.muli %N, %c32_i32 : i32
    %step_b = tl.splat %step_b_scalar : i32 -> tensor<32x64xi32, #blocked_b>
    %acc0 = tl.constant 0.000000e+00 : tensor<64x64xf32, #mma>
    %acc, %a_ptrs_end, %b_ptrs_end = scf.for %k = %c0_i32 to %K step %c32_i32 iter_args(%acc_i = %acc0, %a_ptrs = %a_ptrs0, %b_ptrs = %b_ptrs0) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tl.ptr<f16>, #blocked_a>, tensor<32x64x!tl.ptr<f16>, #blocked_b>) : i32 {
      %k_left = arith.subi %K, %k : i32
      %k_left_a = tl.splat %k_left : i32 -> tensor<64x32xi32, #blocked_a>
      %a_k_ok = tl.cmpi slt, %ak_b, %k_left_a : tensor<64x32xi32, #blocked_a>
      %a_mask = arith.andi %a_row_ok, %a_k_ok : tensor<64x32xi1, #blocked_a>
      %a = tl.load %a_ptrs, %a_mask, %zero_a : tensor<64x32x!tl.ptr<f16>, #blocked_a>
      %k_left_b = tl.splat %k_left : i32 -> tensor<32x64xi32, #blocked_b>
      %b_k_ok = tl.cmpi slt, %bk_b, %k_left_b : tensor<32x64xi32, #blocked_b>
      %b_mask = arith.andi %b_k_ok, %b_col_ok : tensor<32x64xi1, #blocked_b>
      %b = tl.load %b_ptrs, %b_mask, %zero_b : tensor<32x64x!tl.ptr<f16>, #blocked_b>
      %a_dot = tl.convert_layout %a : tensor<64x32xf16, #blocked_a> -> tensor<64x32xf16, #dot_a>
      %b_dot = tl.convert_layout %b : tensor<32x64xf16, #blocked_b> -> tensor<32x64xf16, #dot_b>
      %acc_next = tl.dot %a_dot, %b_dot, %acc_i : tensor<64x32xf16, #dot_a> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
      %a_next = tl.addptr %a_ptrs, %step_a : tensor<64x32x!tl.ptr<f16>, #blocked_a>, tensor<64x32xi32, #blocked_a>
      %b_next = tl.addptr %b_ptrs, %step_b : tensor<32x64x!tl.ptr<f16>, #blocked_b>, tensor<32x64xi32, #blocked_b>
      scf.yield %acc_next, %a_next, %b_next : tensor<64x64xf32, #mma>, tensor<64x32x!tl.ptr<f16>, #blocked_a>, tensor<32x64x!tl.ptr<f16>, #blocked_b>
    }
    %out = tl.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked_c>

    // Store C[m0 + i, n0 + j] where in bounds.
    %cm_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_c}>>
    %m0_c = tl.splat %m0 : i32 -> tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_c}>>
    %cm = arith.addi %m0_c, %cm_range : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_c}>>
    %cm_2d = tl.expand_dims %cm {axis = 1 : i32} : tensor<64xi32, #tl.slice<{dim = 1, parent = #blocked_c}>> -> tensor<64x1xi32, #blocked_c>
    %cm_b = tl.broadcast %cm_2d : tensor<64x1xi32, #blocked_c> -> tensor<64x64xi32, #blocked_c>
    %cn_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_c}>>
    %n0_c = tl.splat %n0 : i32 -> tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_c}>>
    %cn = arith.addi %n0_c, %cn_range : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_c}>>
    %cn_2d = tl.expand_dims %cn {axis = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #blocked_c}>> -> tensor<1x64xi32, #blocked_c>
    %cn_b = tl.broadcast %cn_2d : tensor<1x64xi32, #blocked_c> -> tensor<64x64xi32, #blocked_c>
    %N_c = tl.splat %N : i32 -> tensor<64x64xi32, #blocked_c>
    %M_c = tl.splat %M : i32 -> tensor<64x64xi32, #blocked_c>
    %c_row_off = arith.muli %cm_b, %N_c : tensor<64x64xi32, #blocked_c>
    %c_off = arith.addi %c_row_off, %cn_b : tensor<64x64xi32, #blocked_c>
    %c_base = tl.splat %c_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>, #blocked_c>
    %c_ptrs = tl.addptr %c_base, %c_off : tensor<64x64x!tl.ptr<f32>, #blocked_c>, tensor<64x64xi32, #blocked_c>
    %c_row_ok = tl.cmpi slt, %cm_b, %M_c : tensor<64x64xi32, #blocked_c>
    %c_col_ok = tl.cmpi slt, %cn_b, %N_c : tensor<64x64xi32, #blocked_c>
    %c_mask = arith.andi %c_row_ok, %c_col_ok : tensor<64x64xi1, #blocked_c>
    tl.store %c_ptrs, %out, %c_mask : tensor<64x64x!tl.ptr<f32>, #blocked_c>
    func.return
  }
}

// llc-lower-conversions: each tl.convert_layout names a new SIMT function (@cvtN) holding its
// lowering, chosen from the linear layouts: a swizzled shared-memory round trip (the transpose
// crosses warps), warp shuffles (a lane permutation inside each warp), a register renaming, or
// nothing. The stock xdsl-opt runs the pass too, and its output parses again.
// RUN: llc-opt %s -p llc-lower-conversions | filecheck %s
// RUN: xdsl-opt %s -p llc-lower-conversions | filecheck %s --check-prefix=XDSL
// RUN: llc-opt %s -p llc-lower-conversions | llc-opt | filecheck %s --check-prefix=XDSL
// Every lowered function runs in the SIMT interpreter on distinct values and every register of
// every thread holds the element its destination layout says.
// RUN: llc-opt %s -p llc-lower-conversions -o %t.mlir
// RUN: llc-run %t.mlir --entry cvt0 | filecheck %s --check-prefix=RUN0
// RUN: llc-run %t.mlir --entry cvt1 | filecheck %s --check-prefix=RUN1
// RUN: llc-run %t.mlir --entry cvt2 | filecheck %s --check-prefix=RUN2
// RUN: llc-run %t.mlir --entry cvt3 | filecheck %s --check-prefix=RUN3
// Without its barrier the round trip races, and llc-run says where.
// RUN: grep -v gpu.barrier %t.mlir > %t.nobarrier.mlir
// RUN: not llc-run %t.nobarrier.mlir --entry cvt0 2>&1 | filecheck %s --check-prefix=RACE
// A small scratch limit makes the transpose run in rounds, with barriers between them.
// RUN: llc-opt %s -p 'llc-lower-conversions{scratch-limit=4096}' -o %t.rounds.mlir
// RUN: llc-run %t.rounds.mlir --entry cvt0 | filecheck %s --check-prefix=ROUNDS

#row = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#lanes_r = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
#lanes_c = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#regs_a = #tl.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#regs_b = #tl.linear<{register = [[1, 0], [0, 1], [0, 16], [0, 8]], lane = [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]], warp = [[16, 0], [0, 0]], block = []}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
module attributes {"tl.num-warps" = 4 : i32} {
  func.func @k(%x: tensor<64x64xf32, #row>, %y: tensor<32x32xf16, #lanes_r>,
               %z: tensor<32x32xf16, #regs_a>, %m: tensor<64x32xf16, #mma>) {
    %a = tl.convert_layout %x : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
    %b = tl.convert_layout %y : tensor<32x32xf16, #lanes_r> -> tensor<32x32xf16, #lanes_c>
    %c = tl.convert_layout %z : tensor<32x32xf16, #regs_a> -> tensor<32x32xf16, #regs_b>
    %d = tl.convert_layout %m : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot>
    func.return
  }
}

// CHECK:      %a = tl.convert_layout %x {llc.lowered = @cvt0}
// CHECK:      %b = tl.convert_layout %y {llc.lowered = @cvt1}
// CHECK:      %c = tl.convert_layout %z {llc.lowered = @cvt2}
// CHECK:      %d = tl.convert_layout %m {llc.lowered = @cvt3}

// The transpose: 32 source registers -> 32 destination registers through shared memory.
// CHECK-LABEL: func.func @cvt0(%0: vector<32xf32>) -> vector<32xf32>
// CHECK-SAME:    llc.num_warps = 4 : i32, llc.threads_per_warp = 32 : i32, llc.strategy = "shared"
// CHECK:         simt.shared_alloc : !simt.smem<16384, align 16>
// CHECK:         "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK:         simt.shared_store %{{.*}}, %{{.*}}[%{{.*}}] : vector<{{[124]}}xf32>, !simt.smem<16384, align 16>
// CHECK:         "gpu.barrier"() : () -> ()
// CHECK-NOT:     "gpu.barrier"
// CHECK:         simt.shared_load %{{.*}}[%{{.*}}] : !simt.smem<16384, align 16> -> vector<{{[124]}}xf32>
// CHECK:         func.return %{{.*}} : vector<32xf32>

// A lane permutation inside each warp: index shuffles of two packed f16 each, no shared memory.
// CHECK-LABEL: func.func @cvt1(%{{.*}}: vector<8xf16>) -> vector<8xf16>
// CHECK-SAME:    llc.strategy = "shuffle"
// CHECK-NOT:     simt.shared
// CHECK:         simt.shuffle "idx" %{{.*}}, %{{.*}} c = 31 mask = -1 : vector<2xf16>
// CHECK-NOT:     simt.shared
// CHECK:         func.return

// Registers only: each thread renames its registers.
// CHECK-LABEL: func.func @cvt2(%{{.*}}: vector<16xf16>) -> vector<16xf16>
// CHECK-SAME:    llc.strategy = "registers"
// CHECK-NEXT:    %{{.*}} = vector.shuffle %{{.*}}, %{{.*}} [0, 2, 1, 3, 8, 10, 9, 11, 4, 6, 5, 7, 12, 14, 13, 15] : vector<16xf16>, vector<16xf16>
// CHECK-NEXT:    func.return

// mma -> dot_op (kWidth 2, f16): the registers are already where the dot wants them.
// CHECK-LABEL: func.func @cvt3(%{{.*}}: vector<16xf16>) -> vector<16xf16>
// CHECK-SAME:    llc.strategy = "none"
// CHECK-NEXT:    func.return %{{.*}} : vector<16xf16>

// XDSL: func.func @cvt3

// RUN0: @cvt0: shared, 4 warps x 32 threads
// RUN0: instructions per thread: {{.*}}bar.sync 1, {{.*}}
// RUN0: shared memory: {{[0-9]+}} warp instructions, [[W:[0-9]+]] wavefronts (ideal [[W]])
// RUN0: verified: every register of every thread holds its destination element (1 run)
// RUN1: @cvt1: shuffle
// RUN1: instructions per thread: {{.*}}shfl 4
// RUN1: verified: every register
// RUN2: @cvt2: registers
// RUN2: instructions per thread: none
// RUN2: verified: every register
// RUN3: @cvt3: none
// RUN3: verified: every register

// ROUNDS: @cvt0: shared
// ROUNDS: instructions per thread: {{.*}}bar.sync 7,
// ROUNDS: verified: every register

// RACE: nobarrier.mlir:{{[0-9]+}}:{{[0-9]+}}: error: simt.shared_load: race: thread {{[0-9]+}} reads byte {{[0-9]+}}, written by thread {{[0-9]+}} since the last barrier
// RACE-NEXT: simt.shared_load

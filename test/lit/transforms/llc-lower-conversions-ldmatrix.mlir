// llc-lower-conversions uses ldmatrix/stmatrix where a side's map to the shared offset is the
// instruction tile (decided from the linear layouts) and it costs less than ld/st.shared vectors:
// a row-major f16 tile -> mma A operand (ldmatrix.x4), the same tile -> mma B operand
// (ldmatrix.x4.trans), mma f16 accumulators -> row-major (stmatrix.x4), and mma f32 accumulators
// (stmatrix.x4 of b16 pairs). Each lowered function runs in the SIMT interpreter.
// RUN: llc-opt %s -p llc-lower-conversions | filecheck %s
// RUN: llc-opt %s -p llc-lower-conversions -o %t.mlir
// RUN: llc-run %t.mlir --entry cvt0 | filecheck %s --check-prefix=RUN0
// RUN: llc-run %t.mlir --entry cvt1 | filecheck %s --check-prefix=RUN1
// RUN: llc-run %t.mlir --entry cvt2 | filecheck %s --check-prefix=RUN2
// RUN: llc-run %t.mlir --entry cvt3 | filecheck %s --check-prefix=RUN3

#row = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#mma22 = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tl.dot_op<{opIdx = 1, parent = #mma22, kWidth = 2}>
module attributes {"tl.num-warps" = 4 : i32} {
  func.func @k(%x: tensor<64x64xf16, #row>, %m: tensor<64x64xf16, #mma>, %f: tensor<64x64xf32, #mma>) {
    %0 = tl.convert_layout %x : tensor<64x64xf16, #row> -> tensor<64x64xf16, #a>
    %1 = tl.convert_layout %x : tensor<64x64xf16, #row> -> tensor<64x64xf16, #b>
    %2 = tl.convert_layout %m : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #row>
    %3 = tl.convert_layout %f : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #row>
    func.return
  }
}

// CHECK-LABEL: func.func @cvt0
// CHECK:         simt.shared_store %{{.*}} : vector<8xf16>
// CHECK:         "gpu.barrier"
// CHECK-NOT:     simt.shared_load
// CHECK:         simt.ldmatrix %{{.*}}[%{{.*}}] x 4 : !simt.smem<8192, align 16> -> vector<8xf16>
// The B operand repeats registers of the row-major tile: 4 rounds of 2 KiB (Triton: 2048 B).
// CHECK-LABEL: func.func @cvt1
// CHECK:         simt.shared_alloc : !simt.smem<2048, align 16>
// CHECK:         simt.ldmatrix %{{.*}}[%{{.*}}] x 4 trans : !simt.smem<2048, align 16> -> vector<8xf16>
// CHECK-COUNT-3: "gpu.barrier"
// CHECK:         simt.ldmatrix %{{.*}}[%{{.*}}] x 4 trans
// CHECK-LABEL: func.func @cvt2
// CHECK:         simt.stmatrix %{{.*}}, %{{.*}}[%{{.*}}] x 4 : vector<8xf16>, !simt.smem<8192, align 16>
// CHECK:         "gpu.barrier"
// CHECK:         simt.shared_load
// CHECK-LABEL: func.func @cvt3
// CHECK:         vector.bitcast %{{.*}} : vector<4xf32> to vector<8xi16>
// CHECK:         simt.stmatrix %{{.*}}, %{{.*}}[%{{.*}}] x 4 : vector<8xi16>, !simt.smem<8192, align 16>

// RUN0: instructions per thread: {{.*}}ldmatrix 4{{.*}}
// RUN0: shared memory: {{[0-9]+}} warp instructions, [[W:[0-9]+]] wavefronts (ideal [[W]])
// RUN0: verified: every register of every thread holds its destination element
// RUN1: ldmatrix 8
// RUN1: verified: every register of every thread holds its destination element
// RUN2: stmatrix 4
// RUN2: verified: every register of every thread holds its destination element
// RUN3: stmatrix 8
// RUN3: verified: every register of every thread holds its destination element

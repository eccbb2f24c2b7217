// The dot anchor follows the target: FMA without tensor cores, mfma on AMD (64-lane waves).
// RUN: llc-opt %s -p 'llc-assign-anchors{target="cuda:70"}' | filecheck %s --check-prefix=FMA
// RUN: llc-opt %s -p 'llc-assign-anchors{target="hip:gfx942"}' | filecheck %s --check-prefix=MFMA
// RUN: llc-opt %s -p 'llc-assign-anchors{mma-version=1}' | filecheck %s --check-prefix=FMA
// RUN: llc-opt %s -p 'llc-assign-anchors{num-warps=8}' | filecheck %s --check-prefix=WARPS8
// RUN: not llc-opt %s -p 'llc-assign-anchors{mma-version=3 target="cuda:80"}' 2>&1 | filecheck %s --check-prefix=V3
// RUN: llc-opt %s -p 'llc-assign-anchors' | filecheck %s --check-prefix=HOPPER
// RUN: llc-opt %s -p 'llc-assign-anchors{mma-version=3}' | filecheck %s --check-prefix=HOPPER
// RUN: llc-opt %s -p 'llc-assign-anchors{mma-version=2}' | filecheck %s --check-prefix=V2

// FMA-NOT: nvidia_mma
// The FMA accumulator: a 4x4 block per thread (Triton's TritonDotPattern, 32 elements each).
// FMA: #[[ACC:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [4, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// FMA: = #tl.dot_op<{opIdx = 1, parent = #[[ACC]]}>
// FMA: = #tl.dot_op<{opIdx = 0, parent = #[[ACC]]}>
// FMA: %d = tl.dot {{.*}} -> tensor<64x64xf32, #[[ACC]]>

// MFMA: #[[MFMA:mma[0-9]*]] = #tl.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
// MFMA: = #tl.dot_op<{opIdx = 1, parent = #[[MFMA]], kWidth = 4}>
// MFMA: "tl.threads-per-warp" = 64 : i32
// MFMA: %d = tl.dot {{.*}} -> tensor<64x64xf32, #[[MFMA]]>

// Pass options override the module's attributes and are written back.
// WARPS8: #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
// WARPS8: "tl.num-warps" = 8 : i32

// V3: error: 'tl.dot' op mma version 3 (wgmma) needs cuda:90 or newer, not 'cuda:80'

// cuda:90 (the module's target) gets wgmma by default: an mma v3 accumulator, both operands
// (function arguments, which Triton treats like loads) staged in nvmma_shared buffers.
// HOPPER: #[[MMA:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// HOPPER-LABEL: func.func @dot
// HOPPER: tl.warp_group_dot {{.*}} : !tl.memdesc<64x32xf16, #shared{{[0-9]*}}> * !tl.memdesc<32x64xf16, #shared{{[0-9]*}}> -> tensor<64x64xf32, #[[MMA]]>
// mma-version=2 asks for Ampere's mma.sync.
// V2-NOT: warp_group_dot
// V2: %d = tl.dot {{.*}} -> tensor<64x64xf32, #mma>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @dot(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) -> tensor<64x64xf32> {
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %d = tl.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    func.return %d : tensor<64x64xf32>
  }
  func.func @copy(%src: !tl.ptr<f32>, %dst: !tl.ptr<f32>) {
    %r = tl.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %sb = tl.splat %src : !tl.ptr<f32> -> tensor<1024x!tl.ptr<f32>>
    %sp = tl.addptr %sb, %r : tensor<1024x!tl.ptr<f32>>, tensor<1024xi32>
    %x = tl.load %sp : tensor<1024x!tl.ptr<f32>>
    %db = tl.splat %dst : !tl.ptr<f32> -> tensor<1024x!tl.ptr<f32>>
    %dp = tl.addptr %db, %r : tensor<1024x!tl.ptr<f32>>, tensor<1024xi32>
    tl.store %dp, %x : tensor<1024x!tl.ptr<f32>>
    func.return
  }
}

// RUN: llc-opt %s -p llc-assign-anchors --split-input-file | filecheck %s

// Coalescing: the pointers are contiguous along the only dim and 16-byte aligned, so each
// thread loads 4 f32 (128 bits). The module keeps its hardware attributes.
// CHECK: #[[VEC:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @copy
// CHECK: tl.load %{{.*}} : tensor<1024x!tl.ptr<f32>, #[[VEC]]>
// CHECK: tl.store %{{.*}}, %{{.*}} : tensor<1024x!tl.ptr<f32>, #[[VEC]]>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
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

// -----

// On cuda:80 a dot gets an mma v2 accumulator and dot_op operands; every other tensor starts in
// the default blocked layout, and conversions connect them. (cuda:90: the next case.)
// CHECK: #[[MMA:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK: #[[DB:dot_op[0-9]*]] = #tl.dot_op<{opIdx = 1, parent = #[[MMA]], kWidth = 2}>
// CHECK: #[[DA:dot_op[0-9]*]] = #tl.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// CHECK-LABEL: func.func @dot
// CHECK-DAG: tl.convert_layout %b : tensor<32x64xf16, #{{.*}}> -> tensor<32x64xf16, #[[DB]]>
// CHECK-DAG: tl.convert_layout %a : tensor<64x32xf16, #{{.*}}> -> tensor<64x32xf16, #[[DA]]>
// CHECK: %d = tl.dot {{.*}} -> tensor<64x64xf32, #[[MMA]]>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @dot(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) -> tensor<64x64xf32> {
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %d = tl.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    func.return %d : tensor<64x64xf32>
  }
}

// -----

// Partially laid-out IR: the layout the user wrote on %x is kept; the rest is assigned.
// CHECK: #[[USER:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: #[[DEFAULT:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @partial
// CHECK: %x = tl.splat %v : f32 -> tensor<128xf32, #[[USER]]>
// CHECK: %y = math.exp %x : tensor<128xf32, #[[USER]]>
// CHECK: %z = tl.splat %v : f32 -> tensor<128xf32, #[[DEFAULT]]>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @partial(%v: f32) -> (tensor<128xf32, #tl.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<128xf32>) {
    %x = tl.splat %v : f32 -> tensor<128xf32, #tl.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %y = math.exp %x : tensor<128xf32, #tl.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %z = tl.splat %v : f32 -> tensor<128xf32>
    func.return %y, %z : tensor<128xf32, #tl.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<128xf32>
  }
}

// -----

// A chain of dots (attention: the first dot's result, through the softmax, feeds the second):
// Triton's warpsPerTileV2 puts all warps along M for both, so the row reductions between them
// stay inside each warp (a lone 64x64 dot gets [2, 2], see @dot).
// CHECK: #[[CHAIN:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// CHECK-NOT: #tl.nvidia_mma
// CHECK-LABEL: func.func @dot_chain
// CHECK: %s = tl.dot {{.*}} -> tensor<64x64xf32, #[[CHAIN]]>
// CHECK: %o = tl.dot {{.*}} -> tensor<64x32xf32, #[[CHAIN]]>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @dot_chain(%q: tensor<64x32xf16>, %k: tensor<32x64xf16>, %v: tensor<64x32xf16>) -> tensor<64x32xf32> {
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %zero2 = tl.constant 0.000000e+00 : tensor<64x32xf32>
    %s = tl.dot %q, %k, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    %o = tl.dot %p, %v, %zero2 : tensor<64x64xf16> * tensor<64x32xf16> -> tensor<64x32xf32>
    func.return %o : tensor<64x32xf32>
  }
}

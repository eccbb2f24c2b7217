// The stock xdsl-opt finds llc's `tl` dialect through the `xdsl.universe` entry point
// (llc.dialects.universe:LLC_UNIVERSE): it parses #tl layouts (inline or as aliases) and prints them
// inline, as xDSL never prints aliases; llc-opt reads that output back.
//
// RUN: xdsl-opt %s | filecheck %s
// RUN: xdsl-opt %s --print-op-generic | llc-opt | filecheck %s --check-prefix=LLC
// RUN: llc-opt %s | xdsl-opt | filecheck %s

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  %0 = "test.op"() : () -> tensor<32x32xf32, #blocked>
  %1 = "test.op"() : () -> tensor<32x32xf16, #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
}

// CHECK:      builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
// CHECK-NEXT:   %0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NEXT:   %1 = "test.op"() : () -> tensor<32x32xf16, #tl.dot_op<{opIdx = 0, parent = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>
// CHECK-NEXT: }

// LLC:      #blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// LLC-NEXT: #mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// LLC-NEXT: #dot_op = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// LLC-NEXT: builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
// LLC-NEXT:   %0 = "test.op"() : () -> tensor<32x32xf32, #blocked>
// LLC-NEXT:   %1 = "test.op"() : () -> tensor<32x32xf16, #dot_op>
// LLC-NEXT: }

// Every #tl layout attribute parses from Triton's TTGIR spelling and prints back with
// MLIR-style aliases (parents first), in the custom and the generic op format.
//
// RUN: llc-opt %s --split-input-file | filecheck %s
// RUN: LLC_ROUNDTRIP
// RUN: LLC_GENERIC_ROUNDTRIP
// RUN: llc-opt %s --split-input-file --no-aliases | filecheck %s --check-prefix=INLINE
//
// Printing is a fixed point, and the aliased text denotes the same IR as the inline text.
// RUN: llc-opt %s --split-input-file > %t.1.mlir
// RUN: llc-opt %t.1.mlir --split-input-file > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: llc-opt %s --split-input-file --no-aliases > %t.inline.mlir
// RUN: llc-opt %t.1.mlir --split-input-file --no-aliases > %t.reparsed.mlir
// RUN: diff %t.inline.mlir %t.reparsed.mlir
// RUN: llc-opt %t.inline.mlir --split-input-file | diff %t.1.mlir -

// All distributed families, inline in types, as a Triton dump would have them. (No hardware
// attributes here: NVIDIA and AMD layouts cannot share one "tl.threads-per-warp".)
builtin.module {
  %0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
  %1 = "test.op"() : () -> tensor<64x64xf16, #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>>
  %2 = "test.op"() : () -> tensor<32xf32, #tl.slice<{dim = 1, parent = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
  %3 = "test.op"() : () -> tensor<32x32xf32, #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
  %4 = "test.op"() : () -> tensor<32x32xf16, #tl.dot_op<{opIdx = 0, parent = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>
  %5 = "test.op"() : () -> tensor<32x32xf16, #tl.dot_op<{opIdx = 1, parent = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>
  %6 = "test.op"() : () -> tensor<64x64xf32, #tl.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
  %7 = "test.op"() : () -> tensor<64x64xf32, #tl.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>>
  %8 = "test.op"() : () -> tensor<64x64xf32, #tl.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>>
  %9 = "test.op"() : () -> tensor<4x32xf32, #tl.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>>
  %10 = "test.op"(%0, %0) : (tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>) -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
}

// CHECK:      #blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-NEXT: #blocked1 = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
// CHECK-NEXT: #slice = #tl.slice<{dim = 1, parent = #blocked}>
// CHECK-NEXT: #mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-NEXT: #dot_op = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK-NEXT: #dot_op1 = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-NEXT: #mma1 = #tl.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK-NEXT: #mma2 = #tl.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
// CHECK-NEXT: #mma3 = #tl.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>
// CHECK-NEXT: #linear = #tl.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   %0 = "test.op"() : () -> tensor<32x32xf32, #blocked>
// CHECK-NEXT:   %1 = "test.op"() : () -> tensor<64x64xf16, #blocked1>
// CHECK-NEXT:   %2 = "test.op"() : () -> tensor<32xf32, #slice>
// CHECK-NEXT:   %3 = "test.op"() : () -> tensor<32x32xf32, #mma>
// CHECK-NEXT:   %4 = "test.op"() : () -> tensor<32x32xf16, #dot_op>
// CHECK-NEXT:   %5 = "test.op"() : () -> tensor<32x32xf16, #dot_op1>
// CHECK-NEXT:   %6 = "test.op"() : () -> tensor<64x64xf32, #mma1>
// CHECK-NEXT:   %7 = "test.op"() : () -> tensor<64x64xf32, #mma2>
// CHECK-NEXT:   %8 = "test.op"() : () -> tensor<64x64xf32, #mma3>
// CHECK-NEXT:   %9 = "test.op"() : () -> tensor<4x32xf32, #linear>
// CHECK-NEXT:   %10 = "test.op"(%0, %0) : (tensor<32x32xf32, #blocked>, tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked>
// CHECK-NEXT: }

// CHECK-GENERIC:      #blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-GENERIC:      #linear = #tl.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>
// CHECK-GENERIC-NEXT: "builtin.module"() ({
// CHECK-GENERIC-NEXT:   %0 = "test.op"() : () -> tensor<32x32xf32, #blocked>
// CHECK-GENERIC:        %4 = "test.op"() : () -> tensor<32x32xf16, #dot_op>
// CHECK-GENERIC:      }) : () -> ()

// INLINE-NOT:  #blocked =
// INLINE:      %0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// INLINE:      %4 = "test.op"() : () -> tensor<32x32xf16, #tl.dot_op<{opIdx = 0, parent = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>

// -----

// Shared-memory families, as attributes (they become memdesc encodings in the ops dialect).
"test.op"() {
  swizzled = #tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>,
  swizzled_cta = #tl.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]}>,
  nvmma = #tl.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>,
  nvmma_fp4 = #tl.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8, fp4Padded = true}>,
  linear = #tl.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 0]], alignment = 16}>,
  linear_block = #tl.shared_linear<{offset = [[0, 1], [1, 0]], block = [[0, 2]]}>
} : () -> ()

// CHECK:      #shared = #tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-NEXT: #shared1 = #tl.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]}>
// CHECK-NEXT: #shared2 = #tl.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-NEXT: #shared3 = #tl.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8, fp4Padded = true}>
// CHECK-NEXT: #shared4 = #tl.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 0]], alignment = 16}>
// CHECK-NEXT: #shared5 = #tl.shared_linear<{offset = [[0, 1], [1, 0]], block = [[0, 2]]}>
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   "test.op"() {swizzled = #shared, swizzled_cta = #shared1, nvmma = #shared2, nvmma_fp4 = #shared3, linear = #shared4, linear_block = #shared5} : () -> ()
// CHECK-NEXT: }

// CHECK-GENERIC:      #shared5 = #tl.shared_linear<{offset = [[0, 1], [1, 0]], block = [[0, 2]]}>
// CHECK-GENERIC-NEXT: "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "test.op"() {swizzled = #shared, swizzled_cta = #shared1, nvmma = #shared2, nvmma_fp4 = #shared3, linear = #shared4, linear_block = #shared5} : () -> ()

// -----

// Input aliases may have any name; they are renamed TTGIR-style, defined parents-first, and
// unused ones disappear. Optional parameters get their default spelled out (versionMinor),
// parameters are printed in Triton's order whatever the input order, and a Triton dump's
// defaults that equal the default CTA layout are dropped.
#mine = #tl.nvidia_mma<{versionMajor = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#unused = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#a = #tl.dot_op<{kWidth = 4, parent = #mine, opIdx = 0}>
#row = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>
#s = #tl.slice<{dim = 0, parent = #row}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @f(%arg0: tensor<64x32xf16, #a>, %arg1: tensor<32xf32, #s>) -> tensor<64x64xf32, #mine> {
    %0 = "test.op"(%arg0, %arg1) : (tensor<64x32xf16, #a>, tensor<32xf32, #s>) -> tensor<64x64xf32, #mine>
    func.return %0 : tensor<64x64xf32, #mine>
  }
}

// CHECK:      #mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// CHECK-NEXT: #dot_op = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
// CHECK-NEXT: #blocked = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-NEXT: #slice = #tl.slice<{dim = 0, parent = #blocked}>
// CHECK-NEXT: builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:80"} {
// CHECK-NEXT:   func.func @f(%arg0: tensor<64x32xf16, #dot_op>, %arg1: tensor<32xf32, #slice>) -> tensor<64x64xf32, #mma> {
// CHECK-NEXT:     %0 = "test.op"(%arg0, %arg1) : (tensor<64x32xf16, #dot_op>, tensor<32xf32, #slice>) -> tensor<64x64xf32, #mma>
// CHECK-NEXT:     func.return %0 : tensor<64x64xf32, #mma>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      #slice = #tl.slice<{dim = 0, parent = #blocked}>
// CHECK-GENERIC-NEXT: "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "func.func"() <{sym_name = "f", function_type = (tensor<64x32xf16, #dot_op>, tensor<32xf32, #slice>) -> tensor<64x64xf32, #mma>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%arg0: tensor<64x32xf16, #dot_op>, %arg1: tensor<32xf32, #slice>):

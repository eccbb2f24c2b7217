// Attribute-level diagnostics of the #tl layout attributes: one chunk per message. Family
// errors (LayoutError) are parse errors located on the entry they name, or on the whole
// body when the culprit is absent (missing parameter); syntax errors name the parameter.
//
// RUN: LLC_DIAGNOSTICS

%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 1]}>>
// CHECK: invalid.mlir:[[# @LINE - 1]]:128
// CHECK: blocked: order [1, 1] is not a permutation of [0, 1]

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4], order = [1, 0]}>>
// CHECK: invalid.mlir:[[# @LINE - 1]]:106
// CHECK: blocked: warpsPerCTA [4] has rank 1, but sizePerThread [1, 4] has rank 2

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 3], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: blocked: sizePerThread [1, 3] must contain only powers of two (got 3)

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], swizzle = 2}>>
// CHECK: invalid.mlir:[[# @LINE - 1]]:144
// CHECK: blocked: unknown parameter swizzle

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], order = [1, 0]}>>
// CHECK: invalid.mlir:[[# @LINE - 1]]:55
// CHECK: blocked: missing parameter warpsPerCTA

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = true}>>
// CHECK: blocked: order must be a list of integers, got True

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [1, 1]}>>
// CHECK: blocked: CTAsPerCGA, CTASplitNum and CTAOrder must all be present or all be absent (missing CTASplitNum, CTAOrder)

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [4, 1], CTAOrder = [1, 0]}>>
// CHECK: CTALayout: CTASplitNum [4, 1] does not divide CTAsPerCGA [2, 1] in dim 0

// -----
%0 = "test.op"() : () -> tensor<32xf32, #tl.slice<{dim = 2, parent = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: slice: dim 2 is out of range for the parent's rank 2

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.nvidia_mma<{versionMajor = 4, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK: nvidia_mma: versionMajor 4 is unsupported (2 = Ampere/Turing, 3 = Hopper; Volta's version 1 has no linear layout)

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 32]}>>
// CHECK: nvidia_mma: instrShape [16, 32] is unsupported for versionMajor 2 with warpsPerCTA of rank 2; expected [16, 8] (or [16, 16])

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.dot_op<{opIdx = 2, parent = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>
// CHECK: dot_op: opIdx 2 must be 0 or 1

// -----
#s = #tl.slice<{dim = 0, parent = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>
%0 = "test.op"() : () -> tensor<32xf32, #tl.dot_op<{opIdx = 0, parent = #s, kWidth = 2}>>
// CHECK: dot_op: parent must be nvidia_mma, blocked, amd_mfma or amd_wmma, got slice

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.dot_op<{opIdx = 0, parent = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>}>>
// CHECK: dot_op: kWidth is mandatory (non-zero) for an nvidia_mma parent

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 16, 8], isTransposed = true}>>
// CHECK: amd_mfma: instrShape [32, 16, 8] is unsupported; (M, N) must be one of (32, 32), (16, 16), (64, 4), (4, 64)

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>>
// CHECK: amd_mfma: missing parameter isTransposed

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.amd_wmma<{version = 7, isTranspose = false, warpsPerCTA = [2, 2]}>>
// CHECK: amd_wmma: version 7 must be in the [1, 3] range

// -----
%0 = "test.op"() : () -> tensor<4x32xf32, #tl.linear<{register = [[0, 1, 0], [0, 2]], lane = [[1, 0], [2, 0], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>>
// CHECK: linear: register basis 1 [0, 2] has 2 entries, but the register bases have 3 (one per tensor dim)

// -----
%0 = "test.op"() : () -> tensor<4x32xf32, #tl.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [0, 4], [0, 8], [0, 16]], warp = []}>>
// CHECK: linear: missing parameter block

// -----
"test.op"() {s = #tl.swizzled_shared<{vec = 3, perPhase = 1, maxPhase = 8, order = [1, 0]}>} : () -> ()
// CHECK: swizzled_shared: vec 3 must be a power of two

// -----
"test.op"() {s = #tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 0]}>} : () -> ()
// CHECK: swizzled_shared: order [0, 0] is not a permutation of [0, 1]

// -----
"test.op"() {s = #tl.nvmma_shared<{swizzlingByteWidth = 48, transposed = false, elementBitWidth = 16}>} : () -> ()
// CHECK: nvmma_shared: swizzlingByteWidth 48 must be 0, 32, 64 or 128

// -----
"test.op"() {s = #tl.nvmma_shared<{swizzlingByteWidth = 128, transposed = 1, elementBitWidth = 16}>} : () -> ()
// CHECK: nvmma_shared: transposed must be a bool, got 1

// -----
"test.op"() {s = #tl.shared_linear<{offset = [[0, 1], [0, 1]]}>} : () -> ()
// CHECK: shared_linear: after removing its zero bases the layout must be bijective (offsets must not alias)

// -----
"test.op"() {s = #tl.shared_linear<{offset = [[0, 1], [1, 0]], alignment = 3}>} : () -> ()
// CHECK: shared_linear: alignment 3 must be a positive power of two

// -----
// Wrong rank: checked when the tensor type is parsed (Triton's verifyEncoding), located on it.
%0 = "test.op"() : () -> tensor<32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: invalid.mlir:[[# @LINE - 1]]:26
// CHECK: blocked: tensor<32xf32> has rank 1, but the layout has rank 2

// -----
#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
%0 = "test.op"() : () -> tensor<32xf32, #tl.slice<{dim = 0, parent = #b}>>
%1 = "test.op"() : () -> tensor<32x32xf32, #tl.slice<{dim = 0, parent = #b}>>
// CHECK: invalid.mlir:[[# @LINE - 1]]:26
// CHECK: slice: tensor<32x32xf32> has rank 2, but the layout has rank 1

// -----
// Syntax of the body.
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], sizePerThread = [1, 4]}>>
// CHECK: invalid.mlir:[[# @LINE - 1]]:81
// CHECK: blocked: duplicate parameter 'sizePerThread'

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<sizePerThread = [1, 4]>>
// CHECK: Expected '{' to open the blocked parameters (Triton: <{key = value, ...}>)

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread [1, 4]}>>
// CHECK: Expected '=' after blocked parameter 'sizePerThread'

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4],}>>
// CHECK: blocked: expected a parameter name

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4]>>
// CHECK: Expected '}' or ',' after blocked parameter 'sizePerThread'

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = 1.5}>>
// CHECK: blocked: expected a value for 'sizePerThread': an integer, true/false, a [list] or a layout attribute

// -----
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.dot_op<{opIdx = 0, parent = #nope, kWidth = 2}>>
// CHECK: invalid.mlir:[[# @LINE - 1]]:76
// CHECK: dot_op: undefined alias '#nope' for 'parent' (define it before its first use: #nope = #tl.<kind><{...}>)

// -----
#i = 3 : i32
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.dot_op<{opIdx = 0, parent = #i, kWidth = 2}>>
// CHECK: dot_op: 'parent' must be a layout attribute (#tl.<kind><{...}> or an alias of one), got 3 : i32

// -----
// A valid chunk after all the invalid ones still prints (diagnostics do not stop the run).
%0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:      #blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   %0 = "test.op"() : () -> tensor<32x32xf32, #blocked>
// CHECK-NEXT: }

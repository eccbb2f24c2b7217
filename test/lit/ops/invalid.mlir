// One verifier message per chunk: the tl op verifiers and the module hardware check.
// RUN: llc-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice0 = #tl.slice<{dim = 0, parent = #blocked}>
func.func @reduce_wrong_slice_dim(%x: tensor<32x32xf32, #blocked>) {
  %r = tl.reduce %x {axis = 1 : i32} : tensor<32x32xf32, #blocked> -> tensor<32xf32, #slice0> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tl.reduce.return %m : f32
  }
  func.return
}
// CHECK: tl.reduce: result #0 encoding must be #tl.slice<{dim = 1, parent = <operand encoding>}>, got a slice with dim = 0

// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#other = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tl.slice<{dim = 1, parent = #other}>
func.func @reduce_wrong_slice_parent(%x: tensor<32x32xf32, #blocked>) {
  %r = tl.reduce %x {axis = 1 : i32} : tensor<32x32xf32, #blocked> -> tensor<32xf32, #slice> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tl.reduce.return %m : f32
  }
  func.return
}
// CHECK: tl.reduce: result #0 encoding must be #tl.slice<{dim = 1, parent = <operand encoding>}>, got a slice whose parent #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}> differs from the operand encoding

// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1d = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reduce_not_a_slice(%x: tensor<32x32xf32, #blocked>) {
  %r = tl.reduce %x {axis = 1 : i32} : tensor<32x32xf32, #blocked> -> tensor<32xf32, #blocked1d> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tl.reduce.return %m : f32
  }
  func.return
}
// CHECK: tl.reduce: result #0 encoding must be #tl.slice<{dim = 1, parent = <operand encoding>}>, got #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// -----

func.func @reduce_wrong_shape(%x: tensor<32x16xf32>) {
  %r = tl.reduce %x {axis = 1 : i32} : tensor<32x16xf32> -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tl.reduce.return %m : f32
  }
  func.return
}
// CHECK: tl.reduce: result #0 must be a tensor of shape [32] (axis 1 dropped), got tensor<16xf32>

// -----

func.func @reduce_axis_out_of_range(%x: tensor<32x16xf32>) {
  %r = tl.reduce %x {axis = 2 : i32} : tensor<32x16xf32> -> tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tl.reduce.return %m : f32
  }
  func.return
}
// CHECK: tl.reduce: axis 2 is out of range for operands of rank 2

// -----

func.func @reduce_region_args(%x: tensor<32x16xf32>) {
  %r = tl.reduce %x {axis = 1 : i32} : tensor<32x16xf32> -> tensor<32xf32> {
  ^bb0(%a: f32, %b: f16):
    tl.reduce.return %a : f32
  }
  func.return
}
// CHECK: tl.reduce: combining region must take (f32, f32), got (f32, f16)

// -----

func.func @reduce_region_result(%x: tensor<32x16xf32>) {
  %r = tl.reduce %x {axis = 1 : i32} : tensor<32x16xf32> -> tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    %h = arith.truncf %a : f32 to f16
    tl.reduce.return %h : f16
  }
  func.return
}
// CHECK: tl.reduce: combining region must return (f32), got (f16)

// -----

func.func @reduce_1d_gives_scalar(%x: tensor<16xf32>) {
  %r = tl.reduce %x {axis = 0 : i32} : tensor<16xf32> -> tensor<1xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tl.reduce.return %s : f32
  }
  func.return
}
// CHECK: tl.reduce: reducing a 1-D tensor gives a scalar: result #0 must be f32, got tensor<1xf32>

// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice0 = #tl.slice<{dim = 0, parent = #blocked}>
func.func @expand_dims_wrong_axis(%x: tensor<32xf32, #slice0>) {
  %e = tl.expand_dims %x {axis = 1 : i32} : tensor<32xf32, #slice0> -> tensor<32x1xf32, #blocked>
  func.return
}
// CHECK: tl.expand_dims: operand slice dim 0 must equal axis 1

// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#other = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tl.slice<{dim = 1, parent = #blocked}>
func.func @expand_dims_wrong_parent(%x: tensor<32xf32, #slice>) {
  %e = tl.expand_dims %x {axis = 1 : i32} : tensor<32xf32, #slice> -> tensor<32x1xf32, #other>
  func.return
}
// CHECK: tl.expand_dims: result encoding #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}> must be the parent of the operand's slice encoding

// -----

#blocked1d = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @expand_dims_not_slice(%x: tensor<32xf32, #blocked1d>) {
  %e = tl.expand_dims %x {axis = 1 : i32} : tensor<32xf32, #blocked1d> -> tensor<32x1xf32, #blocked>
  func.return
}
// CHECK: tl.expand_dims: operand encoding must be #tl.slice<{dim = 1, ...}>, got #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// -----

func.func @expand_dims_shape(%x: tensor<32xf32>) {
  %e = tl.expand_dims %x {axis = 0 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  func.return
}
// CHECK: tl.expand_dims: result shape [32, 1] must be [1, 32]

// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @convert_layout_shape(%x: tensor<32x32xf32, #blocked>) {
  %c = tl.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x16xf32, #blocked>
  func.return
}
// CHECK: tl.convert_layout: shape must not change: [32, 32] vs [32, 16]

// -----

func.func @convert_layout_element_type(%x: tensor<32x32xf32>) {
  %c = tl.convert_layout %x : tensor<32x32xf32> -> tensor<32x32xf16>
  func.return
}
// CHECK: tl.convert_layout: element type must not change: f32 vs f16

// -----

#blocked = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot_b = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @dot_a_not_dot_op(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>) {
  %d = tl.dot %a, %b, %c : tensor<64x32xf16, #blocked> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
  func.return
}
// CHECK: tl.dot: operand a encoding must be #tl.dot_op<{opIdx = 0, parent = <result encoding>, ...}>, got #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// -----

#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot_b = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @dot_wrong_op_idx(%a: tensor<64x32xf16, #dot_b>, %b: tensor<32x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>) {
  %d = tl.dot %a, %b, %c : tensor<64x32xf16, #dot_b> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
  func.return
}
// CHECK: tl.dot: operand a encoding must be #tl.dot_op<{opIdx = 0, parent = <result encoding>, ...}>, got opIdx = 1

// -----

#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#mma41 = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot_a = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #tl.dot_op<{opIdx = 1, parent = #mma41, kWidth = 2}>
func.func @dot_wrong_parent(%a: tensor<64x32xf16, #dot_a>, %b: tensor<32x64xf16, #dot_b>, %c: tensor<64x64xf32, #mma>) {
  %d = tl.dot %a, %b, %c : tensor<64x32xf16, #dot_a> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
  func.return
}
// CHECK: tl.dot: operand b encoding must be #tl.dot_op<{opIdx = 1, parent = <result encoding>, ...}>, got a dot_op whose parent #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}> differs from the result encoding

// -----

func.func @dot_k_mismatch(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  %d = tl.dot %a, %b, %c : tensor<64x32xf16> * tensor<16x64xf16> -> tensor<64x64xf32>
  func.return
}
// CHECK: tl.dot: K mismatch: a is 64x32 but b is 16x64

// -----

func.func @dot_result_shape(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %c: tensor<64x64xf32>) {
  %d = tl.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x64xf32>
  func.return
}
// CHECK: tl.dot: result must be 64x16 (a is 64x32, b is 32x16), got 64x64

// -----

#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
func.func @dot_mixed_encodings(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32, #mma>) {
  %d = tl.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32, #mma>
  func.return
}
// CHECK: tl.dot: operands and result must all have encodings or none

// -----

#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @select_shape(%c: tensor<64xi1, #blocked>, %a: tensor<128xf32, #blocked>) {
  %s = tl.select %c, %a, %a : tensor<64xi1, #blocked>, tensor<128xf32, #blocked>
  func.return
}
// CHECK: tl.select: result shape [128] differs from condition shape [64]

// -----

#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#other = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @cast_changes_encoding(%i: tensor<128xi32, #blocked>) {
  %f = tl.sitofp %i : tensor<128xi32, #blocked> to tensor<128xf32, #other>
  func.return
}
// CHECK: tl.sitofp: result encoding #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}> differs from operand encoding #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// -----

func.func @cast_wrong_kind(%i: tensor<128xf32>) {
  %f = tl.sitofp %i : tensor<128xf32> to tensor<128xf16>
  func.return
}
// CHECK: tl.sitofp: converts an integer to a float, got f32 to f16

// -----

func.func @extsi_not_wider(%i: tensor<128xi32>) {
  %w = tl.extsi %i : tensor<128xi32> to tensor<128xi16>
  func.return
}
// CHECK: tl.extsi: result type i16 must be wider than i32

// -----

func.func @cmpf_unknown_predicate(%a: tensor<4xf32>) {
  %m = "tl.cmpf"(%a, %a) <{predicate = "less"}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return
}
// CHECK: tl.cmpf: unknown predicate 'less' (expected one of false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true)

// -----

func.func @cmpi_on_floats(%a: tensor<4xf32>) {
  %m = tl.cmpi slt, %a, %a : tensor<4xf32>
  func.return
}
// CHECK: tl.cmpi: cannot compare values of element type f32

// -----

#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @num_warps_mismatch() {
    %r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    func.return
  }
}
// CHECK: tl.make_range: result #0: layout does not fit the module: blocked: warpsPerCTA [2] multiplies to 2 warps, but "tl.num-warps" is 4

// -----

#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 64 : i32, "tl.target" = "hip:gfx942"} {
  func.func @threads_per_warp_mismatch() {
    %r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    func.return
  }
}
// CHECK: tl.make_range: result #0: layout does not fit the module: blocked: threadsPerWarp [32] multiplies to 32 threads, but "tl.threads-per-warp" is 64

// -----

#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"tl.num-warps" = 8 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @mma_num_warps(%x: tensor<64x64xf32, #mma>) {
    %c = tl.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
    func.return
  }
}
// CHECK: tl.convert_layout: operand #0: layout does not fit the module: nvidia_mma: warpsPerCTA [2, 2] multiplies to 4 warps, but "tl.num-warps" is 8

// -----

// No "tl.threads-per-warp": the message names the default, not a flag llc-opt lacks.
#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32} {
  func.func @default_threads_per_warp() {
    %r = tl.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    func.return
  }
}
// CHECK: tl.make_range: result #0: layout does not fit the module: blocked: threadsPerWarp [64] multiplies to 64 threads, but the default "tl.threads-per-warp" (not set by the module) is 32

// -----

module attributes {"tl.num-warps" = "four"} {
  func.func @bad_num_warps_attr() {
    %r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    func.return
  }
}
// CHECK: module attribute "tl.num-warps" must be a positive integer (e.g. 4 : i32), got "four"

// -----

func.func @make_range_shape() {
  %r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<64xi32>
  func.return
}
// CHECK: tl.make_range: result shape [64] must be [128] (end - start)

// -----

func.func @make_range_empty() {
  %r = tl.make_range {end = 0 : i32, start = 0 : i32} : tensor<1xi32>
  func.return
}
// CHECK: tl.make_range: end (0) must be greater than start (0)

// -----

func.func @splat_element_type(%x: f16) {
  %s = tl.splat %x : f16 -> tensor<8xf32>
  func.return
}
// CHECK: tl.splat: result element type f32 differs from the operand type f16

// -----

func.func @broadcast_non_unit(%x: tensor<2x8xf32>) {
  %b = tl.broadcast %x : tensor<2x8xf32> -> tensor<4x8xf32>
  func.return
}
// CHECK: tl.broadcast: dimension 0 of size 2 cannot be broadcast to 4 (only size-1 dimensions broadcast)

// -----

#a = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @broadcast_encoding(%x: tensor<1x8xf32, #a>) {
  %b = tl.broadcast %x : tensor<1x8xf32, #a> -> tensor<4x8xf32, #b>
  func.return
}
// CHECK: tl.broadcast: result encoding #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}> differs from the operand encoding

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  %r = tl.reshape %x : tensor<4x8xf32> -> tensor<16xf32>
  func.return
}
// CHECK: tl.reshape: operand has 32 elements but the result has 16

// -----

func.func @trans_not_permutation(%x: tensor<4x8xf32>) {
  %t = tl.trans %x {order = array<i32: 0, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}
// CHECK: tl.trans: order [0, 0] is not a permutation of 0..1

// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @trans_encoding(%x: tensor<32x32xf32, #blocked>) {
  %t = tl.trans %x {order = array<i32: 1, 0>} : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked>
  func.return
}
// CHECK: tl.trans: result encoding #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}> is not the operand encoding with its dimensions permuted by order [1, 0] (as linear layouts they differ)

// -----

func.func @load_mask_shape(%p: tensor<128x!tl.ptr<f32>>, %m: tensor<64xi1>) {
  %x = "tl.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tl.ptr<f32>>, tensor<64xi1>) -> tensor<128xf32>
  func.return
}
// CHECK: tl.load: mask shape [64] differs from pointer shape [128]

// -----

func.func @load_other_without_mask(%p: tensor<128x!tl.ptr<f32>>, %o: tensor<128xf32>) {
  %x = "tl.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<128x!tl.ptr<f32>>, tensor<128xf32>) -> tensor<128xf32>
  func.return
}
// CHECK: tl.load: 'other' requires a mask

// -----

func.func @load_result_type(%p: tensor<128x!tl.ptr<f32>>) {
  %x = "tl.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<128x!tl.ptr<f32>>) -> tensor<128xf16>
  func.return
}
// CHECK: tl.load: result type must be tensor<128xf32>, got tensor<128xf16>

// -----

func.func @store_value_type(%p: tensor<128x!tl.ptr<f32>>, %v: tensor<128xf16>) {
  "tl.store"(%p, %v) : (tensor<128x!tl.ptr<f32>>, tensor<128xf16>) -> ()
  func.return
}
// CHECK: tl.store: value must have type tensor<128xf32>, got tensor<128xf16>

// -----

func.func @addptr_shape(%p: tensor<128x!tl.ptr<f32>>, %o: tensor<64xi32>) {
  %q = tl.addptr %p, %o : tensor<128x!tl.ptr<f32>>, tensor<64xi32>
  func.return
}
// CHECK: tl.addptr: offset shape [64] differs from pointer shape [128]

// -----

func.func @addptr_float_offset(%p: !tl.ptr<f32>, %o: f32) {
  %q = tl.addptr %p, %o : !tl.ptr<f32>, f32
  func.return
}
// CHECK: tl.addptr: offset must be an integer or tensor of integers, got f32

// -----

func.func @local_alloc_shape(%x: tensor<64x32xf16>) {
  %m = tl.local_alloc %x : (tensor<64x32xf16>) -> !tl.memdesc<32x64xf16>
  func.return
}
// CHECK: tl.local_alloc: tensor tensor<64x32xf16> and memory !tl.memdesc<32x64xf16> differ in shape or element type

// -----

func.func @local_load_type(%m: !tl.memdesc<64x32xf16>) {
  %x = tl.local_load %m : !tl.memdesc<64x32xf16> -> tensor<64x32xf32>
  func.return
}
// CHECK: tl.local_load: tensor tensor<64x32xf32> and memory !tl.memdesc<64x32xf16> differ in shape or element type

// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @memdesc_distributed(%m: !tl.memdesc<64x32xf16, #blocked>) {
  func.return
}
// CHECK: !tl.memdesc: the encoding must be a shared layout, got the distributed layout #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// -----

func.func @constant_dense_shape() {
  %c = "tl.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<4xi32>
  func.return
}
// CHECK: tl.constant: dense value of type tensor<2xi32> does not match the result type tensor<4xi32>

// -----

func.func @constant_value_type() {
  %c = "tl.constant"() <{value = 1.0 : f16}> : () -> tensor<4xf32>
  func.return
}
// CHECK: tl.constant: value type f16 differs from the result element type f32

// -----

func.func @program_id_axis() {
  %p = "tl.get_program_id"() <{axis = 3 : i32}> : () -> i32
  func.return
}
// CHECK: tl.get_program_id: axis must be 0, 1 or 2 (x, y, z), got 3

// tl.gather: round trip, tensor-level semantics (out[i, j] = src[i, idx[i, j]] along axis 1),
// an out-of-range index, and the verifier's errors.
// RUN: llc-opt %S/Inputs/gather.mlir | filecheck %s --check-prefix=RT
// RT: %{{.*}} = tl.gather %{{.*}}[%{{.*}}] {axis = 1 : i32} : (tensor<2x4xf32, #{{.*}}>, tensor<2x3xi32, #{{.*}}>) -> tensor<2x3xf32, #{{.*}}>
// RUN: llc-run %S/Inputs/gather.mlir --args '[[10,11,12,13],[20,21,22,23]]' '[[3,0,0],[1,2,3]]' | filecheck %s --check-prefix=VAL
// VAL: @gather_rows result #0 : tensor<2x3xf32> =
// VAL-NEXT: {{\[\[}}13. 10. 10.]
// VAL-NEXT: [21. 22. 23.]]
// RUN: not llc-run %S/Inputs/gather.mlir --args '[[10,11,12,13],[20,21,22,23]]' '[[4,0,0],[1,2,3]]' 2>&1 | filecheck %s --check-prefix=OOB
// OOB: gather.mlir:3:3: error: tl.gather: index 4 at [0, 0] is out of range [0, 4)
// RUN: llc-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @bad_axis(%s: tensor<2x4xf32, #b>, %i: tensor<2x3xi32, #b>) {
  %g = tl.gather %s[%i] {axis = 2 : i32} : (tensor<2x4xf32, #b>, tensor<2x3xi32, #b>) -> tensor<2x3xf32, #b>
  func.return
}
// CHECK: tl.gather: axis 2 and ranks of src [2, 4] / indices [2, 3]

// -----

#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @off_axis(%s: tensor<2x4xf32, #b>, %i: tensor<4x3xi32, #b>) {
  %g = tl.gather %s[%i] {axis = 1 : i32} : (tensor<2x4xf32, #b>, tensor<4x3xi32, #b>) -> tensor<4x3xf32, #b>
  func.return
}
// CHECK: tl.gather: src [2, 4] and indices [4, 3] differ off the axis

// -----

#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @float_index(%s: tensor<2x4xf32, #b>, %i: tensor<2x3xf32, #b>) {
  %g = tl.gather %s[%i] {axis = 1 : i32} : (tensor<2x4xf32, #b>, tensor<2x3xf32, #b>) -> tensor<2x3xf32, #b>
  func.return
}
// CHECK: tl.gather: indices must be integers

// -----

#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @elem(%s: tensor<2x4xf32, #b>, %i: tensor<2x3xi32, #b>) {
  %g = tl.gather %s[%i] {axis = 1 : i32} : (tensor<2x4xf32, #b>, tensor<2x3xi32, #b>) -> tensor<2x3xf16, #b>
  func.return
}
// CHECK: tl.gather: result element type differs from src

// -----

#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @enc(%s: tensor<2x4xf32, #b>, %i: tensor<2x3xi32, #b>) {
  %g = tl.gather %s[%i] {axis = 1 : i32} : (tensor<2x4xf32, #b>, tensor<2x3xi32, #b>) -> tensor<2x3xf32, #c>
  func.return
}
// CHECK: tl.gather: result encoding must be the indices' encoding

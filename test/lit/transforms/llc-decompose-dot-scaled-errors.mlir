// llc-decompose-dot-scaled needs layout-free IR (llc-compile runs it before layout assignment).
// RUN: not llc-opt %s -p llc-decompose-dot-scaled 2>&1 | filecheck %s

#b = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @laid_out(%a: tensor<16x32xf16, #b>, %as: tensor<16x1xi8, #b>, %b: tensor<32x16xf16, #b>, %bs: tensor<16x1xi8, #b>, %acc: tensor<16x16xf32, #b>) -> tensor<16x16xf32, #b> {
  %d = tl.dot_scaled %a, %as, %b, %bs, %acc {lhs = "fp16", rhs = "fp16"} : (tensor<16x32xf16, #b>, tensor<16x1xi8, #b>, tensor<32x16xf16, #b>, tensor<16x1xi8, #b>, tensor<16x16xf32, #b>) -> tensor<16x16xf32, #b>
  func.return %d : tensor<16x16xf32, #b>
}
// CHECK: llc-decompose-dot-scaled-errors.mlir:[[# @LINE - 3]]:3: error: 'tl.dot_scaled' op llc-decompose-dot-scaled runs before layout assignment

// A conversion llc-lower-conversions cannot lower is an error at the op (file:line:col), exit 1.
// RUN: not llc-opt %s -p llc-lower-conversions 2>&1 | filecheck %s

#a = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>
module attributes {"tl.num-warps" = 4 : i32} {
  func.func @k(%x: tensor<64x64xf32, #a>) {
    %y = tl.convert_layout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
    func.return
  }
}
// CHECK: llc-lower-conversions-errors.mlir:8:5: error: 'tl.convert_layout' op cannot lower this conversion: the source layout spans 2 CTAs; the lowering handles one CTA
// CHECK-NOT: Traceback

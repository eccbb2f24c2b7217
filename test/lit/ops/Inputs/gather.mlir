#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @gather_rows(%src: tensor<2x4xf32, #b>, %idx: tensor<2x3xi32, #b>) -> tensor<2x3xf32, #b> {
  %g = tl.gather %src[%idx] {axis = 1 : i32} : (tensor<2x4xf32, #b>, tensor<2x3xi32, #b>) -> tensor<2x3xf32, #b>
  func.return %g : tensor<2x3xf32, #b>
}

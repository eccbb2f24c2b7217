#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
builtin.module {
  func.func @f(%a: tensor<512xf32, #blocked>, %b: tensor<256xf32, #blocked>) -> tensor<512xf32, #blocked> {
    %c = "arith.addf"(%a, %b) : (tensor<512xf32, #blocked>, tensor<256xf32, #blocked>) -> tensor<512xf32, #blocked>
    func.return %c : tensor<512xf32, #blocked>
  }
}

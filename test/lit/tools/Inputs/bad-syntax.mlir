func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.addf %a %a : tensor<4xf32>
  func.return %c : tensor<4xf32>
}

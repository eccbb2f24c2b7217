#p = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>
#u = #tl.linear<{register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = [[0, 32], [8, 0]], block = []}>
func.func @unpack(%x: tensor<16x32xi8, #p>) -> tensor<16x64xf32, #u> {
  %y = tl.fp4_to_fp %x {axis = 1 : i32} : (tensor<16x32xi8, #p>) -> tensor<16x64xf32, #u>
  func.return %y : tensor<16x64xf32, #u>
}
func.func @small(%x: tensor<1x2xi8>) -> tensor<1x4xf32> {
  %y = tl.fp4_to_fp %x {axis = 1 : i32} : (tensor<1x2xi8>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}
func.func @scaled(%a: tensor<1x16xi8>, %as: tensor<1x1xi8>, %b: tensor<16x1xi8>, %bs: tensor<1x1xi8>, %c: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %d = tl.dot_scaled %a, %as, %b, %bs, %c {lhs = "e2m1", rhs = "e2m1"} : (tensor<1x16xi8>, tensor<1x1xi8>, tensor<16x1xi8>, tensor<1x1xi8>, tensor<1x1xf32>) -> tensor<1x1xf32>
  func.return %d : tensor<1x1xf32>
}
func.func @mixed(%a: tensor<2x2xi8>, %b: tensor<2x2xf8E4M3FN>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %d = tl.dot %a, %b, %c : tensor<2x2xi8> * tensor<2x2xf8E4M3FN> -> tensor<2x2xf32>
  func.return %d : tensor<2x2xf32>
}

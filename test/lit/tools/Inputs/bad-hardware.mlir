#b = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @f(%x: tensor<64x64xf16, #b>) -> tensor<64x64xf16, #b> {
    %y = arith.addf %x, %x : tensor<64x64xf16, #b>
    func.return %y : tensor<64x64xf16, #b>
  }
}

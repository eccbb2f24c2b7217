module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @k() -> tensor<32xi32> {
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    func.return %r : tensor<32xi32>
  }
}

builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  %0 = "test.op"() : () -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4],
                                                          warpsPerCTA = [4, 1], order = [1, 1]}>>
}

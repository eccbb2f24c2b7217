#blocked = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @k(%t: tensor<32xi32, #blocked>, %p: !tl.ptr<i32>) {
    %b = tl.splat %p : !tl.ptr<i32> -> tensor<32x!tl.ptr<i32>, #blocked>
    %a = tl.addptr %b, %t : tensor<32x!tl.ptr<i32>, #blocked>, tensor<32xi32, #blocked>
    tl.store %a, %t : tensor<32x!tl.ptr<i32>, #blocked>
    func.return
  }
}

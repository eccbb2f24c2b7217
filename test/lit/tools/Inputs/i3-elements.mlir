module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @k(%p: !tl.ptr<i3>) {
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %b = tl.splat %p : !tl.ptr<i3> -> tensor<32x!tl.ptr<i3>>
    %a = tl.addptr %b, %r : tensor<32x!tl.ptr<i3>>, tensor<32xi32>
    %x = tl.load %a : tensor<32x!tl.ptr<i3>>
    tl.store %a, %x : tensor<32x!tl.ptr<i3>>
    func.return
  }
}

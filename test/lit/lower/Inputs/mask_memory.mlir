module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @k(%p: !tl.ptr<i1>, %q: !tl.ptr<i1>) {
    %r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %c = tl.constant 3 : tensor<128xi32>
    %m = arith.remsi %r, %c : tensor<128xi32>
    %z = tl.constant 0 : tensor<128xi32>
    %b = tl.cmpi eq, %m, %z : tensor<128xi32>
    %base = tl.splat %p : !tl.ptr<i1> -> tensor<128x!tl.ptr<i1>>
    %ptrs = tl.addptr %base, %r : tensor<128x!tl.ptr<i1>>, tensor<128xi32>
    tl.store %ptrs, %b : tensor<128x!tl.ptr<i1>>
    %qb = tl.splat %q : !tl.ptr<i1> -> tensor<128x!tl.ptr<i1>>
    %qp = tl.addptr %qb, %r : tensor<128x!tl.ptr<i1>>, tensor<128xi32>
    %l = tl.load %ptrs : tensor<128x!tl.ptr<i1>>
    tl.store %qp, %l : tensor<128x!tl.ptr<i1>>
    func.return
  }
}

#a = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @masks(%out: !tl.ptr<i32>, %gout: !tl.ptr<i32>) {
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #a}>>
    %c = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #a}>>
    %r2 = tl.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #a}>> -> tensor<32x1xi32, #a>
    %c2 = tl.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #a}>> -> tensor<1x32xi32, #a>
    %rb = tl.broadcast %r2 : tensor<32x1xi32, #a> -> tensor<32x32xi32, #a>
    %cb = tl.broadcast %c2 : tensor<1x32xi32, #a> -> tensor<32x32xi32, #a>
    %k32 = tl.constant 32 : tensor<32x32xi32, #a>
    %rk = arith.muli %rb, %k32 : tensor<32x32xi32, #a>
    %lin = arith.addi %rk, %cb : tensor<32x32xi32, #a>
    %three = tl.constant 3 : tensor<32x32xi32, #a>
    %m3 = arith.remsi %lin, %three : tensor<32x32xi32, #a>
    %zero = tl.constant 0 : tensor<32x32xi32, #a>
    %mask = tl.cmpi eq, %m3, %zero : tensor<32x32xi32, #a>
    %maskb = tl.convert_layout %mask : tensor<32x32xi1, #a> -> tensor<32x32xi1, #b>
    %linb = tl.convert_layout %lin : tensor<32x32xi32, #a> -> tensor<32x32xi32, #b>
    %zb = tl.constant 0 : tensor<32x32xi32, #b>
    %v = tl.select %maskb, %linb, %zb : tensor<32x32xi1, #b>, tensor<32x32xi32, #b>
    %base = tl.splat %out : !tl.ptr<i32> -> tensor<32x32x!tl.ptr<i32>, #b>
    %ptrs = tl.addptr %base, %linb : tensor<32x32x!tl.ptr<i32>, #b>, tensor<32x32xi32, #b>
    tl.store %ptrs, %v : tensor<32x32x!tl.ptr<i32>, #b>
    %k31 = tl.constant 31 : tensor<32x32xi32, #a>
    %rev = arith.subi %k31, %cb : tensor<32x32xi32, #a>
    %g = tl.gather %mask[%rev] {axis = 1 : i32} : (tensor<32x32xi1, #a>, tensor<32x32xi32, #a>) -> tensor<32x32xi1, #a>
    %gi = tl.extui %g : tensor<32x32xi1, #a> to tensor<32x32xi32, #a>
    %gbase = tl.splat %gout : !tl.ptr<i32> -> tensor<32x32x!tl.ptr<i32>, #a>
    %gptrs = tl.addptr %gbase, %lin : tensor<32x32x!tl.ptr<i32>, #a>, tensor<32x32xi32, #a>
    tl.store %gptrs, %gi : tensor<32x32x!tl.ptr<i32>, #a>
    func.return
  }
}

#b = #tl.blocked<{sizePerThread = [2, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2],
                  order = [1, 0]}>
#sr = #tl.slice<{dim = 1, parent = #b}>
#sc = #tl.slice<{dim = 0, parent = #b}>
module attributes {"tl.num-warps" = 2 : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"} {
  func.func @k(%x_ptr: !tl.ptr<f32>, %limit: f32) {
    %r = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #sr>
    %c = tl.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #sc>
    %re = tl.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #sr> -> tensor<16x1xi32, #b>
    %ce = tl.expand_dims %c {axis = 0 : i32} : tensor<8xi32, #sc> -> tensor<1x8xi32, #b>
    %eight = tl.constant 8 : tensor<16x1xi32, #b>
    %rs = arith.muli %re, %eight : tensor<16x1xi32, #b>
    %rb = tl.broadcast %rs : tensor<16x1xi32, #b> -> tensor<16x8xi32, #b>
    %cb = tl.broadcast %ce : tensor<1x8xi32, #b> -> tensor<16x8xi32, #b>
    %off = arith.addi %rb, %cb : tensor<16x8xi32, #b>
    %xb = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<16x8x!tl.ptr<f32>, #b>
    %xp = tl.addptr %xb, %off : tensor<16x8x!tl.ptr<f32>, #b>, tensor<16x8xi32, #b>
    %x = tl.load %xp : tensor<16x8x!tl.ptr<f32>, #b>
    tl.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : tensor<16x8xf32, #b>
    tl.print " limit: " {hex = false, isSigned = array<i32: 1>} : %limit : f32
    %lim = tl.splat %limit : f32 -> tensor<16x8xf32, #b>
    %ok = tl.cmpf olt, %x, %lim : tensor<16x8xf32, #b>
    tl.assert %ok, "x below the limit" : tensor<16x8xi1, #b> 
    func.return
  }
}

// Kernels that access memory out of bounds (used by oob.test).
#blocked = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  // Reads 128 elements starting at %start, without a mask.
  func.func @unmasked_load(%x_ptr: !tl.ptr<f32>, %start: i32) -> tensor<128xf32, #blocked> {
    %range = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %start_splat = tl.splat %start : i32 -> tensor<128xi32, #blocked>
    %offsets = arith.addi %start_splat, %range : tensor<128xi32, #blocked>
    %base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>, #blocked>
    %ptrs = tl.addptr %base, %offsets : tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %x = tl.load %ptrs : tensor<128x!tl.ptr<f32>, #blocked>
    func.return %x : tensor<128xf32, #blocked>
  }
  // Same, but lanes at or past %n are masked off and read as -1.
  func.func @masked_load(%x_ptr: !tl.ptr<f32>, %start: i32, %n: i32) -> tensor<128xf32, #blocked> {
    %range = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %start_splat = tl.splat %start : i32 -> tensor<128xi32, #blocked>
    %offsets = arith.addi %start_splat, %range : tensor<128xi32, #blocked>
    %n_splat = tl.splat %n : i32 -> tensor<128xi32, #blocked>
    %mask = tl.cmpi slt, %offsets, %n_splat : tensor<128xi32, #blocked>
    %base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>, #blocked>
    %ptrs = tl.addptr %base, %offsets : tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %other = tl.constant -1.000000e+00 : tensor<128xf32, #blocked>
    %x = tl.load %ptrs, %mask, %other : tensor<128x!tl.ptr<f32>, #blocked>
    func.return %x : tensor<128xf32, #blocked>
  }
  // Writes 128 ones starting at %start, without a mask.
  func.func @unmasked_store(%out_ptr: !tl.ptr<f32>, %start: i32) {
    %range = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %start_splat = tl.splat %start : i32 -> tensor<128xi32, #blocked>
    %offsets = arith.addi %start_splat, %range : tensor<128xi32, #blocked>
    %base = tl.splat %out_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>, #blocked>
    %ptrs = tl.addptr %base, %offsets : tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %ones = tl.constant 1.000000e+00 : tensor<128xf32, #blocked>
    tl.store %ptrs, %ones : tensor<128x!tl.ptr<f32>, #blocked>
    func.return
  }
  // A scalar load at %offset.
  func.func @scalar_load(%x_ptr: !tl.ptr<f32>, %offset: i32) -> f32 {
    %p = tl.addptr %x_ptr, %offset : !tl.ptr<f32>, i32
    %x = tl.load %p : !tl.ptr<f32>
    func.return %x : f32
  }
}

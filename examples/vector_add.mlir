// Vector addition: out[i] = x[i] + y[i] for i < n, 1024 elements per program.
//
// Run (4 programs cover 4000 elements):
//   llc-run examples/vector_add.mlir --entry add_kernel --grid 4 \
//       --args x.npy y.npy zeros:4000xf32 4000 --print-buffers
//
// Each thread owns 4 consecutive elements (128-bit accesses); 4 warps x 32 lanes x 4 elements
// cover 512 elements, so the 1024-element block wraps around twice.
#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @add_kernel(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %out_ptr: !tl.ptr<f32>, %n: i32 {tl.divisibility = 16 : i32}) {
    %c1024_i32 = arith.constant 1024 : i32
    %pid = tl.get_program_id x : i32
    %block_start = arith.muli %pid, %c1024_i32 : i32
    %range = tl.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %start = tl.splat %block_start : i32 -> tensor<1024xi32, #blocked>
    %offsets = arith.addi %start, %range : tensor<1024xi32, #blocked>
    %n_splat = tl.splat %n : i32 -> tensor<1024xi32, #blocked>
    %mask = tl.cmpi slt, %offsets, %n_splat : tensor<1024xi32, #blocked>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<1024x!tl.ptr<f32>, #blocked>
    %x_ptrs = tl.addptr %x_base, %offsets : tensor<1024x!tl.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %x = tl.load %x_ptrs, %mask : tensor<1024x!tl.ptr<f32>, #blocked>
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<1024x!tl.ptr<f32>, #blocked>
    %y_ptrs = tl.addptr %y_base, %offsets : tensor<1024x!tl.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %y = tl.load %y_ptrs, %mask : tensor<1024x!tl.ptr<f32>, #blocked>
    %sum = arith.addf %x, %y : tensor<1024xf32, #blocked>
    %out_base = tl.splat %out_ptr : !tl.ptr<f32> -> tensor<1024x!tl.ptr<f32>, #blocked>
    %out_ptrs = tl.addptr %out_base, %offsets : tensor<1024x!tl.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tl.store %out_ptrs, %sum, %mask : tensor<1024x!tl.ptr<f32>, #blocked>
    func.return
  }
}

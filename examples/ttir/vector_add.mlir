// Vector addition: out[i] = x[i] + y[i] for i < n, 1024 elements per program.
//
// Layout-free (the TTIR-like input of layout assignment): the same program as
// examples/vector_add.mlir with every layout and conversion removed (`llc-opt -p llc-strip-layouts
// examples/vector_add.mlir` prints the same IR).
//
//   llc-run examples/ttir/vector_add.mlir --entry add_kernel --grid 4 \
//       --args x.npy y.npy zeros:4000xf32 4000 --print-buffers
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @add_kernel(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %out_ptr: !tl.ptr<f32>, %n: i32 {tl.divisibility = 16 : i32}) {
    %c1024_i32 = arith.constant 1024 : i32
    %pid = tl.get_program_id x : i32
    %block_start = arith.muli %pid, %c1024_i32 : i32
    %range = tl.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %start = tl.splat %block_start : i32 -> tensor<1024xi32>
    %offsets = arith.addi %start, %range : tensor<1024xi32>
    %n_splat = tl.splat %n : i32 -> tensor<1024xi32>
    %mask = tl.cmpi slt, %offsets, %n_splat : tensor<1024xi32>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<1024x!tl.ptr<f32>>
    %x_ptrs = tl.addptr %x_base, %offsets : tensor<1024x!tl.ptr<f32>>, tensor<1024xi32>
    %x = tl.load %x_ptrs, %mask : tensor<1024x!tl.ptr<f32>>
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<1024x!tl.ptr<f32>>
    %y_ptrs = tl.addptr %y_base, %offsets : tensor<1024x!tl.ptr<f32>>, tensor<1024xi32>
    %y = tl.load %y_ptrs, %mask : tensor<1024x!tl.ptr<f32>>
    %sum = arith.addf %x, %y : tensor<1024xf32>
    %out_base = tl.splat %out_ptr : !tl.ptr<f32> -> tensor<1024x!tl.ptr<f32>>
    %out_ptrs = tl.addptr %out_base, %offsets : tensor<1024x!tl.ptr<f32>>, tensor<1024xi32>
    tl.store %out_ptrs, %sum, %mask : tensor<1024x!tl.ptr<f32>>
    func.return
  }
}

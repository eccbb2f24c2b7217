// Fused row-wise softmax: out[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(...)).
//
// Layout-free (the TTIR-like input of layout assignment): the same program as
// examples/softmax.mlir with every layout and conversion removed (`llc-opt -p llc-strip-layouts
// examples/softmax.mlir` prints the same IR).
//
//   llc-run examples/ttir/softmax.mlir --entry softmax_kernel --grid 25 \
//       --args zeros:100x200xf32 x.npy 200 200 100 200 --print-buffers
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @softmax_kernel(%out_ptr: !tl.ptr<f32>, %in_ptr: !tl.ptr<f32>, %in_row_stride: i32 {tl.divisibility = 8 : i32},
                            %out_row_stride: i32 {tl.divisibility = 8 : i32}, %n_rows: i32, %n_cols: i32 {tl.divisibility = 8 : i32}) {
    %c4_i32 = arith.constant 4 : i32
    %pid = tl.get_program_id x : i32
    %first_row = arith.muli %pid, %c4_i32 : i32
    // Row and column indices of the 4x256 tile.
    %row_range = tl.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %first_row_splat = tl.splat %first_row : i32 -> tensor<4xi32>
    %row_ids = arith.addi %first_row_splat, %row_range : tensor<4xi32>
    %col_ids = tl.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %row_2d = tl.expand_dims %row_ids {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %col_2d = tl.expand_dims %col_ids {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
    %rows = tl.broadcast %row_2d : tensor<4x1xi32> -> tensor<4x256xi32>
    %cols = tl.broadcast %col_2d : tensor<1x256xi32> -> tensor<4x256xi32>
    // mask = row < n_rows && col < n_cols
    %n_rows_splat = tl.splat %n_rows : i32 -> tensor<4x256xi32>
    %n_cols_splat = tl.splat %n_cols : i32 -> tensor<4x256xi32>
    %row_ok = tl.cmpi slt, %rows, %n_rows_splat : tensor<4x256xi32>
    %col_ok = tl.cmpi slt, %cols, %n_cols_splat : tensor<4x256xi32>
    %mask = arith.andi %row_ok, %col_ok : tensor<4x256xi1>
    // Load x[row, col], -inf where masked so that it never wins the max.
    %in_stride = tl.splat %in_row_stride : i32 -> tensor<4x256xi32>
    %in_row_off = arith.muli %rows, %in_stride : tensor<4x256xi32>
    %in_off = arith.addi %in_row_off, %cols : tensor<4x256xi32>
    %in_base = tl.splat %in_ptr : !tl.ptr<f32> -> tensor<4x256x!tl.ptr<f32>>
    %in_ptrs = tl.addptr %in_base, %in_off : tensor<4x256x!tl.ptr<f32>>, tensor<4x256xi32>
    %neg_inf = tl.constant -inf : tensor<4x256xf32>
    %x = tl.load %in_ptrs, %mask, %neg_inf : tensor<4x256x!tl.ptr<f32>>
    // Row max, broadcast back, subtract.
    %row_max = tl.reduce %x {axis = 1 : i32} : tensor<4x256xf32> -> tensor<4xf32> {
    ^bb0(%lhs: f32, %rhs: f32):
      %m = arith.maxnumf %lhs, %rhs : f32
      tl.reduce.return %m : f32
    }
    %max_2d = tl.expand_dims %row_max {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %max_b = tl.broadcast %max_2d : tensor<4x1xf32> -> tensor<4x256xf32>
    %shifted = arith.subf %x, %max_b : tensor<4x256xf32>
    %num = math.exp %shifted : tensor<4x256xf32>
    // Row sum of the numerators, broadcast back, divide.
    %den = tl.reduce %num {axis = 1 : i32} : tensor<4x256xf32> -> tensor<4xf32> {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      tl.reduce.return %s : f32
    }
    %den_2d = tl.expand_dims %den {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %den_b = tl.broadcast %den_2d : tensor<4x1xf32> -> tensor<4x256xf32>
    %y = arith.divf %num, %den_b : tensor<4x256xf32>
    // Store out[row, col].
    %out_stride = tl.splat %out_row_stride : i32 -> tensor<4x256xi32>
    %out_row_off = arith.muli %rows, %out_stride : tensor<4x256xi32>
    %out_off = arith.addi %out_row_off, %cols : tensor<4x256xi32>
    %out_base = tl.splat %out_ptr : !tl.ptr<f32> -> tensor<4x256x!tl.ptr<f32>>
    %out_ptrs = tl.addptr %out_base, %out_off : tensor<4x256x!tl.ptr<f32>>, tensor<4x256xi32>
    tl.store %out_ptrs, %y, %mask : tensor<4x256x!tl.ptr<f32>>
    func.return
  }
}

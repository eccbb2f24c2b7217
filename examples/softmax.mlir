// Fused row-wise softmax: out[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(...)).
//
// Each program handles 4 rows of up to 256 columns (n_cols <= 256). Rows are reduced along
// axis 1, so the per-row max and sum live in #tl.slice<{dim = 1, parent = #blocked}> and are
// brought back to the 2-D tile with tl.expand_dims + tl.broadcast.
//
//   llc-run examples/softmax.mlir --entry softmax_kernel --grid 25 \
//       --args zeros:100x200xf32 x.npy 200 200 100 200 --print-buffers
#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tl.slice<{dim = 1, parent = #blocked}>
#cols = #tl.slice<{dim = 0, parent = #blocked}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @softmax_kernel(%out_ptr: !tl.ptr<f32>, %in_ptr: !tl.ptr<f32>, %in_row_stride: i32 {tl.divisibility = 8 : i32},
                            %out_row_stride: i32 {tl.divisibility = 8 : i32}, %n_rows: i32, %n_cols: i32 {tl.divisibility = 8 : i32}) {
    %c4_i32 = arith.constant 4 : i32
    %pid = tl.get_program_id x : i32
    %first_row = arith.muli %pid, %c4_i32 : i32
    // Row and column indices of the 4x256 tile.
    %row_range = tl.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #rows>
    %first_row_splat = tl.splat %first_row : i32 -> tensor<4xi32, #rows>
    %row_ids = arith.addi %first_row_splat, %row_range : tensor<4xi32, #rows>
    %col_ids = tl.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #cols>
    %row_2d = tl.expand_dims %row_ids {axis = 1 : i32} : tensor<4xi32, #rows> -> tensor<4x1xi32, #blocked>
    %col_2d = tl.expand_dims %col_ids {axis = 0 : i32} : tensor<256xi32, #cols> -> tensor<1x256xi32, #blocked>
    %rows = tl.broadcast %row_2d : tensor<4x1xi32, #blocked> -> tensor<4x256xi32, #blocked>
    %cols = tl.broadcast %col_2d : tensor<1x256xi32, #blocked> -> tensor<4x256xi32, #blocked>
    // mask = row < n_rows && col < n_cols
    %n_rows_splat = tl.splat %n_rows : i32 -> tensor<4x256xi32, #blocked>
    %n_cols_splat = tl.splat %n_cols : i32 -> tensor<4x256xi32, #blocked>
    %row_ok = tl.cmpi slt, %rows, %n_rows_splat : tensor<4x256xi32, #blocked>
    %col_ok = tl.cmpi slt, %cols, %n_cols_splat : tensor<4x256xi32, #blocked>
    %mask = arith.andi %row_ok, %col_ok : tensor<4x256xi1, #blocked>
    // Load x[row, col], -inf where masked so that it never wins the max.
    %in_stride = tl.splat %in_row_stride : i32 -> tensor<4x256xi32, #blocked>
    %in_row_off = arith.muli %rows, %in_stride : tensor<4x256xi32, #blocked>
    %in_off = arith.addi %in_row_off, %cols : tensor<4x256xi32, #blocked>
    %in_base = tl.splat %in_ptr : !tl.ptr<f32> -> tensor<4x256x!tl.ptr<f32>, #blocked>
    %in_ptrs = tl.addptr %in_base, %in_off : tensor<4x256x!tl.ptr<f32>, #blocked>, tensor<4x256xi32, #blocked>
    %neg_inf = tl.constant -inf : tensor<4x256xf32, #blocked>
    %x = tl.load %in_ptrs, %mask, %neg_inf : tensor<4x256x!tl.ptr<f32>, #blocked>
    // Row max, broadcast back, subtract.
    %row_max = tl.reduce %x {axis = 1 : i32} : tensor<4x256xf32, #blocked> -> tensor<4xf32, #rows> {
    ^bb0(%lhs: f32, %rhs: f32):
      %m = arith.maxnumf %lhs, %rhs : f32
      tl.reduce.return %m : f32
    }
    %max_2d = tl.expand_dims %row_max {axis = 1 : i32} : tensor<4xf32, #rows> -> tensor<4x1xf32, #blocked>
    %max_b = tl.broadcast %max_2d : tensor<4x1xf32, #blocked> -> tensor<4x256xf32, #blocked>
    %shifted = arith.subf %x, %max_b : tensor<4x256xf32, #blocked>
    %num = math.exp %shifted : tensor<4x256xf32, #blocked>
    // Row sum of the numerators, broadcast back, divide.
    %den = tl.reduce %num {axis = 1 : i32} : tensor<4x256xf32, #blocked> -> tensor<4xf32, #rows> {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      tl.reduce.return %s : f32
    }
    %den_2d = tl.expand_dims %den {axis = 1 : i32} : tensor<4xf32, #rows> -> tensor<4x1xf32, #blocked>
    %den_b = tl.broadcast %den_2d : tensor<4x1xf32, #blocked> -> tensor<4x256xf32, #blocked>
    %y = arith.divf %num, %den_b : tensor<4x256xf32, #blocked>
    // Store out[row, col].
    %out_stride = tl.splat %out_row_stride : i32 -> tensor<4x256xi32, #blocked>
    %out_row_off = arith.muli %rows, %out_stride : tensor<4x256xi32, #blocked>
    %out_off = arith.addi %out_row_off, %cols : tensor<4x256xi32, #blocked>
    %out_base = tl.splat %out_ptr : !tl.ptr<f32> -> tensor<4x256x!tl.ptr<f32>, #blocked>
    %out_ptrs = tl.addptr %out_base, %out_off : tensor<4x256x!tl.ptr<f32>, #blocked>, tensor<4x256xi32, #blocked>
    tl.store %out_ptrs, %y, %mask : tensor<4x256x!tl.ptr<f32>, #blocked>
    func.return
  }
}

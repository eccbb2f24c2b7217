// Softmax of i64 scores: out[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(...)), the max and the
// difference in i64, the rest in f64. The i64 version of examples/ttir/softmax.mlir, for the
// wide-type tests (64-bit values across lanes: two 32-bit shuffles each).
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @softmax_kernel(%out_ptr: !tl.ptr<f64>, %in_ptr: !tl.ptr<i64>, %in_row_stride: i32 {tl.divisibility = 8 : i32},
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
    %in_base = tl.splat %in_ptr : !tl.ptr<i64> -> tensor<4x256x!tl.ptr<i64>>
    %in_ptrs = tl.addptr %in_base, %in_off : tensor<4x256x!tl.ptr<i64>>, tensor<4x256xi32>
    // Masked elements read far below any input (|x| < 2^20), so that they never win the max and
    // their exponential is 0.
    %low = tl.constant -1000000000 : tensor<4x256xi64>
    %x = tl.load %in_ptrs, %mask, %low : tensor<4x256x!tl.ptr<i64>>
    // Row max in i64 (64-bit values across lanes and warps), broadcast back, subtract.
    %row_max = tl.reduce %x {axis = 1 : i32} : tensor<4x256xi64> -> tensor<4xi64> {
    ^bb0(%lhs: i64, %rhs: i64):
      %m = arith.maxsi %lhs, %rhs : i64
      tl.reduce.return %m : i64
    }
    %max_2d = tl.expand_dims %row_max {axis = 1 : i32} : tensor<4xi64> -> tensor<4x1xi64>
    %max_b = tl.broadcast %max_2d : tensor<4x1xi64> -> tensor<4x256xi64>
    %shifted_i = arith.subi %x, %max_b : tensor<4x256xi64>
    %shifted = tl.sitofp %shifted_i : tensor<4x256xi64> to tensor<4x256xf64>
    %num = math.exp %shifted : tensor<4x256xf64>
    // Row sum of the numerators, broadcast back, divide.
    %den = tl.reduce %num {axis = 1 : i32} : tensor<4x256xf64> -> tensor<4xf64> {
    ^bb0(%lhs: f64, %rhs: f64):
      %s = arith.addf %lhs, %rhs : f64
      tl.reduce.return %s : f64
    }
    %den_2d = tl.expand_dims %den {axis = 1 : i32} : tensor<4xf64> -> tensor<4x1xf64>
    %den_b = tl.broadcast %den_2d : tensor<4x1xf64> -> tensor<4x256xf64>
    %y = arith.divf %num, %den_b : tensor<4x256xf64>
    // Store out[row, col].
    %out_stride = tl.splat %out_row_stride : i32 -> tensor<4x256xi32>
    %out_row_off = arith.muli %rows, %out_stride : tensor<4x256xi32>
    %out_off = arith.addi %out_row_off, %cols : tensor<4x256xi32>
    %out_base = tl.splat %out_ptr : !tl.ptr<f64> -> tensor<4x256x!tl.ptr<f64>>
    %out_ptrs = tl.addptr %out_base, %out_off : tensor<4x256x!tl.ptr<f64>>, tensor<4x256xi32>
    tl.store %out_ptrs, %y, %mask : tensor<4x256x!tl.ptr<f64>>
    func.return
  }
}

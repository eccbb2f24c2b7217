// Layer normalization of i64 data: the sums of x and of x * x in i64 (64-bit values across lanes
// and warps), mean, variance, normalization and affine map in f64. The i64 version of
// examples/ttir/layernorm.mlir, for the wide-type tests.
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @layernorm_kernel(%x_ptr: !tl.ptr<i64>, %y_ptr: !tl.ptr<f64>, %w_ptr: !tl.ptr<f64>,
                              %b_ptr: !tl.ptr<f64>, %mean_ptr: !tl.ptr<f64>, %rstd_ptr: !tl.ptr<f64>,
                              %M: i32, %N: i32 {tl.divisibility = 4 : i32}, %eps: f64) {
    %c8_i32 = arith.constant 8 : i32
    %pid = tl.get_program_id x : i32
    %row0 = arith.muli %pid, %c8_i32 : i32
    // Indices and masks.
    %row_range = tl.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %row0_splat = tl.splat %row0 : i32 -> tensor<8xi32>
    %row_ids = arith.addi %row0_splat, %row_range : tensor<8xi32>
    %M_rows = tl.splat %M : i32 -> tensor<8xi32>
    %row_mask = tl.cmpi slt, %row_ids, %M_rows : tensor<8xi32>
    %col_ids = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %N_cols = tl.splat %N : i32 -> tensor<128xi32>
    %col_mask = tl.cmpi slt, %col_ids, %N_cols : tensor<128xi32>
    %row_2d = tl.expand_dims %row_ids {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
    %rows = tl.broadcast %row_2d : tensor<8x1xi32> -> tensor<8x128xi32>
    %col_2d = tl.expand_dims %col_ids {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %cols = tl.broadcast %col_2d : tensor<1x128xi32> -> tensor<8x128xi32>
    %row_mask_2d = tl.expand_dims %row_mask {axis = 1 : i32} : tensor<8xi1> -> tensor<8x1xi1>
    %row_mask_b = tl.broadcast %row_mask_2d : tensor<8x1xi1> -> tensor<8x128xi1>
    %col_mask_2d = tl.expand_dims %col_mask {axis = 0 : i32} : tensor<128xi1> -> tensor<1x128xi1>
    %col_mask_b = tl.broadcast %col_mask_2d : tensor<1x128xi1> -> tensor<8x128xi1>
    %mask = arith.andi %row_mask_b, %col_mask_b : tensor<8x128xi1>
    %N_2d = tl.splat %N : i32 -> tensor<8x128xi32>
    %row_off = arith.muli %rows, %N_2d : tensor<8x128xi32>
    %off = arith.addi %row_off, %cols : tensor<8x128xi32>
    // x, with 0 in masked lanes so they do not contribute to the sums (i64).
    %x_base = tl.splat %x_ptr : !tl.ptr<i64> -> tensor<8x128x!tl.ptr<i64>>
    %x_ptrs = tl.addptr %x_base, %off : tensor<8x128x!tl.ptr<i64>>, tensor<8x128xi32>
    %x = tl.load %x_ptrs, %mask : tensor<8x128x!tl.ptr<i64>>
    // sum(x) and sum(x * x) in i64 (exact), then mean and variance in f64
    %sum = tl.reduce %x {axis = 1 : i32} : tensor<8x128xi64> -> tensor<8xi64> {
    ^bb0(%lhs: i64, %rhs: i64):
      %s = arith.addi %lhs, %rhs : i64
      tl.reduce.return %s : i64
    }
    %x2 = arith.muli %x, %x : tensor<8x128xi64>
    %sq_sum = tl.reduce %x2 {axis = 1 : i32} : tensor<8x128xi64> -> tensor<8xi64> {
    ^bb0(%lhs: i64, %rhs: i64):
      %s = arith.addi %lhs, %rhs : i64
      tl.reduce.return %s : i64
    }
    %n_f = tl.sitofp %N : i32 to f64
    %n_rows_f = tl.splat %n_f : f64 -> tensor<8xf64>
    %sum_f = tl.sitofp %sum : tensor<8xi64> to tensor<8xf64>
    %mean = arith.divf %sum_f, %n_rows_f : tensor<8xf64>
    %sq_sum_f = tl.sitofp %sq_sum : tensor<8xi64> to tensor<8xf64>
    %ex2 = arith.divf %sq_sum_f, %n_rows_f : tensor<8xf64>
    %mean2 = arith.mulf %mean, %mean : tensor<8xf64>
    %var = arith.subf %ex2, %mean2 : tensor<8xf64>
    %mean_2d = tl.expand_dims %mean {axis = 1 : i32} : tensor<8xf64> -> tensor<8x1xf64>
    %mean_b = tl.broadcast %mean_2d : tensor<8x1xf64> -> tensor<8x128xf64>
    %xf = tl.sitofp %x : tensor<8x128xi64> to tensor<8x128xf64>
    %xc = arith.subf %xf, %mean_b : tensor<8x128xf64>
    %eps_rows = tl.splat %eps : f64 -> tensor<8xf64>
    %var_eps = arith.addf %var, %eps_rows : tensor<8xf64>
    %rstd = math.rsqrt %var_eps : tensor<8xf64>
    %rstd_2d = tl.expand_dims %rstd {axis = 1 : i32} : tensor<8xf64> -> tensor<8x1xf64>
    %rstd_b = tl.broadcast %rstd_2d : tensor<8x1xf64> -> tensor<8x128xf64>
    %xhat = arith.mulf %xc, %rstd_b : tensor<8x128xf64>
    // affine: y = xhat * w + b
    %w_base = tl.splat %w_ptr : !tl.ptr<f64> -> tensor<128x!tl.ptr<f64>>
    %w_ptrs = tl.addptr %w_base, %col_ids : tensor<128x!tl.ptr<f64>>, tensor<128xi32>
    %w = tl.load %w_ptrs, %col_mask : tensor<128x!tl.ptr<f64>>
    %b_base = tl.splat %b_ptr : !tl.ptr<f64> -> tensor<128x!tl.ptr<f64>>
    %b_ptrs = tl.addptr %b_base, %col_ids : tensor<128x!tl.ptr<f64>>, tensor<128xi32>
    %b = tl.load %b_ptrs, %col_mask : tensor<128x!tl.ptr<f64>>
    %w_2d = tl.expand_dims %w {axis = 0 : i32} : tensor<128xf64> -> tensor<1x128xf64>
    %w_b = tl.broadcast %w_2d : tensor<1x128xf64> -> tensor<8x128xf64>
    %b_2d = tl.expand_dims %b {axis = 0 : i32} : tensor<128xf64> -> tensor<1x128xf64>
    %b_b = tl.broadcast %b_2d : tensor<1x128xf64> -> tensor<8x128xf64>
    %scaled = arith.mulf %xhat, %w_b : tensor<8x128xf64>
    %y = arith.addf %scaled, %b_b : tensor<8x128xf64>
    // stores: y (2-D), mean and rstd (one per row, from the slice layout)
    %y_base = tl.splat %y_ptr : !tl.ptr<f64> -> tensor<8x128x!tl.ptr<f64>>
    %y_ptrs = tl.addptr %y_base, %off : tensor<8x128x!tl.ptr<f64>>, tensor<8x128xi32>
    tl.store %y_ptrs, %y, %mask : tensor<8x128x!tl.ptr<f64>>
    %mean_base = tl.splat %mean_ptr : !tl.ptr<f64> -> tensor<8x!tl.ptr<f64>>
    %mean_ptrs = tl.addptr %mean_base, %row_ids : tensor<8x!tl.ptr<f64>>, tensor<8xi32>
    tl.store %mean_ptrs, %mean, %row_mask : tensor<8x!tl.ptr<f64>>
    %rstd_base = tl.splat %rstd_ptr : !tl.ptr<f64> -> tensor<8x!tl.ptr<f64>>
    %rstd_ptrs = tl.addptr %rstd_base, %row_ids : tensor<8x!tl.ptr<f64>>, tensor<8xi32>
    tl.store %rstd_ptrs, %rstd, %row_mask : tensor<8x!tl.ptr<f64>>
    func.return
  }
}

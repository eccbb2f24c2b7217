// Layer normalization over the last dimension of an M x N matrix (N <= 128):
//   mean = sum(x) / N,  var = sum((x - mean)^2) / N,  rstd = 1 / sqrt(var + eps)
//   y = (x - mean) * rstd * w + b;  mean and rstd are also stored (for the backward pass).
//
// Each program normalizes 8 rows. Per-row statistics live in #rows (a slice of #blocked) and
// are stored from that layout directly; the weight and bias rows live in #cols.
//
//   llc-run examples/layernorm.mlir --entry layernorm_kernel --grid 4 \
//       --args x.npy zeros:30x100xf32 w.npy b.npy zeros:30xf32 zeros:30xf32 30 100 1e-5
#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tl.slice<{dim = 1, parent = #blocked}>
#cols = #tl.slice<{dim = 0, parent = #blocked}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @layernorm_kernel(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %w_ptr: !tl.ptr<f32>,
                              %b_ptr: !tl.ptr<f32>, %mean_ptr: !tl.ptr<f32>, %rstd_ptr: !tl.ptr<f32>,
                              %M: i32, %N: i32 {tl.divisibility = 4 : i32}, %eps: f32) {
    %c8_i32 = arith.constant 8 : i32
    %pid = tl.get_program_id x : i32
    %row0 = arith.muli %pid, %c8_i32 : i32
    // Indices and masks.
    %row_range = tl.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #rows>
    %row0_splat = tl.splat %row0 : i32 -> tensor<8xi32, #rows>
    %row_ids = arith.addi %row0_splat, %row_range : tensor<8xi32, #rows>
    %M_rows = tl.splat %M : i32 -> tensor<8xi32, #rows>
    %row_mask = tl.cmpi slt, %row_ids, %M_rows : tensor<8xi32, #rows>
    %col_ids = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #cols>
    %N_cols = tl.splat %N : i32 -> tensor<128xi32, #cols>
    %col_mask = tl.cmpi slt, %col_ids, %N_cols : tensor<128xi32, #cols>
    %row_2d = tl.expand_dims %row_ids {axis = 1 : i32} : tensor<8xi32, #rows> -> tensor<8x1xi32, #blocked>
    %rows = tl.broadcast %row_2d : tensor<8x1xi32, #blocked> -> tensor<8x128xi32, #blocked>
    %col_2d = tl.expand_dims %col_ids {axis = 0 : i32} : tensor<128xi32, #cols> -> tensor<1x128xi32, #blocked>
    %cols = tl.broadcast %col_2d : tensor<1x128xi32, #blocked> -> tensor<8x128xi32, #blocked>
    %row_mask_2d = tl.expand_dims %row_mask {axis = 1 : i32} : tensor<8xi1, #rows> -> tensor<8x1xi1, #blocked>
    %row_mask_b = tl.broadcast %row_mask_2d : tensor<8x1xi1, #blocked> -> tensor<8x128xi1, #blocked>
    %col_mask_2d = tl.expand_dims %col_mask {axis = 0 : i32} : tensor<128xi1, #cols> -> tensor<1x128xi1, #blocked>
    %col_mask_b = tl.broadcast %col_mask_2d : tensor<1x128xi1, #blocked> -> tensor<8x128xi1, #blocked>
    %mask = arith.andi %row_mask_b, %col_mask_b : tensor<8x128xi1, #blocked>
    %N_2d = tl.splat %N : i32 -> tensor<8x128xi32, #blocked>
    %row_off = arith.muli %rows, %N_2d : tensor<8x128xi32, #blocked>
    %off = arith.addi %row_off, %cols : tensor<8x128xi32, #blocked>
    // x, with 0 in masked lanes so they do not contribute to the sums.
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<8x128x!tl.ptr<f32>, #blocked>
    %x_ptrs = tl.addptr %x_base, %off : tensor<8x128x!tl.ptr<f32>, #blocked>, tensor<8x128xi32, #blocked>
    %x = tl.load %x_ptrs, %mask : tensor<8x128x!tl.ptr<f32>, #blocked>
    // mean
    %sum = tl.reduce %x {axis = 1 : i32} : tensor<8x128xf32, #blocked> -> tensor<8xf32, #rows> {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      tl.reduce.return %s : f32
    }
    %n_f = tl.sitofp %N : i32 to f32
    %n_rows_f = tl.splat %n_f : f32 -> tensor<8xf32, #rows>
    %mean = arith.divf %sum, %n_rows_f : tensor<8xf32, #rows>
    %mean_2d = tl.expand_dims %mean {axis = 1 : i32} : tensor<8xf32, #rows> -> tensor<8x1xf32, #blocked>
    %mean_b = tl.broadcast %mean_2d : tensor<8x1xf32, #blocked> -> tensor<8x128xf32, #blocked>
    // variance of the centered values (masked lanes forced to 0)
    %diff = arith.subf %x, %mean_b : tensor<8x128xf32, #blocked>
    %zeros = tl.constant 0.000000e+00 : tensor<8x128xf32, #blocked>
    %xc = tl.select %mask, %diff, %zeros : tensor<8x128xi1, #blocked>, tensor<8x128xf32, #blocked>
    %sq = arith.mulf %xc, %xc : tensor<8x128xf32, #blocked>
    %sq_sum = tl.reduce %sq {axis = 1 : i32} : tensor<8x128xf32, #blocked> -> tensor<8xf32, #rows> {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      tl.reduce.return %s : f32
    }
    %var = arith.divf %sq_sum, %n_rows_f : tensor<8xf32, #rows>
    %eps_rows = tl.splat %eps : f32 -> tensor<8xf32, #rows>
    %var_eps = arith.addf %var, %eps_rows : tensor<8xf32, #rows>
    %rstd = math.rsqrt %var_eps : tensor<8xf32, #rows>
    %rstd_2d = tl.expand_dims %rstd {axis = 1 : i32} : tensor<8xf32, #rows> -> tensor<8x1xf32, #blocked>
    %rstd_b = tl.broadcast %rstd_2d : tensor<8x1xf32, #blocked> -> tensor<8x128xf32, #blocked>
    %xhat = arith.mulf %xc, %rstd_b : tensor<8x128xf32, #blocked>
    // affine: y = xhat * w + b
    %w_base = tl.splat %w_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>, #cols>
    %w_ptrs = tl.addptr %w_base, %col_ids : tensor<128x!tl.ptr<f32>, #cols>, tensor<128xi32, #cols>
    %w = tl.load %w_ptrs, %col_mask : tensor<128x!tl.ptr<f32>, #cols>
    %b_base = tl.splat %b_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>, #cols>
    %b_ptrs = tl.addptr %b_base, %col_ids : tensor<128x!tl.ptr<f32>, #cols>, tensor<128xi32, #cols>
    %b = tl.load %b_ptrs, %col_mask : tensor<128x!tl.ptr<f32>, #cols>
    %w_2d = tl.expand_dims %w {axis = 0 : i32} : tensor<128xf32, #cols> -> tensor<1x128xf32, #blocked>
    %w_b = tl.broadcast %w_2d : tensor<1x128xf32, #blocked> -> tensor<8x128xf32, #blocked>
    %b_2d = tl.expand_dims %b {axis = 0 : i32} : tensor<128xf32, #cols> -> tensor<1x128xf32, #blocked>
    %b_b = tl.broadcast %b_2d : tensor<1x128xf32, #blocked> -> tensor<8x128xf32, #blocked>
    %scaled = arith.mulf %xhat, %w_b : tensor<8x128xf32, #blocked>
    %y = arith.addf %scaled, %b_b : tensor<8x128xf32, #blocked>
    // stores: y (2-D), mean and rstd (one per row, from the slice layout)
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<8x128x!tl.ptr<f32>, #blocked>
    %y_ptrs = tl.addptr %y_base, %off : tensor<8x128x!tl.ptr<f32>, #blocked>, tensor<8x128xi32, #blocked>
    tl.store %y_ptrs, %y, %mask : tensor<8x128x!tl.ptr<f32>, #blocked>
    %mean_base = tl.splat %mean_ptr : !tl.ptr<f32> -> tensor<8x!tl.ptr<f32>, #rows>
    %mean_ptrs = tl.addptr %mean_base, %row_ids : tensor<8x!tl.ptr<f32>, #rows>, tensor<8xi32, #rows>
    tl.store %mean_ptrs, %mean, %row_mask : tensor<8x!tl.ptr<f32>, #rows>
    %rstd_base = tl.splat %rstd_ptr : !tl.ptr<f32> -> tensor<8x!tl.ptr<f32>, #rows>
    %rstd_ptrs = tl.addptr %rstd_base, %row_ids : tensor<8x!tl.ptr<f32>, #rows>, tensor<8xi32, #rows>
    tl.store %rstd_ptrs, %rstd, %row_mask : tensor<8x!tl.ptr<f32>, #rows>
    func.return
  }
}

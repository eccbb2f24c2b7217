// Column sum: out[j] = sum_i X[i, j] for a row-major MxN f32 matrix X (a reduce along axis 0).
//
// Each program owns 64 columns (grid = cdiv(N, 64)) and walks down the rows in 32x64 tiles with
// an scf.for that carries the running sums. Tiles are loaded in #blocked (4 consecutive f32 per
// thread along a row, a warp covering 2 rows of 64 columns: coalesced), reduced along axis 0
// into the slice layout #cols = #tl.slice<{dim = 0, parent = #blocked}>, in which the sums are
// carried, accumulated and stored: no conversion anywhere.
//
//   llc-run examples/colsum.mlir --entry colsum_kernel --grid 2 \
//       --args x.npy zeros:100xf32 75 100 --print-buffers
#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #tl.slice<{dim = 0, parent = #blocked}>
#rows = #tl.slice<{dim = 1, parent = #blocked}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @colsum_kernel(%x_ptr: !tl.ptr<f32>, %out_ptr: !tl.ptr<f32>, %M: i32, %N: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %c64_i32 = arith.constant 64 : i32
    %pid = tl.get_program_id x : i32
    %n0 = arith.muli %pid, %c64_i32 : i32

    // Columns n0 + j (j < 64) and the first tile's rows i < 32.
    %j_range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #cols>
    %n0_j = tl.splat %n0 : i32 -> tensor<64xi32, #cols>
    %j = arith.addi %n0_j, %j_range : tensor<64xi32, #cols>
    %j_2d = tl.expand_dims %j {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #blocked>
    %j_b = tl.broadcast %j_2d : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %i_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #rows>
    %i_2d = tl.expand_dims %i_range {axis = 1 : i32} : tensor<32xi32, #rows> -> tensor<32x1xi32, #blocked>
    %i_b = tl.broadcast %i_2d : tensor<32x1xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %N_t = tl.splat %N : i32 -> tensor<32x64xi32, #blocked>
    %col_ok = tl.cmpi slt, %j_b, %N_t : tensor<32x64xi32, #blocked>
    %row_off = arith.muli %i_b, %N_t : tensor<32x64xi32, #blocked>
    %off = arith.addi %row_off, %j_b : tensor<32x64xi32, #blocked>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<32x64x!tl.ptr<f32>, #blocked>
    %x_ptrs0 = tl.addptr %x_base, %off : tensor<32x64x!tl.ptr<f32>, #blocked>, tensor<32x64xi32, #blocked>
    %step_scalar = arith.muli %N, %c32_i32 : i32
    %step = tl.splat %step_scalar : i32 -> tensor<32x64xi32, #blocked>
    %zero_tile = tl.constant 0.000000e+00 : tensor<32x64xf32, #blocked>

    // Walk down the rows: sums += column sums of X[m:m+32, n0:n0+64].
    %sums0 = tl.constant 0.000000e+00 : tensor<64xf32, #cols>
    %sums, %x_ptrs_end = scf.for %m = %c0_i32 to %M step %c32_i32 iter_args(%acc = %sums0, %x_ptrs = %x_ptrs0) -> (tensor<64xf32, #cols>, tensor<32x64x!tl.ptr<f32>, #blocked>) : i32 {
      %rows_left = arith.subi %M, %m : i32
      %rows_left_t = tl.splat %rows_left : i32 -> tensor<32x64xi32, #blocked>
      %row_ok = tl.cmpi slt, %i_b, %rows_left_t : tensor<32x64xi32, #blocked>
      %mask = arith.andi %row_ok, %col_ok : tensor<32x64xi1, #blocked>
      %x = tl.load %x_ptrs, %mask, %zero_tile : tensor<32x64x!tl.ptr<f32>, #blocked>
      %tile_sums = tl.reduce %x {axis = 0 : i32} : tensor<32x64xf32, #blocked> -> tensor<64xf32, #cols> {
      ^bb0(%lhs: f32, %rhs: f32):
        %s = arith.addf %lhs, %rhs : f32
        tl.reduce.return %s : f32
      }
      %acc_next = arith.addf %acc, %tile_sums : tensor<64xf32, #cols>
      %x_next = tl.addptr %x_ptrs, %step : tensor<32x64x!tl.ptr<f32>, #blocked>, tensor<32x64xi32, #blocked>
      scf.yield %acc_next, %x_next : tensor<64xf32, #cols>, tensor<32x64x!tl.ptr<f32>, #blocked>
    }

    // Store out[n0 + j] where n0 + j < N.
    %N_j = tl.splat %N : i32 -> tensor<64xi32, #cols>
    %out_mask = tl.cmpi slt, %j, %N_j : tensor<64xi32, #cols>
    %out_base = tl.splat %out_ptr : !tl.ptr<f32> -> tensor<64x!tl.ptr<f32>, #cols>
    %out_ptrs = tl.addptr %out_base, %j : tensor<64x!tl.ptr<f32>, #cols>, tensor<64xi32, #cols>
    tl.store %out_ptrs, %sums, %out_mask : tensor<64x!tl.ptr<f32>, #cols>
    func.return
  }
}

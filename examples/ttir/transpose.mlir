// Transpose, layout-free (the TTIR-like input of layout assignment): Y = X^T for a row-major
// MxN f32 matrix X (Y is NxM, row-major). The same program as examples/transpose.mlir with every
// layout and conversion removed (`llc-opt -p llc-strip-layouts examples/transpose.mlir` prints the
// same IR). Each program moves one 32x32 tile (grid = [cdiv(M, 32), cdiv(N, 32)]).
//
//   llc-run examples/ttir/transpose.mlir --entry transpose_kernel --grid 2,3 \
//       --args x.npy zeros:70x50xf32 50 70 --print-buffers
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @transpose_kernel(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %M: i32, %N: i32) {
    %c32_i32 = arith.constant 32 : i32
    %pid_m = tl.get_program_id x : i32
    %pid_n = tl.get_program_id y : i32
    %m0 = arith.muli %pid_m, %c32_i32 : i32
    %n0 = arith.muli %pid_n, %c32_i32 : i32

    // Load X[m0 + i, n0 + j] (i, j < 32) where in bounds.
    %i_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %m0_i = tl.splat %m0 : i32 -> tensor<32xi32>
    %i = arith.addi %m0_i, %i_range : tensor<32xi32>
    %i_2d = tl.expand_dims %i {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %i_b = tl.broadcast %i_2d : tensor<32x1xi32> -> tensor<32x32xi32>
    %j_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %n0_j = tl.splat %n0 : i32 -> tensor<32xi32>
    %j = arith.addi %n0_j, %j_range : tensor<32xi32>
    %j_2d = tl.expand_dims %j {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %j_b = tl.broadcast %j_2d : tensor<1x32xi32> -> tensor<32x32xi32>
    %N_x = tl.splat %N : i32 -> tensor<32x32xi32>
    %M_x = tl.splat %M : i32 -> tensor<32x32xi32>
    %x_row = arith.muli %i_b, %N_x : tensor<32x32xi32>
    %x_off = arith.addi %x_row, %j_b : tensor<32x32xi32>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>>
    %x_ptrs = tl.addptr %x_base, %x_off : tensor<32x32x!tl.ptr<f32>>, tensor<32x32xi32>
    %i_ok = tl.cmpi slt, %i_b, %M_x : tensor<32x32xi32>
    %j_ok = tl.cmpi slt, %j_b, %N_x : tensor<32x32xi32>
    %x_mask = arith.andi %i_ok, %j_ok : tensor<32x32xi1>
    %x = tl.load %x_ptrs, %x_mask : tensor<32x32x!tl.ptr<f32>>

    // Transpose the tile.
    %x_t = tl.trans %x {order = array<i32: 1, 0>} : tensor<32x32xf32> -> tensor<32x32xf32>

    // Store Y[n0 + r, m0 + c] = X[m0 + c, n0 + r] (r, c < 32): the rows of Y are indexed by n.
    %r_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %n0_r = tl.splat %n0 : i32 -> tensor<32xi32>
    %r = arith.addi %n0_r, %r_range : tensor<32xi32>
    %r_2d = tl.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %r_b = tl.broadcast %r_2d : tensor<32x1xi32> -> tensor<32x32xi32>
    %c_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %m0_c = tl.splat %m0 : i32 -> tensor<32xi32>
    %c = arith.addi %m0_c, %c_range : tensor<32xi32>
    %c_2d = tl.expand_dims %c {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %c_b = tl.broadcast %c_2d : tensor<1x32xi32> -> tensor<32x32xi32>
    %y_row = arith.muli %r_b, %M_x : tensor<32x32xi32>
    %y_off = arith.addi %y_row, %c_b : tensor<32x32xi32>
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>>
    %y_ptrs = tl.addptr %y_base, %y_off : tensor<32x32x!tl.ptr<f32>>, tensor<32x32xi32>
    %r_ok = tl.cmpi slt, %r_b, %N_x : tensor<32x32xi32>
    %c_ok = tl.cmpi slt, %c_b, %M_x : tensor<32x32xi32>
    %y_mask = arith.andi %r_ok, %c_ok : tensor<32x32xi1>
    tl.store %y_ptrs, %x_t, %y_mask : tensor<32x32x!tl.ptr<f32>>
    func.return
  }
}

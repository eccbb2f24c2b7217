// Transpose: Y = X^T for a row-major MxN f32 matrix X (Y is NxM, row-major).
//
// Each program moves one 32x32 tile (grid = [cdiv(M, 32), cdiv(N, 32)]). The tile is loaded
// row-major in #blocked (4 consecutive f32 per thread along a row: 128-bit coalesced loads),
// transposed with tl.trans (whose result layout #blocked_t is #blocked with its dims swapped:
// each thread now holds 4 consecutive elements of a *column* of the output tile), and converted
// back to #blocked so the store is coalesced along the rows of Y too. That conversion is the one
// a transpose cannot avoid (Triton leaves exactly one as well).
//
//   llc-run examples/transpose.mlir --entry transpose_kernel --grid 2,3 \
//       --args x.npy zeros:70x50xf32 50 70 --print-buffers
#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_t = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @transpose_kernel(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %M: i32, %N: i32) {
    %c32_i32 = arith.constant 32 : i32
    %pid_m = tl.get_program_id x : i32
    %pid_n = tl.get_program_id y : i32
    %m0 = arith.muli %pid_m, %c32_i32 : i32
    %n0 = arith.muli %pid_n, %c32_i32 : i32

    // Load X[m0 + i, n0 + j] (i, j < 32) where in bounds.
    %i_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %m0_i = tl.splat %m0 : i32 -> tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %i = arith.addi %m0_i, %i_range : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %i_2d = tl.expand_dims %i {axis = 1 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
    %i_b = tl.broadcast %i_2d : tensor<32x1xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %j_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked}>>
    %n0_j = tl.splat %n0 : i32 -> tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked}>>
    %j = arith.addi %n0_j, %j_range : tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked}>>
    %j_2d = tl.expand_dims %j {axis = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %j_b = tl.broadcast %j_2d : tensor<1x32xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %N_x = tl.splat %N : i32 -> tensor<32x32xi32, #blocked>
    %M_x = tl.splat %M : i32 -> tensor<32x32xi32, #blocked>
    %x_row = arith.muli %i_b, %N_x : tensor<32x32xi32, #blocked>
    %x_off = arith.addi %x_row, %j_b : tensor<32x32xi32, #blocked>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>, #blocked>
    %x_ptrs = tl.addptr %x_base, %x_off : tensor<32x32x!tl.ptr<f32>, #blocked>, tensor<32x32xi32, #blocked>
    %i_ok = tl.cmpi slt, %i_b, %M_x : tensor<32x32xi32, #blocked>
    %j_ok = tl.cmpi slt, %j_b, %N_x : tensor<32x32xi32, #blocked>
    %x_mask = arith.andi %i_ok, %j_ok : tensor<32x32xi1, #blocked>
    %x = tl.load %x_ptrs, %x_mask : tensor<32x32x!tl.ptr<f32>, #blocked>

    // Transpose the tile in registers, then convert for a coalesced store.
    %x_t = tl.trans %x {order = array<i32: 1, 0>} : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked_t>
    %y = tl.convert_layout %x_t : tensor<32x32xf32, #blocked_t> -> tensor<32x32xf32, #blocked>

    // Store Y[n0 + r, m0 + c] = X[m0 + c, n0 + r] (r, c < 32): the rows of Y are indexed by n.
    %r_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %n0_r = tl.splat %n0 : i32 -> tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %r = arith.addi %n0_r, %r_range : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>>
    %r_2d = tl.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
    %r_b = tl.broadcast %r_2d : tensor<32x1xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %c_range = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked}>>
    %m0_c = tl.splat %m0 : i32 -> tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked}>>
    %c = arith.addi %m0_c, %c_range : tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked}>>
    %c_2d = tl.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %c_b = tl.broadcast %c_2d : tensor<1x32xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %y_row = arith.muli %r_b, %M_x : tensor<32x32xi32, #blocked>
    %y_off = arith.addi %y_row, %c_b : tensor<32x32xi32, #blocked>
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>, #blocked>
    %y_ptrs = tl.addptr %y_base, %y_off : tensor<32x32x!tl.ptr<f32>, #blocked>, tensor<32x32xi32, #blocked>
    %r_ok = tl.cmpi slt, %r_b, %N_x : tensor<32x32xi32, #blocked>
    %c_ok = tl.cmpi slt, %c_b, %M_x : tensor<32x32xi32, #blocked>
    %y_mask = arith.andi %r_ok, %c_ok : tensor<32x32xi1, #blocked>
    tl.store %y_ptrs, %y, %y_mask : tensor<32x32x!tl.ptr<f32>, #blocked>
    func.return
  }
}

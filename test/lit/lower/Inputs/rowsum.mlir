// Row sum of an M x N matrix: out[r] = sum_c x[r, c], 16 rows of up to 128 columns per program,
// layout-free. Written in f32; the wide-type tests substitute the element type (f64, bf16; i64
// with arith.addi for arith.addf).
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @rowsum_kernel(%x_ptr: !tl.ptr<f32>, %out_ptr: !tl.ptr<f32>, %M: i32,
                           %N: i32 {tl.divisibility = 8 : i32}) {
    %c16_i32 = arith.constant 16 : i32
    %pid = tl.get_program_id x : i32
    %row0 = arith.muli %pid, %c16_i32 : i32
    %row_range = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %row0_splat = tl.splat %row0 : i32 -> tensor<16xi32>
    %row_ids = arith.addi %row0_splat, %row_range : tensor<16xi32>
    %M_rows = tl.splat %M : i32 -> tensor<16xi32>
    %row_ok = tl.cmpi slt, %row_ids, %M_rows : tensor<16xi32>
    %col_ids = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %N_cols = tl.splat %N : i32 -> tensor<128xi32>
    %col_ok = tl.cmpi slt, %col_ids, %N_cols : tensor<128xi32>
    %row_2d = tl.expand_dims %row_ids {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %rows = tl.broadcast %row_2d : tensor<16x1xi32> -> tensor<16x128xi32>
    %col_2d = tl.expand_dims %col_ids {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %cols = tl.broadcast %col_2d : tensor<1x128xi32> -> tensor<16x128xi32>
    %row_ok_2d = tl.expand_dims %row_ok {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
    %row_ok_b = tl.broadcast %row_ok_2d : tensor<16x1xi1> -> tensor<16x128xi1>
    %col_ok_2d = tl.expand_dims %col_ok {axis = 0 : i32} : tensor<128xi1> -> tensor<1x128xi1>
    %col_ok_b = tl.broadcast %col_ok_2d : tensor<1x128xi1> -> tensor<16x128xi1>
    %mask = arith.andi %row_ok_b, %col_ok_b : tensor<16x128xi1>
    %N_2d = tl.splat %N : i32 -> tensor<16x128xi32>
    %row_off = arith.muli %rows, %N_2d : tensor<16x128xi32>
    %off = arith.addi %row_off, %cols : tensor<16x128xi32>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<16x128x!tl.ptr<f32>>
    %x_ptrs = tl.addptr %x_base, %off : tensor<16x128x!tl.ptr<f32>>, tensor<16x128xi32>
    // masked elements read 0: they add nothing
    %x = tl.load %x_ptrs, %mask : tensor<16x128x!tl.ptr<f32>>
    %sum = tl.reduce %x {axis = 1 : i32} : tensor<16x128xf32> -> tensor<16xf32> {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      tl.reduce.return %s : f32
    }
    %out_base = tl.splat %out_ptr : !tl.ptr<f32> -> tensor<16x!tl.ptr<f32>>
    %out_ptrs = tl.addptr %out_base, %row_ids : tensor<16x!tl.ptr<f32>>, tensor<16xi32>
    tl.store %out_ptrs, %sum, %row_ok : tensor<16x!tl.ptr<f32>>
    func.return
  }
}

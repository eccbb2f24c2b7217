// One block of attention: O = softmax(Q K^T * sm_scale) V for 64 queries and 64 keys, head
// dimension 64 (Q, K, V, O are 64x64 row-major; Q, K, V in f16, O in f32).
//
// Layout-free (the TTIR-like input of layout assignment): the same program as
// examples/attention.mlir with every layout and conversion removed (`llc-opt -p llc-strip-layouts
// examples/attention.mlir` prints the same IR).
//
//   llc-run examples/ttir/attention.mlir --entry attention_kernel \
//       --args q.npy k.npy v.npy zeros:64x64xf32 0.125 --print-buffers
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @attention_kernel(%q_ptr: !tl.ptr<f16>, %k_ptr: !tl.ptr<f16>, %v_ptr: !tl.ptr<f16>,
                              %o_ptr: !tl.ptr<f32>, %sm_scale: f32) {
    // Offsets of a 64x64 row-major tile: i * 64 + j.
    %i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %i_2d = tl.expand_dims %i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %i_b = tl.broadcast %i_2d : tensor<64x1xi32> -> tensor<64x64xi32>
    %j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %j_2d = tl.expand_dims %j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %j_b = tl.broadcast %j_2d : tensor<1x64xi32> -> tensor<64x64xi32>
    %c64 = tl.constant 64 : tensor<64x64xi32>
    %row_off = arith.muli %i_b, %c64 : tensor<64x64xi32>
    %off = arith.addi %row_off, %j_b : tensor<64x64xi32>
    // Load Q, K, V.
    %q_base = tl.splat %q_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %q_ptrs = tl.addptr %q_base, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %q = tl.load %q_ptrs : tensor<64x64x!tl.ptr<f16>>
    %k_base = tl.splat %k_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %k_ptrs = tl.addptr %k_base, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %k = tl.load %k_ptrs : tensor<64x64x!tl.ptr<f16>>
    %v_base = tl.splat %v_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %v_ptrs = tl.addptr %v_base, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %v = tl.load %v_ptrs : tensor<64x64x!tl.ptr<f16>>
    // S = Q K^T * sm_scale
    %k_t = tl.trans %k {order = array<i32: 1, 0>} : tensor<64x64xf16> -> tensor<64x64xf16>
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %qk = tl.dot %q, %k_t, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %scale = tl.splat %sm_scale : f32 -> tensor<64x64xf32>
    %s = arith.mulf %qk, %scale : tensor<64x64xf32>
    // P = softmax(S) along the keys.
    %row_max = tl.reduce %s {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32> {
    ^bb0(%lhs: f32, %rhs: f32):
      %m = arith.maxnumf %lhs, %rhs : f32
      tl.reduce.return %m : f32
    }
    %max_2d = tl.expand_dims %row_max {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %max_b = tl.broadcast %max_2d : tensor<64x1xf32> -> tensor<64x64xf32>
    %shifted = arith.subf %s, %max_b : tensor<64x64xf32>
    %e = math.exp %shifted : tensor<64x64xf32>
    %row_sum = tl.reduce %e {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32> {
    ^bb0(%lhs: f32, %rhs: f32):
      %t = arith.addf %lhs, %rhs : f32
      tl.reduce.return %t : f32
    }
    %sum_2d = tl.expand_dims %row_sum {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %sum_b = tl.broadcast %sum_2d : tensor<64x1xf32> -> tensor<64x64xf32>
    %p = arith.divf %e, %sum_b : tensor<64x64xf32>
    // O = P V
    %p16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
    %o = tl.dot %p16, %v, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %o_base = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %o_ptrs = tl.addptr %o_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %o_ptrs, %o : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

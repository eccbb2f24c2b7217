// Mixed-precision dot (issue 14): i8 x f8E4M3FN for sm_80. Both dot operands take the narrower
// type's kWidth (4), llc-compile runs the dot on mma.sync m16n8k16 f16 after converting in
// registers (i8 -> f8 rounds, f8 -> f16 is exact); the PTX has no f8 conversion on sm_80, so it
// gets the exact integer sequence (the e4m3 subnormal table constant), sm_90 uses
// cvt.rn.f16x2.e4m3x2. The conversion to f8 is the integer sequence on both (PTX's saturates).
// RUN: llc-opt -p llc-optimize-layouts %s | filecheck %s --check-prefix=LAYOUT
// LAYOUT-DAG: #dot_op = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
// LAYOUT-DAG: #dot_op1 = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
// LAYOUT: tl.dot {{.*}} : tensor<16x16xi8, #dot_op> * tensor<16x16xf8E4M3FN, #dot_op1>
// RUN: llc-opt -p llc-compile %s | filecheck %s --check-prefix=SIMT
// SIMT: simt.cast "sitofp" {{.*}} : vector<8xi8> to vector<8xf8E4M3FN>
// SIMT: simt.cast "extf" {{.*}} : vector<8xf8E4M3FN> to vector<8xf16>
// SIMT: simt.cast "extf" {{.*}} : vector<4xf8E4M3FN> to vector<4xf16>
// SIMT: simt.mma_m16n8k16 {{.*}} : vector<8xf16>, vector<4xf16>, vector<4xf32>
// RUN: llc-opt -p llc-compile %s -t 'ptx{arch=sm_80}' | filecheck %s --check-prefix=SM80
// SM80-NOT: e4m3x2
// SM80: cvt.rni.u32.f32
// SM80: mov.b64 {{%rd[0-9]+}}, 0x232221201E1C1800;
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// RUN: llc-opt -p llc-compile %s -t 'ptx{arch=sm_90}' | filecheck %s --check-prefix=SM90
// SM90: cvt.rni.u32.f32
// SM90: cvt.rn.f16x2.e4m3x2
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @k(%a_ptr: !tl.ptr<i8>, %b_ptr: !tl.ptr<f8E4M3FN>, %c_ptr: !tl.ptr<f32>) {
    %r = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %row = tl.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %rowb = tl.broadcast %row : tensor<16x1xi32> -> tensor<16x16xi32>
    %col = tl.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %colb = tl.broadcast %col : tensor<1x16xi32> -> tensor<16x16xi32>
    %c16 = arith.constant 16 : i32
    %s16 = tl.splat %c16 : i32 -> tensor<16x16xi32>
    %ro = arith.muli %rowb, %s16 : tensor<16x16xi32>
    %off = arith.addi %ro, %colb : tensor<16x16xi32>
    %ab = tl.splat %a_ptr : !tl.ptr<i8> -> tensor<16x16x!tl.ptr<i8>>
    %ap = tl.addptr %ab, %off : tensor<16x16x!tl.ptr<i8>>, tensor<16x16xi32>
    %a = tl.load %ap : tensor<16x16x!tl.ptr<i8>>
    %bb = tl.splat %b_ptr : !tl.ptr<f8E4M3FN> -> tensor<16x16x!tl.ptr<f8E4M3FN>>
    %bp = tl.addptr %bb, %off : tensor<16x16x!tl.ptr<f8E4M3FN>>, tensor<16x16xi32>
    %b = tl.load %bp : tensor<16x16x!tl.ptr<f8E4M3FN>>
    %z = arith.constant 0.0 : f32
    %acc = tl.splat %z : f32 -> tensor<16x16xf32>
    %d = tl.dot %a, %b, %acc : tensor<16x16xi8> * tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
    %cb = tl.splat %c_ptr : !tl.ptr<f32> -> tensor<16x16x!tl.ptr<f32>>
    %cp = tl.addptr %cb, %off : tensor<16x16x!tl.ptr<f32>>, tensor<16x16xi32>
    tl.store %cp, %d : tensor<16x16x!tl.ptr<f32>>
    func.return
  }
}

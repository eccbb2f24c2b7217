// llc-compile = llc-optimize-layouts + llc-lower-to-simt. Asked for mma v3, which the SIMT
// lowering cannot lower, it picks mma v2 and says so; the dot becomes mma.sync m16n8k16.
// RUN: llc-opt -p 'llc-compile{mma-version=3}' %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err
// cuda:90's default (wgmma, which llc-optimize-layouts alone would pick) falls back the same way.
// RUN: llc-opt -p llc-compile %s 2>%t.err0 | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err0
// REMARK: remark: llc-compile: mma v3 cannot be lowered to SIMT code; using mma v2 (mma.sync m16n8k16)
// CHECK-LABEL: func.func @dot
// CHECK: simt.mma_m16n8k16 {{.*}} : vector<8xf16>, vector<4xf16>, vector<4xf32>
// CHECK-NOT: tensor<
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @dot(%a_ptr: !tl.ptr<f16>, %b_ptr: !tl.ptr<f16>, %c_ptr: !tl.ptr<f32>) {
    %rm = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %c32 = arith.constant 32 : i32
    %r2 = tl.expand_dims %rm {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %c2 = tl.expand_dims %rm {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %rows = tl.broadcast %r2 : tensor<32x1xi32> -> tensor<32x32xi32>
    %cols = tl.broadcast %c2 : tensor<1x32xi32> -> tensor<32x32xi32>
    %s = tl.splat %c32 : i32 -> tensor<32x32xi32>
    %ro = arith.muli %rows, %s : tensor<32x32xi32>
    %off = arith.addi %ro, %cols : tensor<32x32xi32>
    %ab = tl.splat %a_ptr : !tl.ptr<f16> -> tensor<32x32x!tl.ptr<f16>>
    %ap = tl.addptr %ab, %off : tensor<32x32x!tl.ptr<f16>>, tensor<32x32xi32>
    %a = tl.load %ap : tensor<32x32x!tl.ptr<f16>>
    %bb = tl.splat %b_ptr : !tl.ptr<f16> -> tensor<32x32x!tl.ptr<f16>>
    %bp = tl.addptr %bb, %off : tensor<32x32x!tl.ptr<f16>>, tensor<32x32xi32>
    %b = tl.load %bp : tensor<32x32x!tl.ptr<f16>>
    %z = tl.constant 0.0 : tensor<32x32xf32>
    %d = tl.dot %a, %b, %z : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %cb = tl.splat %c_ptr : !tl.ptr<f32> -> tensor<32x32x!tl.ptr<f32>>
    %cp = tl.addptr %cb, %off : tensor<32x32x!tl.ptr<f32>>, tensor<32x32xi32>
    tl.store %cp, %d : tensor<32x32x!tl.ptr<f32>>
    func.return
  }
}

// llc-compile = llc-optimize-layouts + llc-lower-to-simt. On cuda:90 the 64x64 dot gets mma v3:
// wgmma reading both operands from 1024-byte aligned, 128-byte swizzled buffers through
// descriptors, fenced for the async proxy, one wgmma per K step of 16 between wgmma.fence and
// commit_group, then wait_group 0; no remark (nothing falls back).
// RUN: llc-opt -p llc-compile %s 2>%t.err | filecheck %s
// RUN: llc-opt -p 'llc-compile{mma-version=3}' %s 2>%t.err3 | filecheck %s
// RUN: cat %t.err %t.err3 | filecheck %s --check-prefix=REMARK --allow-empty
// REMARK-NOT: remark
// CHECK-LABEL: func.func @dot
// CHECK: simt.shared_alloc : !simt.smem<8192, align 1024>
// CHECK: simt.shared_alloc : !simt.smem<8192, align 1024>
// CHECK: simt.fence_async_shared
// CHECK-NEXT: "gpu.barrier"
// CHECK: simt.wgmma_fence
// CHECK-COUNT-4: simt.wgmma {{.*}} n = 64 a = f16 b = f16
// CHECK-NEXT: simt.wgmma_commit_group
// CHECK-NEXT: simt.wgmma_wait_group 0
// CHECK-NOT: simt.mma_m16n8k16
// CHECK-NOT: tensor<
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @dot(%a_ptr: !tl.ptr<f16>, %b_ptr: !tl.ptr<f16>, %c_ptr: !tl.ptr<f32>) {
    %rm = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c32 = arith.constant 64 : i32
    %r2 = tl.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c2 = tl.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %rows = tl.broadcast %r2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %cols = tl.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %s = tl.splat %c32 : i32 -> tensor<64x64xi32>
    %ro = arith.muli %rows, %s : tensor<64x64xi32>
    %off = arith.addi %ro, %cols : tensor<64x64xi32>
    %ab = tl.splat %a_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %ap = tl.addptr %ab, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %a = tl.load %ap : tensor<64x64x!tl.ptr<f16>>
    %bb = tl.splat %b_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %bp = tl.addptr %bb, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %b = tl.load %bp : tensor<64x64x!tl.ptr<f16>>
    %z = tl.constant 0.0 : tensor<64x64xf32>
    %d = tl.dot %a, %b, %z : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %cb = tl.splat %c_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %cp = tl.addptr %cb, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %cp, %d : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

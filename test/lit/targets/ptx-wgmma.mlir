// -t ptx: simt.wgmma and its synchronisation as Hopper PTX. Descriptors are i64 values whose
// start address is relative to the shared buffer; the emitter adds the buffer's shared address
// (>> 4, bits 0-13). The accumulator is updated in place (no moves between wgmma and the wait),
// and a module using wgmma targets sm_90a.
// RUN: llc-opt %s -t ptx | filecheck %s
// RUN: llc-opt %s -t ptx > %t.ptx && python3 -c "import sys; from llc.testing.ptxas import assemble; print(repr(assemble(open(sys.argv[1]).read(), 'sm_90a')))" %t.ptx | filecheck %s --check-prefix=PTXAS
// RUN: not llc-opt %s -t 'ptx{arch=sm_80}' 2>&1 | filecheck %s --check-prefix=SM80
builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
  func.func @mm(%p: !tl.ptr<f32>) attributes {llc.num_warps = 4 : i32, llc.threads_per_warp = 32 : i32} {
    %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %c16 = arith.constant 16 : index
    %addr = arith.muli %tid, %c16 : index
    %s = simt.shared_alloc : !simt.smem<8192, align 1024>
    %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : vector<8xf16>
    simt.shared_store %v, %s[%addr] : vector<8xf16>, !simt.smem<8192, align 1024>
    simt.fence_async_shared
    "gpu.barrier"() : () -> ()
    %zero = arith.constant dense<0.0> : vector<16xf32>
    %da = arith.constant 4611686293305294848 : i64
    %db = arith.constant 4611686293305294976 : i64
    %areg = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : vector<8xf16>
    simt.wgmma_fence
    %d0 = simt.wgmma %da, %db, %zero, %s n = 32 a = f16 b = f16 trans_b : i64, vector<16xf32>, !simt.smem<8192, align 1024>
    %d1 = simt.wgmma %areg, %db, %d0, %s n = 32 a = f16 b = f16 : vector<8xf16>, vector<16xf32>, !simt.smem<8192, align 1024>
    simt.wgmma_commit_group
    %r = simt.wgmma_wait_group 0 (%d1) : (vector<16xf32>) -> vector<16xf32>
    %x = vector.extract %r[0] : f32 from vector<16xf32>
    %base = simt.ptr_to_int %p : !tl.ptr<f32>
    %true = arith.constant true
    %xv = vector.broadcast %x : f32 to vector<1xf32>
    simt.global_store %xv, %base, %true : vector<1xf32>
    func.return
  }
  func.func @mm8(%p: !tl.ptr<i32>) attributes {llc.num_warps = 4 : i32, llc.threads_per_warp = 32 : i32} {
    %s = simt.shared_alloc : !simt.smem<8192, align 1024>
    %zero = arith.constant dense<0> : vector<4xi32>
    %da = arith.constant 4611686293305294848 : i64
    simt.wgmma_fence
    %d0 = simt.wgmma %da, %da, %zero, %s n = 8 a = i8 b = i8 : i64, vector<4xi32>, !simt.smem<8192, align 1024>
    simt.wgmma_commit_group
    %r = simt.wgmma_wait_group 0 (%d0) : (vector<4xi32>) -> vector<4xi32>
    %base = simt.ptr_to_int %p : !tl.ptr<i32>
    %true = arith.constant true
    %x = vector.extract %r[3] : i32 from vector<4xi32>
    %xv = vector.broadcast %x : i32 to vector<1xi32>
    simt.global_store %xv, %base, %true : vector<1xi32>
    func.return
  }
}

// CHECK:       .target sm_90a
// CHECK-LABEL: .visible .entry mm(
// CHECK:       mov.u64 [[SMEM:%rd[0-9]+]], __llc_smem0;
// CHECK:       fence.proxy.async.shared::cta;
// CHECK-NEXT:  bar.sync 0;
// The first accumulator is copied and A's fragment packed before the fence, so that nothing but
// wgmma touches registers between the fence and the wait.
// CHECK:       mov.f32 [[D0:%f[0-9]+]], [[ZERO:%f[0-9]+]];
// CHECK:       mov.b32 [[A0:%r[0-9]+]], {{{%h[0-9]+}}, {{%h[0-9]+}}};
// CHECK:       wgmma.fence.sync.aligned;
// CHECK-NEXT:  shr.u64 [[T:%rd[0-9]+]], [[SMEM]], 4;
// CHECK-NEXT:  and.b64 [[T]], [[T]], 16383;
// CHECK-NEXT:  add.s64 [[DA:%rd[0-9]+]], {{%rd[0-9]+}}, [[T]];
// CHECK:       wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {[[D0]], {{.*}}}, [[DA]], {{%rd[0-9]+}}, {{%p[0-9]+}}, 1, 1, 0, 1;
// CHECK-NOT:   mov.b32 {{%r[0-9]+}}, {
// CHECK:       wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {[[D0]], {{.*}}}, {[[A0]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, {{%rd[0-9]+}}, {{%p[0-9]+}}, 1, 1, 0;
// CHECK-NEXT:  wgmma.commit_group.sync.aligned;
// CHECK-NEXT:  wgmma.wait_group.sync.aligned 0;
// CHECK:       mov.b32 {{%r[0-9]+}}, [[D0]];
// CHECK-LABEL: .visible .entry mm8(
// CHECK:       wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%p[0-9]+}};

// PTXAS: ''
// SM80: ptx-wgmma.mlir:16:5: error: 'simt.fence_async_shared' op -t ptx: simt.fence_async_shared needs Hopper (tl.target cuda:90, sm_90a), not sm_80

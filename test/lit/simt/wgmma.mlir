// The wgmma ops print in their custom syntax and round-trip through the generic form.
// RUN: llc-opt %s | filecheck %s
// RUN: LLC_ROUNDTRIP

func.func @wgmma(%da: i64, %db: i64, %c: vector<32xf32>, %a: vector<8xbf16>, %c8: vector<4xf32>, %a8: vector<16xf8E4M3FN>) -> (vector<32xf32>, vector<4xf32>) {
  %s = simt.shared_alloc : !simt.smem<16384, align 1024>
  simt.fence_async_shared
  "gpu.barrier"() : () -> ()
  simt.wgmma_fence
  %d = simt.wgmma %da, %db, %c, %s n = 64 a = bf16 b = bf16 trans_a trans_b : i64, vector<32xf32>, !simt.smem<16384, align 1024>
  %e = simt.wgmma %a, %db, %d, %s n = 64 a = bf16 b = bf16 : vector<8xbf16>, vector<32xf32>, !simt.smem<16384, align 1024>
  %f = simt.wgmma %a8, %db, %c8, %s n = 8 a = f8E4M3FN b = f8E5M2 : vector<16xf8E4M3FN>, vector<4xf32>, !simt.smem<16384, align 1024>
  simt.wgmma_commit_group
  %r:2 = simt.wgmma_wait_group 1 (%e, %f) : (vector<32xf32>, vector<4xf32>) -> (vector<32xf32>, vector<4xf32>)
  func.return %r#0, %r#1 : vector<32xf32>, vector<4xf32>
}

// CHECK:      simt.fence_async_shared
// CHECK:      simt.wgmma_fence
// CHECK-NEXT: %d = simt.wgmma %da, %db, %c, %s n = 64 a = bf16 b = bf16 trans_a trans_b : i64, vector<32xf32>, !simt.smem<16384, align 1024>
// CHECK-NEXT: %e = simt.wgmma %a, %db, %d, %s n = 64 a = bf16 b = bf16 : vector<8xbf16>, vector<32xf32>, !simt.smem<16384, align 1024>
// CHECK:      simt.wgmma_commit_group
// CHECK-NEXT: %r, %r_1 = simt.wgmma_wait_group 1(%e, %f) : (vector<32xf32>, vector<4xf32>) -> (vector<32xf32>, vector<4xf32>)

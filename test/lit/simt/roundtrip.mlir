// The simt dialect prints in its custom syntax and round-trips through the generic form.
// RUN: llc-opt %s | filecheck %s
// RUN: LLC_ROUNDTRIP
// RUN: xdsl-opt %s | filecheck %s

func.func @ops(%v: vector<2xf16>, %w: vector<4xf32>) -> vector<4xf32> {
  %lane = "gpu.lane_id"() : () -> index
  %y = simt.shuffle "bfly" %v, %lane c = 31 mask = -1 : vector<2xf16>
  %z = simt.shuffle "up" %v, %lane c = 6144 mask = 4294967295 : vector<2xf16>
  %s = simt.shared_alloc : !simt.smem<4096, align 16>
  simt.shared_store %w, %s[%lane] : vector<4xf32>, !simt.smem<4096, align 16>
  "gpu.barrier"() : () -> ()
  %r = simt.shared_load %s[%lane] : !simt.smem<4096, align 16> -> vector<4xf32>
  %m = simt.ldmatrix %s[%lane] x 4 trans : !simt.smem<4096, align 16> -> vector<8xf16>
  simt.stmatrix %m, %s[%lane] x 4 : vector<8xf16>, !simt.smem<4096, align 16>
  func.return %r : vector<4xf32>
}

// CHECK:      %y = simt.shuffle "bfly" %v, %lane c = 31 mask = -1 : vector<2xf16>
// CHECK-NEXT: %z = simt.shuffle "up" %v, %lane c = 6144 mask = 4294967295 : vector<2xf16>
// CHECK-NEXT: %s = simt.shared_alloc : !simt.smem<4096, align 16>
// CHECK-NEXT: simt.shared_store %w, %s[%lane] : vector<4xf32>, !simt.smem<4096, align 16>
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %r = simt.shared_load %s[%lane] : !simt.smem<4096, align 16> -> vector<4xf32>
// CHECK-NEXT: %m = simt.ldmatrix %s[%lane] x 4 trans : !simt.smem<4096, align 16> -> vector<8xf16>
// CHECK-NEXT: simt.stmatrix %m, %s[%lane] x 4 : vector<8xf16>, !simt.smem<4096, align 16>

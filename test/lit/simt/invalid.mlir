// One verifier message per chunk.
// RUN: llc-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @f(%v: vector<2xf32>, %i: index) {
  %y = simt.shuffle "bfly" %v, %i c = 31 mask = -1 : vector<2xf32>
  func.return
}
// CHECK: shfl.sync moves 32 bits per lane, vector<2xf32> has 64

// -----

func.func @f(%v: vector<1xf32>, %i: index) {
  %y = simt.shuffle "rotate" %v, %i c = 31 mask = -1 : vector<1xf32>
  func.return
}
// CHECK: shuffle mode 'rotate' is not one of idx, bfly, up, down

// -----

func.func @f(%v: vector<8xf32>, %i: index) {
  %s = simt.shared_alloc : !simt.smem<4096, align 16>
  simt.shared_store %v, %s[%i] : vector<8xf32>, !simt.smem<4096, align 16>
  func.return
}
// CHECK: a shared-memory access moves 8, 16, 32, 64 or 128 bits per thread, vector<8xf32> has 256

// -----

func.func @f(%i: index) {
  %s = simt.shared_alloc : !simt.smem<4096, align 12>
  func.return
}
// CHECK: simt.smem: alignment 12 must be a power of two

// -----

func.func @f(%i: index) {
  %s = simt.shared_alloc : !simt.smem<8, align 4>
  %r = simt.shared_load %s[%i] : !simt.smem<8, align 4> -> vector<4xf32>
  func.return
}
// CHECK: vector<4xf32> does not fit in !simt.smem<8, align 4>

// -----

func.func @f(%i: index) {
  %s = simt.shared_alloc : !simt.smem<4096, align 16>
  %m = simt.ldmatrix %s[%i] x 3 : !simt.smem<4096, align 16> -> vector<6xf16>
  func.return
}
// CHECK: simt.ldmatrix: count 3 must be 1, 2 or 4 (.x1, .x2, .x4)

// -----

func.func @f(%v: vector<4xf32>, %i: index) {
  %s = simt.shared_alloc : !simt.smem<4096, align 16>
  simt.stmatrix %v, %s[%i] x 2 : vector<4xf32>, !simt.smem<4096, align 16>
  func.return
}
// CHECK: simt.stmatrix.x2 moves vector<4x16-bit> per thread (two b16 elements of each 8x8 matrix), got vector<4xf32>

// -----

func.func @f(%d: i64, %c: vector<4xf32>) {
  %s = simt.shared_alloc : !simt.smem<4096, align 1024>
  %r = simt.wgmma %d, %d, %c, %s n = 8 a = f8E4M3FN b = f8E4M3FN trans_b : i64, vector<4xf32>, !simt.smem<4096, align 1024>
  func.return
}
// CHECK: simt.wgmma: only f16/bf16 operands can be M/N-major (trans), not e4m3

// -----

func.func @f(%d: i64, %c: vector<8xf32>) {
  %s = simt.shared_alloc : !simt.smem<4096, align 1024>
  %r = simt.wgmma %d, %d, %c, %s n = 8 a = f16 b = f16 : i64, vector<8xf32>, !simt.smem<4096, align 1024>
  func.return
}
// CHECK: simt.wgmma: the m64n8 accumulator is vector<4xf32>, got vector<8xf32>

// -----

func.func @f(%d: i64, %c: vector<4xf32>) {
  %s = simt.shared_alloc : !simt.smem<4096, align 1024>
  %r = simt.wgmma %d, %d, %c, %s n = 8 a = f16 b = bf16 : i64, vector<4xf32>, !simt.smem<4096, align 1024>
  func.return
}
// CHECK: simt.wgmma: A is f16 and B is bf16

// -----

func.func @f(%a: vector<4xf16>, %d: i64, %c: vector<4xf32>) {
  %s = simt.shared_alloc : !simt.smem<4096, align 1024>
  %r = simt.wgmma %a, %d, %c, %s n = 8 a = f16 b = f16 : vector<4xf16>, vector<4xf32>, !simt.smem<4096, align 1024>
  func.return
}
// CHECK: simt.wgmma: A in registers is vector<8xf16>, got vector<4xf16>

// MXFP and mixed precision ops: tl.fp4_to_fp (layout-checked unpack), tl.dot_scaled, and tl.dot
// with an integer and a float operand; round trip, interpreter values and verifier errors.
// RUN: llc-opt %S/Inputs/mxfp.mlir | filecheck %s --check-prefix=RT
// RT: tl.fp4_to_fp %{{.*}} {axis = 1 : i32} : (tensor<16x32xi8, #{{.*}}>) -> tensor<16x64xf32, #{{.*}}>
// RT: tl.dot_scaled %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {lhs = "e2m1", rhs = "e2m1"}
// RT: tl.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x2xi8> * tensor<2x2xf8E4M3FN> -> tensor<2x2xf32>

// Byte 0x21 holds 1 (0.5) low and 2 (1.0) high; 0xF3 = -13 holds 3 (1.5) low and 15 (-6) high.
// RUN: llc-run %S/Inputs/mxfp.mlir --entry small --args '[[33,-13]]' | filecheck %s --check-prefix=UNPACK
// UNPACK: {{\[\[}} 0.5  1.   1.5 -6. ]]

// 32 elements of value 1 (0x22 = two 1.0) x scale 2^(128-127) on each side, plus 0.5.
// RUN: llc-run %S/Inputs/mxfp.mlir --entry scaled --args "[[34,34,34,34,34,34,34,34,34,34,34,34,34,34,34,34]]" "[[-128]]" "[[34],[34],[34],[34],[34],[34],[34],[34],[34],[34],[34],[34],[34],[34],[34],[34]]" "[[-128]]" "[[0.5]]" | filecheck %s --check-prefix=SCALED
// SCALED: {{\[\[}}128.5]]

// 17 is not an f8E4M3FN value: the i8 operand rounds to 16 (ties to even) before the product.
// RUN: llc-run %S/Inputs/mxfp.mlir --entry mixed --args '[[17,0],[0,1]]' '[[1,0],[0,1]]' '[[0,0],[0,0]]' | filecheck %s --check-prefix=MIXED
// MIXED: {{\[\[}}16.  0.]

// RUN: llc-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

#p = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>
func.func @same_layout(%x: tensor<16x32xi8, #p>) {
  %y = tl.fp4_to_fp %x {axis = 1 : i32} : (tensor<16x32xi8, #p>) -> tensor<16x64xf32, #p>
  func.return
}
// CHECK: tl.fp4_to_fp: result encoding must be the unpacked layout of the operand's (each byte's two values in the same thread, consecutive along axis 1); expected register bases {{\[\[}}0, 1], [0, 2], [0, 4]], lane bases {{\[\[}}0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]

// -----

func.func @not_doubled(%x: tensor<16x32xi8>) {
  %y = tl.fp4_to_fp %x {axis = 0 : i32} : (tensor<16x32xi8>) -> tensor<16x64xf32>
  func.return
}
// CHECK: tl.fp4_to_fp: result shape must be [32, 32] (axis 0 doubled), got [16, 64]

// -----

func.func @not_bytes(%x: tensor<16x32xi16>) {
  %y = tl.fp4_to_fp %x {axis = 1 : i32} : (tensor<16x32xi16>) -> tensor<16x64xf32>
  func.return
}
// CHECK: tl.fp4_to_fp: operand must be i8 (two e2m1 per byte), got i16

// -----

func.func @bad_scale(%a: tensor<4x32xi8>, %as: tensor<4x1xi8>, %b: tensor<32x8xi8>, %bs: tensor<8x1xi8>, %c: tensor<4x8xf32>) {
  %d = tl.dot_scaled %a, %as, %b, %bs, %c {lhs = "e2m1", rhs = "e2m1"} : (tensor<4x32xi8>, tensor<4x1xi8>, tensor<32x8xi8>, tensor<8x1xi8>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return
}
// CHECK: tl.dot_scaled: a_scale must be 4x2 or 4x4 (one scale per 32 or 16 along K), got [4, 1]

// -----

func.func @k_mismatch(%a: tensor<4x32xi8>, %as: tensor<4x2xi8>, %b: tensor<32x8xi8>, %bs: tensor<8x2xi8>, %c: tensor<4x8xf32>) {
  %d = tl.dot_scaled %a, %as, %b, %bs, %c {lhs = "e2m1", rhs = "e4m3"} : (tensor<4x32xi8>, tensor<4x2xi8>, tensor<32x8xi8>, tensor<8x2xi8>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return
}
// CHECK: tl.dot_scaled: K mismatch: a has K = 64, b has K = 32 (e2m1 counts 2 per byte)

// -----

func.func @bad_format(%a: tensor<4x32xi8>, %as: tensor<4x2xi8>, %b: tensor<64x8xi8>, %bs: tensor<8x2xi8>, %c: tensor<4x8xf32>) {
  %d = tl.dot_scaled %a, %as, %b, %bs, %c {lhs = "e3m2", rhs = "e4m3"} : (tensor<4x32xi8>, tensor<4x2xi8>, tensor<64x8xi8>, tensor<8x2xi8>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return
}
// CHECK: tl.dot_scaled: lhs format 'e3m2' is not one of ['e2m1', 'e4m3', 'e5m2', 'bf16', 'fp16']

// -----

func.func @float_float(%a: tensor<16x16xf16>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  %d = tl.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xf32> -> tensor<16x16xf32>
  func.return
}
// CHECK: tl.dot: a and b element types differ: f16 vs f32 (mixed precision needs one integer and one float operand)

// -----

func.func @int_acc(%a: tensor<16x16xi8>, %b: tensor<16x16xf16>, %c: tensor<16x16xi32>) {
  %d = tl.dot %a, %b, %c : tensor<16x16xi8> * tensor<16x16xf16> -> tensor<16x16xi32>
  func.return
}
// CHECK: tl.dot: a mixed-precision dot (i8 x f16) accumulates in a float type, got i32

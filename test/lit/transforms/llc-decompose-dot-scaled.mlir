// llc-decompose-dot-scaled: tl.dot_scaled becomes unpack (tl.fp4_to_fp) / f8 decoding, e8m0
// scale factors 2^(s - 127) by their bits (s = 0: 0x00400000, s = 255: NaN 0x7FC00000) repeated
// over 32 elements along K, a multiply, a rounding to the compute type and an ordinary tl.dot.
// RUN: llc-opt %s -p llc-decompose-dot-scaled --split-input-file | filecheck %s

func.func @e2m1_e4m3(%a: tensor<16x32xi8>, %as: tensor<16x2xi8>, %b: tensor<64x16xi8>, %bs: tensor<16x2xi8>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tl.dot_scaled %a, %as, %b, %bs, %acc {lhs = "e2m1", rhs = "e4m3"} : (tensor<16x32xi8>, tensor<16x2xi8>, tensor<64x16xi8>, tensor<16x2xi8>, tensor<16x16xf32>) -> tensor<16x16xf32>
  func.return %d : tensor<16x16xf32>
}
// CHECK-LABEL: func.func @e2m1_e4m3
// CHECK:      %[[A:.*]] = tl.fp4_to_fp %a {axis = 1 : i32} : (tensor<16x32xi8>) -> tensor<16x64xf32>
// CHECK:      tl.extui %as : tensor<16x2xi8> to tensor<16x2xi32>
// CHECK:      arith.constant dense<4194304> : tensor<16x2xi32>
// CHECK:      arith.constant dense<2143289344> : tensor<16x2xi32>
// CHECK:      tl.expand_dims %{{.*}} {axis = 2 : i32} : tensor<16x2xf32> -> tensor<16x2x1xf32>
// CHECK-NEXT: tl.broadcast %{{.*}} : tensor<16x2x1xf32> -> tensor<16x2x32xf32>
// CHECK-NEXT: %[[SA:.*]] = tl.reshape %{{.*}} : tensor<16x2x32xf32> -> tensor<16x64xf32>
// CHECK-NEXT: %[[AS:.*]] = arith.mulf %[[A]], %[[SA]] : tensor<16x64xf32>
// CHECK-NEXT: %[[A16:.*]] = arith.truncf %[[AS]] : tensor<16x64xf32> to tensor<16x64xbf16>
// e4m3: normal codes are (mag << 20) + (120 << 23) as f32 bits, subnormal ones mag * 2^-9,
// S.1111.111 is NaN, the sign bit negates.
// CHECK:      tl.extui %b : tensor<64x16xi8> to tensor<64x16xi32>
// CHECK:      arith.constant dense<1006632960> : tensor<64x16xi32>
// CHECK:      arith.constant dense<0.001953125> : tensor<64x16xf32>
// CHECK:      arith.constant dense<2143289344> : tensor<64x16xi32>
// CHECK:      arith.negf
// CHECK:      tl.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x2xf32> -> tensor<2x16xf32>
// CHECK:      tl.reshape %{{.*}} : tensor<2x32x16xf32> -> tensor<64x16xf32>
// CHECK:      %[[B16:.*]] = arith.truncf %{{.*}} : tensor<64x16xf32> to tensor<64x16xbf16>
// CHECK-NEXT: %[[D:.*]] = tl.dot %[[A16]], %[[B16]], %acc : tensor<16x64xbf16> * tensor<64x16xbf16> -> tensor<16x16xf32>
// CHECK-NEXT: func.return %[[D]]
// CHECK-NOT:  tl.dot_scaled

// -----

// An fp16 operand makes the compute type f16; an f16 result accumulates in f32 and is rounded.
func.func @fp16_e5m2(%a: tensor<16x32xf16>, %as: tensor<16x1xi8>, %b: tensor<32x16xi8>, %bs: tensor<16x1xi8>, %acc: tensor<16x16xf16>) -> tensor<16x16xf16> {
  %d = tl.dot_scaled %a, %as, %b, %bs, %acc {lhs = "fp16", rhs = "e5m2"} : (tensor<16x32xf16>, tensor<16x1xi8>, tensor<32x16xi8>, tensor<16x1xi8>, tensor<16x16xf16>) -> tensor<16x16xf16>
  func.return %d : tensor<16x16xf16>
}
// CHECK-LABEL: func.func @fp16_e5m2
// CHECK:      arith.extf %a : tensor<16x32xf16> to tensor<16x32xf32>
// CHECK:      arith.truncf %{{.*}} : tensor<16x32xf32> to tensor<16x32xf16>
// e5m2's all-ones exponent: 0x7F800000 | mantissa << 21 (inf or NaN)
// CHECK:      arith.constant dense<2139095040> : tensor<32x16xi32>
// CHECK:      arith.truncf %{{.*}} : tensor<32x16xf32> to tensor<32x16xf16>
// CHECK:      %[[ACC:.*]] = arith.extf %acc : tensor<16x16xf16> to tensor<16x16xf32>
// CHECK-NEXT: %[[D:.*]] = tl.dot %{{.*}}, %{{.*}}, %[[ACC]] : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[D]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK-NEXT: func.return %[[R]]

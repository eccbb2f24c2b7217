// llc-strip-layouts removes every tensor and shared-memory layout, and the convert_layout ops
// that then change nothing. The stock xdsl-opt runs it too (xdsl.universe entry point), and a
// second run changes nothing.
// RUN: llc-opt %s -p llc-strip-layouts | filecheck %s
// RUN: xdsl-opt %s -p llc-strip-layouts | filecheck %s
// RUN: llc-opt %s -p llc-strip-layouts | llc-opt -p llc-strip-layouts | filecheck %s
// The pass is listed by both tools' --help (COLUMNS: one line, so no wrapped name).
// RUN: env COLUMNS=100000 llc-opt --help | filecheck %s --check-prefix=HELP
// RUN: env COLUMNS=100000 xdsl-opt --help | filecheck %s --check-prefix=HELP
// HELP: Available passes are: {{.*}}llc-strip-layouts
// Nothing of the layouts is left anywhere in the output.
// RUN: llc-opt %s -p llc-strip-layouts | filecheck %s --check-prefix=NONE
// NONE-NOT: #tl.
// NONE-NOT: tl.convert_layout

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_t = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot_a = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#shared = #tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// The module attributes stay: layout assignment needs the hardware configuration.
// CHECK: builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32}
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32} {

  // Signatures lose their layouts; a conversion becomes a no-op and disappears.
  // CHECK-LABEL: func.func @signature(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // CHECK-NEXT:    func.return %x : tensor<32x32xf32>
  // CHECK-NEXT:  }
  func.func @signature(%x: tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #mma> {
    %y = tl.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #mma>
    func.return %y : tensor<32x32xf32, #mma>
  }

  // Constants, ranges, slices, reductions and elementwise ops keep their values and lose
  // their layouts. An unused conversion goes as well; other dead ops stay (no DCE).
  // CHECK-LABEL: func.func @rows(%x: tensor<32x32xf32>) -> tensor<32x1xf32> {
  // CHECK-NEXT:    %c = tl.constant 2.000000e+00 : tensor<32x32xf32>
  // CHECK-NEXT:    %scaled = arith.mulf %x, %c : tensor<32x32xf32>
  // CHECK-NEXT:    %dead = arith.addf %x, %x : tensor<32x32xf32>
  // CHECK-NEXT:    %sum = tl.reduce %scaled {axis = 1 : i32} : tensor<32x32xf32> -> tensor<32xf32> {
  // CHECK-NEXT:    ^bb0(%lhs: f32, %rhs: f32):
  // CHECK-NEXT:      %s = arith.addf %lhs, %rhs : f32
  // CHECK-NEXT:      tl.reduce.return %s : f32
  // CHECK-NEXT:    }
  // CHECK-NEXT:    %sum_2d = tl.expand_dims %sum {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  // CHECK-NEXT:    func.return %sum_2d : tensor<32x1xf32>
  // CHECK-NEXT:  }
  func.func @rows(%x: tensor<32x32xf32, #blocked>) -> tensor<32x1xf32, #blocked> {
    %c = tl.constant 2.0 : tensor<32x32xf32, #blocked>
    %scaled = arith.mulf %x, %c : tensor<32x32xf32, #blocked>
    %dead = arith.addf %x, %x : tensor<32x32xf32, #blocked>
    %unused = tl.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked_t>
    %sum = tl.reduce %scaled {axis = 1 : i32} : tensor<32x32xf32, #blocked> -> tensor<32xf32, #tl.slice<{dim = 1, parent = #blocked}>> {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      tl.reduce.return %s : f32
    }
    %sum_2d = tl.expand_dims %sum {axis = 1 : i32} : tensor<32xf32, #tl.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xf32, #blocked>
    func.return %sum_2d : tensor<32x1xf32, #blocked>
  }

  // Loop-carried values (block arguments) lose their layouts; a chain of conversions goes away
  // link by link. Shared memory stays, without its layout; the dot keeps its operands.
  // CHECK-LABEL: func.func @loop(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %n: i32) -> tensor<32x32xf32> {
  // CHECK:         %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) : i32 {
  // CHECK-NEXT:      %a_smem = tl.local_alloc %a : (tensor<32x32xf16>) -> !tl.memdesc<32x32xf16>
  // CHECK-NEXT:      %b_smem = tl.local_alloc : () -> !tl.memdesc<32x32xf16>
  // CHECK-NEXT:      tl.local_store %b, %b_smem : tensor<32x32xf16> -> !tl.memdesc<32x32xf16>
  // CHECK-NEXT:      %a_dot = tl.local_load %a_smem : !tl.memdesc<32x32xf16> -> tensor<32x32xf16>
  // CHECK-NEXT:      %b_dot = tl.local_load %b_smem : !tl.memdesc<32x32xf16> -> tensor<32x32xf16>
  // CHECK-NEXT:      tl.local_dealloc %a_smem : !tl.memdesc<32x32xf16>
  // CHECK-NEXT:      tl.local_dealloc %b_smem : !tl.memdesc<32x32xf16>
  // CHECK-NEXT:      %next = tl.dot %a_dot, %b_dot, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  // CHECK-NEXT:      scf.yield %next : tensor<32x32xf32>
  // CHECK-NEXT:    }
  // CHECK-NEXT:    func.return %acc : tensor<32x32xf32>
  func.func @loop(%a: tensor<32x32xf16, #blocked>, %b: tensor<32x32xf16, #blocked>, %n: i32) -> tensor<32x32xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = tl.constant 0.0 : tensor<32x32xf32, #mma>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32, #mma>) : i32 {
      %a_smem = tl.local_alloc %a : (tensor<32x32xf16, #blocked>) -> !tl.memdesc<32x32xf16, #shared>
      %b_smem = tl.local_alloc : () -> !tl.memdesc<32x32xf16, #shared>
      tl.local_store %b, %b_smem : tensor<32x32xf16, #blocked> -> !tl.memdesc<32x32xf16, #shared>
      %a_dot = tl.local_load %a_smem : !tl.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #dot_a>
      %b_dot = tl.local_load %b_smem : !tl.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #dot_b>
      tl.local_dealloc %a_smem : !tl.memdesc<32x32xf16, #shared>
      tl.local_dealloc %b_smem : !tl.memdesc<32x32xf16, #shared>
      %next = tl.dot %a_dot, %b_dot, %acc_i : tensor<32x32xf16, #dot_a> * tensor<32x32xf16, #dot_b> -> tensor<32x32xf32, #mma>
      scf.yield %next : tensor<32x32xf32, #mma>
    }
    %t = tl.convert_layout %acc : tensor<32x32xf32, #mma> -> tensor<32x32xf32, #blocked_t>
    %r = tl.convert_layout %t : tensor<32x32xf32, #blocked_t> -> tensor<32x32xf32, #blocked>
    func.return %r : tensor<32x32xf32, #blocked>
  }
}

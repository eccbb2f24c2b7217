// scf.while as branches: a tl kernel whose while loop carries a tensor pair that it swaps (a
// parallel move) and a counter. llc-compile lowers it to SIMT; llc-run on the lowered IR gives the
// tensor-level result (F(10) = 55 times the index); its PTX (head label, condition branch, back
// edge) assembles with no ptxas output.
// RUN: llc-opt -p llc-compile %s -o %t.simt.mlir
// RUN: rm -rf %t && mkdir -p %t
// RUN: llc-run %s --entry fib --args "zeros:256xi32" 10 --out %t/ref
// RUN: llc-run %t.simt.mlir --entry fib --args "zeros:256xi32" 10 --out %t/low
// RUN: python -c "import numpy as np; a = np.load('%t/ref/out.npy'); b = np.load('%t/low/out.npy'); assert np.array_equal(a, b) and np.array_equal(a, 55 * np.arange(256)), a[:4]; print('same')" | filecheck %s --check-prefix=SAME
// RUN: llc-opt %t.simt.mlir -t ptx > %t.ptx
// RUN: filecheck %s --input-file %t.ptx
// RUN: python -c "import sys; from llc.testing.ptxas import assemble; print(repr(assemble(open(sys.argv[1]).read(), 'sm_90')))" %t.ptx | filecheck %s --check-prefix=PTXAS
// SAME: same
// CHECK:      .visible .entry fib(
// CHECK:      $L_while_[[N:[0-9]+]]:
// CHECK:      setp.lt.s32 [[GO:%p[0-9]+]],
// CHECK:      @![[GO]] bra $L_endwhile_
// CHECK:      add.s32
// CHECK:      bra.uni $L_while_[[N]];
// CHECK-NEXT: $L_endwhile_
// CHECK:      st.global.v4.b32
// PTXAS: ''
module attributes {"tl.num-warps" = 2 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @fib(%out: !tl.ptr<i32> {tl.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = tl.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %zero = arith.constant dense<0> : tensor<256xi32>
    %res:3 = scf.while (%a = %zero, %b = %r, %i = %c0) : (tensor<256xi32>, tensor<256xi32>, i32) -> (tensor<256xi32>, tensor<256xi32>, i32) {
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %a, %b, %i : tensor<256xi32>, tensor<256xi32>, i32
    } do {
    ^bb0(%x: tensor<256xi32>, %y: tensor<256xi32>, %j: i32):
      %s = arith.addi %x, %y : tensor<256xi32>
      %j1 = arith.addi %j, %c1 : i32
      scf.yield %y, %s, %j1 : tensor<256xi32>, tensor<256xi32>, i32
    }
    %base = tl.splat %out : !tl.ptr<i32> -> tensor<256x!tl.ptr<i32>>
    %ptrs = tl.addptr %base, %r : tensor<256x!tl.ptr<i32>>, tensor<256xi32>
    tl.store %ptrs, %res#0 : tensor<256x!tl.ptr<i32>>
    func.return
  }
}

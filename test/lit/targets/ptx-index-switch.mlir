// scf.index_switch as branches: one compare and branch per case, the default last. The SIMT
// interpreter picks case 5, case 2 and the default; the PTX assembles with no ptxas output.
// RUN: rm -rf %t && mkdir -p %t
// RUN: llc-run %s --entry k --args "zeros:1xi32" 5 --out %t/five
// RUN: llc-run %s --entry k --args "zeros:1xi32" 2 --out %t/two
// RUN: llc-run %s --entry k --args "zeros:1xi32" 7 --out %t/seven
// RUN: python -c "import numpy as np; print([int(np.load('%t/' + d + '/p.npy')[0]) for d in ('five', 'two', 'seven')])" | filecheck %s --check-prefix=VALUES
// RUN: llc-opt %s -t ptx > %t.ptx
// RUN: filecheck %s --input-file %t.ptx
// RUN: python -c "import sys; from llc.testing.ptxas import assemble; print(repr(assemble(open(sys.argv[1]).read(), 'sm_90')))" %t.ptx | filecheck %s --check-prefix=PTXAS
// VALUES: [50, 20, -1]
// CHECK:      setp.ne.s64 [[P:%p[0-9]+]], [[I:%rd[0-9]+]], 2;
// CHECK-NEXT: @[[P]] bra $L_case_[[C1:[0-9]+]];
// CHECK:      bra.uni $L_endswitch_[[E:[0-9]+]];
// CHECK-NEXT: $L_case_[[C1]]:
// CHECK-NEXT: setp.ne.s64 [[Q:%p[0-9]+]], [[I]], 5;
// CHECK:      $L_endswitch_[[E]]:
// CHECK:      st.global.b32
// PTXAS: ''
builtin.module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
  func.func @k(%p: !tl.ptr<i32>, %n: i32) attributes {llc.num_warps = 1 : i32, llc.threads_per_warp = 32 : i32} {
    %a = simt.ptr_to_int %p : !tl.ptr<i32>
    %i = arith.index_cast %n : i32 to index
    %r = scf.index_switch %i -> vector<1xi32>
    case 2 {
      %c = arith.constant dense<20> : vector<1xi32>
      scf.yield %c : vector<1xi32>
    }
    case 5 {
      %c = arith.constant dense<50> : vector<1xi32>
      scf.yield %c : vector<1xi32>
    }
    default {
      %c = arith.constant dense<-1> : vector<1xi32>
      scf.yield %c : vector<1xi32>
    }
    %m = arith.constant true
    simt.global_store %r, %a, %m : vector<1xi32>
    func.return
  }
}

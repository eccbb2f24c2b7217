// -t ptx: simt.ldmatrix / simt.stmatrix as PTX ldmatrix / stmatrix (.m8n8, .x1/.x2/.x4, .trans,
// .shared.b16). Each 32-bit register holds one matrix's two b16 elements, the first in the low
// half (the SIMT interpreter's order): loads unpack with mov.b32 {lo, hi}, stores pack with it.
// ldmatrix needs sm_75+, stmatrix sm_90+: @st assembles for sm_90 only, @ld for sm_80 too.
// RUN: llc-opt %s -t ptx | filecheck %s
// RUN: llc-opt %s -t ptx > %t.ptx && python3 -c "import sys; from llc.testing.ptxas import assemble; print(repr(assemble(open(sys.argv[1]).read(), 'sm_90')))" %t.ptx | filecheck %s --check-prefix=PTXAS
// RUN: llc-opt %s -t 'ptx{arch=sm_80}' > %t80.ptx && not python3 -c "import sys; from llc.testing.ptxas import assemble; assemble(open(sys.argv[1]).read(), 'sm_80')" %t80.ptx 2>&1 | filecheck %s --check-prefix=SM80
builtin.module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
  func.func @ld(%p: !tl.ptr<f16>) attributes {llc.num_warps = 1 : i32, llc.threads_per_warp = 32 : i32} {
    %lane = "gpu.lane_id"() : () -> index
    %c16 = arith.constant 16 : index
    %row = arith.muli %lane, %c16 : index
    %smem = simt.shared_alloc : !simt.smem<512, align 16>
    %x4 = simt.ldmatrix %smem[%row] x 4 : !simt.smem<512, align 16> -> vector<8xf16>
    %x2 = simt.ldmatrix %smem[%row] x 2 trans : !simt.smem<512, align 16> -> vector<4xbf16>
    %x1 = simt.ldmatrix %smem[%row] x 1 : !simt.smem<512, align 16> -> vector<2xi16>
    "gpu.barrier"() : () -> ()
    simt.shared_store %x1, %smem[%row] : vector<2xi16>, !simt.smem<512, align 16>
    simt.shared_store %x2, %smem[%row] : vector<4xbf16>, !simt.smem<512, align 16>
    simt.shared_store %x4, %smem[%row] : vector<8xf16>, !simt.smem<512, align 16>
    func.return
  }
  func.func @st(%p: !tl.ptr<f16>) attributes {llc.num_warps = 1 : i32, llc.threads_per_warp = 32 : i32} {
    %lane = "gpu.lane_id"() : () -> index
    %c16 = arith.constant 16 : index
    %row = arith.muli %lane, %c16 : index
    %smem = simt.shared_alloc : !simt.smem<512, align 16>
    %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : vector<8xf16>
    %h = arith.constant dense<[1, 2, 3, 4]> : vector<4xi16>
    %one = arith.constant dense<[1.0, 2.0]> : vector<2xbf16>
    simt.stmatrix %v, %smem[%row] x 4 trans : vector<8xf16>, !simt.smem<512, align 16>
    simt.stmatrix %h, %smem[%row] x 2 : vector<4xi16>, !simt.smem<512, align 16>
    simt.stmatrix %one, %smem[%row] x 1 : vector<2xbf16>, !simt.smem<512, align 16>
    func.return
  }
}

// CHECK-LABEL: .visible .entry ld(
// CHECK:       mov.u64 [[BASE:%rd[0-9]+]], __llc_smem0;
// CHECK:       add.s64 [[A4:%rd[0-9]+]], [[BASE]], {{%rd[0-9]+}};
// CHECK-NEXT:  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[R0:%r[0-9]+]], [[R1:%r[0-9]+]], [[R2:%r[0-9]+]], [[R3:%r[0-9]+]]}, [[[A4]]];
// CHECK-NEXT:  mov.b32 {[[E0:%h[0-9]+]], [[E1:%h[0-9]+]]}, [[R0]];
// CHECK-NEXT:  mov.b32 {{{%h[0-9]+}}, {{%h[0-9]+}}}, [[R1]];
// CHECK-NEXT:  mov.b32 {{{%h[0-9]+}}, {{%h[0-9]+}}}, [[R2]];
// CHECK-NEXT:  mov.b32 {{{%h[0-9]+}}, {{%h[0-9]+}}}, [[R3]];
// CHECK:       ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {[[T0:%r[0-9]+]], [[T1:%r[0-9]+]]}, [{{%rd[0-9]+}}];
// CHECK:       ldmatrix.sync.aligned.m8n8.x1.shared.b16 {[[S0:%r[0-9]+]]}, [{{%rd[0-9]+}}];
// CHECK-NEXT:  mov.b32 {[[L0:%h[0-9]+]], [[L1:%h[0-9]+]]}, [[S0]];
// CHECK:       bar.sync 0;
// The x1 result goes back to memory as the same word: element 0 low, element 1 high.
// CHECK:       mov.b32 [[W:%r[0-9]+]], {[[L0]], [[L1]]};
// CHECK-NEXT:  st.shared.b32 [{{%rd[0-9]+}}], [[W]];
// CHECK:       st.shared.v2.b32 [{{%rd[0-9]+}}], {{{.*}}};
// CHECK:       st.shared.v4.b32 [{{%rd[0-9]+}}], {{{.*}}};

// CHECK-LABEL: .visible .entry st(
// CHECK:       mov.b16 [[ONE:%h[0-9]+]], 0x3C00;
// CHECK-NEXT:  mov.b16 [[TWO:%h[0-9]+]], 0x4000;
// CHECK:       mov.b32 [[V0:%r[0-9]+]], {[[ONE]], [[TWO]]};
// CHECK-NEXT:  mov.b32 [[V1:%r[0-9]+]], {{{%h[0-9]+}}, {{%h[0-9]+}}};
// CHECK-NEXT:  mov.b32 [[V2:%r[0-9]+]], {{{%h[0-9]+}}, {{%h[0-9]+}}};
// CHECK-NEXT:  mov.b32 [[V3:%r[0-9]+]], {{{%h[0-9]+}}, {{%h[0-9]+}}};
// CHECK:       stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [{{%rd[0-9]+}}], {[[V0]], [[V1]], [[V2]], [[V3]]};
// CHECK:       stmatrix.sync.aligned.m8n8.x2.shared.b16 [{{%rd[0-9]+}}], {{{%r[0-9]+}}, {{%r[0-9]+}}};
// CHECK:       stmatrix.sync.aligned.m8n8.x1.shared.b16 [{{%rd[0-9]+}}], {{{%r[0-9]+}}};

// PTXAS: ''

// SM80: Feature 'stmatrix' requires .target sm_90 or higher
// SM80-NOT: ldmatrix

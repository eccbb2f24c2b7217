// -t ptx: one handler per op. This hand-written kernel reaches what the examples do not: lane and
// warp ids, packed f16 shuffles, i8 packing for shared memory, vector.bitcast, scf.if with results,
// an scf.for that swaps its loop-carried values, i1 selects, bf16 and index casts.
// RUN: llc-opt %s -t ptx | filecheck %s
// RUN: llc-opt %s -t 'ptx{arch=sm_80}' | filecheck %s --check-prefix=SM80
// RUN: llc-opt %s -t ptx > %t.ptx && python3 -c "import sys; from llc.testing.ptxas import assemble; print(repr(assemble(open(sys.argv[1]).read(), 'sm_90')))" %t.ptx | filecheck %s --check-prefix=PTXAS
// RUN: llc-opt %s -t 'ptx{arch=sm_80}' > %t80.ptx && python3 -c "import sys; from llc.testing.ptxas import assemble; print(repr(assemble(open(sys.argv[1]).read(), 'sm_80')))" %t80.ptx | filecheck %s --check-prefix=PTXAS
builtin.module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
  func.func @k(%p: !tl.ptr<f16>, %n: i32, %flag: i1) attributes {llc.num_warps = 1 : i32, llc.threads_per_warp = 32 : i32} {
    %lane = "gpu.lane_id"() : () -> index
    %warp = "gpu.subgroup_id"() : () -> index
    %a = simt.ptr_to_int %p : !tl.ptr<f16>
    %c1 = arith.constant 1 : index
    %t = arith.constant true
    %v = arith.constant dense<[1.0, 2.0]> : vector<2xf16>
    %s = simt.shuffle "bfly" %v, %c1 c = 31 mask = -1 : vector<2xf16>
    %w = vector.bitcast %s : vector<2xf16> to vector<1xi32>
    %bytes = arith.constant dense<[1, 2, 3, 4]> : vector<4xi8>
    %smem = simt.shared_alloc : !simt.smem<128, align 16>
    %off = arith.constant 4 : index
    simt.shared_store %bytes, %smem[%off] : vector<4xi8>, !simt.smem<128, align 16>
    "gpu.barrier"() : () -> ()
    %back = simt.shared_load %smem[%off] : !simt.smem<128, align 16> -> vector<4xi8>
    %big = arith.cmpi sgt, %n, %n : i32
    %both = arith.andi %big, %flag : i1
    %pick = arith.select %both, %t, %flag : i1
    %r = scf.if %pick -> (vector<2xf16>) {
      scf.yield %s : vector<2xf16>
    } else {
      scf.yield %v : vector<2xf16>
    }
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %one = arith.constant 1 : i32
    %x, %y = scf.for %i = %c0 to %c4 step %one iter_args(%xa = %r, %ya = %v) -> (vector<2xf16>, vector<2xf16>) : i32 {
      scf.yield %ya, %xa : vector<2xf16>, vector<2xf16>
    }
    %bf = simt.cast "truncf" %x : vector<2xf16> to vector<2xbf16>
    %f = simt.cast "extf" %bf : vector<2xbf16> to vector<2xf32>
    %wide = arith.index_cast %n : i32 to index
    %m = arith.constant true
    %st = vector.shuffle %x, %y [0, 1] : vector<2xf16>, vector<2xf16>
    simt.global_store %st, %a, %m : vector<2xf16>
    func.return
  }
}

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK:      .visible .entry k(
// CHECK-NEXT: 	.param .u64 k_param_0,
// CHECK-NEXT: 	.param .u32 k_param_1,
// CHECK-NEXT: 	.param .u8 k_param_2
// CHECK:      .shared .align 16 .b8 __llc_smem0[128];
// CHECK:      mov.u32 [[LANE:%r[0-9]+]], %laneid;
// CHECK:      mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK:      shr.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 5;
// Two f16 travel in one 32-bit shuffle.
// CHECK:      mov.b32 [[PACK:%r[0-9]+]], {%h{{[0-9]+}}, %h{{[0-9]+}}};
// CHECK:      shfl.sync.bfly.b32 [[SH:%r[0-9]+]], [[PACK]], %r{{[0-9]+}}, 31, 0xffffffff;
// CHECK-NEXT: mov.b32 {%h{{[0-9]+}}, %h{{[0-9]+}}}, [[SH]];
// Four i8 packed into one 32-bit st.shared, unpacked with bfe after ld.shared.
// CHECK:      bfi.b32
// CHECK:      st.shared.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK-NEXT: bar.sync 0;
// CHECK:      ld.shared.b32
// CHECK:      bfe.u32
// CHECK:      and.pred
// CHECK:      @!%p{{[0-9]+}} bra $L_else_
// CHECK:      $L_for_
// CHECK:      setp.ge.s32
// CHECK:      bra.uni $L_for_
// CHECK:      cvt.rn.bf16.f32
// CHECK:      cvt.f32.bf16
// CHECK:      cvt.s64.s32
// CHECK:      st.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK:      ret;

// SM80: .target sm_80

// PTXAS: ''

// Hopper dots (passes/hopper_dots.py): on cuda:90 llc-optimize-layouts gives a tl.dot the form
// Triton's AccelerateMatmul gives it (checked against Triton 3.9's own TTGIR by
// test/unit/test_ttgir.py::test_dots_get_the_layouts_triton_gives_them): an mma v3 accumulator,
// operands staged in nvmma_shared buffers, tl.warp_group_dot + tl.warp_group_dot_wait. On
// cuda:80 nothing changes.
// RUN: llc-opt %s -p llc-optimize-layouts | filecheck %s
// RUN: llc-opt %s -p 'llc-optimize-layouts{target="cuda:80"}' | filecheck %s --check-prefix=AMPERE
// RUN: llc-opt %S/../../../examples/ttir/matmul.mlir -p 'llc-optimize-layouts{target="cuda:90"}' | filecheck %s --check-prefix=MATMUL
// RUN: llc-opt %S/../../../examples/ttir/matmul.mlir -p llc-optimize-layouts | filecheck %s --check-prefix=MATMUL80
// RUN: llc-opt %S/../../../examples/ttir/attention.mlir -p 'llc-optimize-layouts{target="cuda:90"}' | filecheck %s --check-prefix=CHAIN
// Re-optimizing llc's (or Triton's) Hopper output keeps it.
// RUN: llc-opt %s -p llc-optimize-layouts | llc-opt -p llc-optimize-layouts | filecheck %s

// The matmul loop: 64x32 A (64-byte rows: 64-byte swizzle) and 32x64 B (128-byte rows) are staged
// where they are loaded, a fence orders the stores before wgmma's reads, the wait returns the
// accumulator the loop carries. The layout solver stores the accumulator straight from #mma
// (layout report: store 544) rather than converting it for a coalesced store (300 + 288).
// MATMUL-DAG: #[[MMA:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// MATMUL-DAG: #[[SA:shared[0-9]*]] = #tl.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// MATMUL-DAG: #[[SB:shared[0-9]*]] = #tl.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// MATMUL: scf.for
// MATMUL: %a = tl.load
// MATMUL-NEXT: %[[A:.*]] = tl.local_alloc %a : (tensor<64x32xf16, #{{.*}}>) -> !tl.memdesc<64x32xf16, #[[SA]]>
// MATMUL: %b = tl.load
// MATMUL-NEXT: %[[B:.*]] = tl.local_alloc %b : (tensor<32x64xf16, #{{.*}}>) -> !tl.memdesc<32x64xf16, #[[SB]]>
// MATMUL-NEXT: tl.fence_async_shared
// MATMUL-NEXT: %[[P:.*]] = tl.warp_group_dot %[[A]], %[[B]], %acc_i {{.*}}isAsync = true} : !tl.memdesc<64x32xf16, #[[SA]]> * !tl.memdesc<32x64xf16, #[[SB]]> -> tensor<64x64xf32, #[[MMA]]>
// MATMUL-NEXT: %[[W:.*]], %{{.*}}, %{{.*}} = tl.warp_group_dot_wait %[[P]], %[[A]], %[[B]] {pendings = 0 : i32}
// MATMUL: scf.yield %[[W]]
// MATMUL-NOT: tl.convert_layout
// MATMUL: tl.store %c_ptrs, %acc, %c_mask : tensor<64x64x!tl.ptr<f32>, #[[MMA]]>
// MATMUL80: #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// MATMUL80-NOT: warp_group_dot

// Attention's chained dots: Q and V are loaded and staged; P (softmax of QK^T, computed in
// registers) stays in registers as the v3 dot_op; the first dot feeds the second, so all warps
// go along M (4 warps: [4, 1] either way).
// CHAIN-DAG: #[[MMA:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHAIN-DAG: #[[PA:dot_op[0-9]*]] = #tl.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// CHAIN: %qk = tl.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} : !tl.memdesc<64x64xf16, #{{.*}}> * !tl.memdesc<64x64xf16, #{{.*}}> -> tensor<64x64xf32, #[[MMA]]>
// CHAIN: %[[P:.*]] = tl.convert_layout %p16 : tensor<64x64xf16, #[[MMA]]> -> tensor<64x64xf16, #[[PA]]>
// CHAIN: %o = tl.warp_group_dot %[[P]], %{{.*}}, %{{.*}} : tensor<64x64xf16, #[[PA]]> * !tl.memdesc<64x64xf16, #{{.*}}> -> tensor<64x64xf32, #[[MMA]]>

// AMPERE-NOT: warp_group_dot
// AMPERE-NOT: nvmma_shared
// AMPERE-NOT: versionMajor = 3

// CHECK-DAG: #[[T:shared[0-9]*]] = #tl.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
// CHECK-DAG: #[[TF32A:shared[0-9]*]] = #tl.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
// CHECK-DAG: #[[TF32B:shared[0-9]*]] = #tl.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>
// CHECK-DAG: #[[V3:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #[[V3TF32:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
// CHECK-DAG: #[[V3A:dot_op[0-9]*]] = #tl.dot_op<{opIdx = 0, parent = #[[V3]], kWidth = 2}>

// B loaded K-contiguous (column-major): its buffer is the transposed nvmma layout.
// CHECK-LABEL: func.func @kmajor
// CHECK: tl.local_alloc %b : (tensor<64x64xf16, #{{.*}}>) -> !tl.memdesc<64x64xf16, #[[T]]>
// CHECK: tl.warp_group_dot {{.*}} -> tensor<64x64xf32, #[[V3]]>

// A computed in registers stays there (as the v3 dot_op); only B goes through a buffer.
// CHECK-LABEL: func.func @a_in_registers
// CHECK: %d = tl.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xf16, #[[V3A]]> * !tl.memdesc<64x64xf16, #{{.*}}> -> tensor<64x64xf32, #[[V3]]>
// CHECK: tl.warp_group_dot_wait %d, %{{[0-9]+}} {pendings = 0 : i32} : tensor<64x64xf32, #[[V3]]>, !tl.memdesc

// Both operands computed in registers: Triton 3.9 still picks mma v3 (A stays in registers, B
// is staged; bench/accelerate_local_load.py compiles this kernel in Triton's language).
// CHECK-LABEL: func.func @both_in_registers
// CHECK: tl.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xf16, #[[V3A]]> * !tl.memdesc<64x64xf16, #{{.*}}> -> tensor<64x64xf32, #[[V3]]>

// 16 rows: fewer than a warp group's 64, mma v2.
// CHECK-LABEL: func.func @small_m
// CHECK-NOT: warp_group_dot
// CHECK: tl.dot {{.*}} -> tensor<16x64xf32, #mma{{[0-9]*}}>

// f32 operands without tf32 precision (Triton's default, ieee): not wgmma.
// CHECK-LABEL: func.func @f32_ieee
// CHECK-NOT: warp_group_dot
// CHECK: tl.dot

// tf32: K = 8 per instruction; wgmma transposes only 16-bit operands, so both buffers are
// K-contiguous (A as loaded, B transposed).
// CHECK-LABEL: func.func @tf32
// CHECK: tl.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} {inputPrecision = 0 : i32, isAsync = true} : !tl.memdesc<64x32xf32, #[[TF32A]]> * !tl.memdesc<32x64xf32, #[[TF32B]]> -> tensor<64x64xf32, #[[V3TF32]]>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @kmajor(%pa: !tl.ptr<f16>, %pb: !tl.ptr<f16>, %pc: !tl.ptr<f32>) {
    %a_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_i2 = tl.expand_dims %a_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %a_j2 = tl.expand_dims %a_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %a_ib = tl.broadcast %a_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %a_jb = tl.broadcast %a_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %a_s = tl.constant 64 : tensor<64x64xi32>
    %a_o1 = arith.muli %a_ib, %a_s : tensor<64x64xi32>
    %a_o = arith.addi %a_o1, %a_jb : tensor<64x64xi32>
    %a_b = tl.splat %pa : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %a_p = tl.addptr %a_b, %a_o : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %b_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_i2 = tl.expand_dims %b_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %b_j2 = tl.expand_dims %b_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %b_ib = tl.broadcast %b_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %b_jb = tl.broadcast %b_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %b_s = tl.constant 64 : tensor<64x64xi32>
    %b_o1 = arith.muli %b_jb, %b_s : tensor<64x64xi32>
    %b_o = arith.addi %b_o1, %b_ib : tensor<64x64xi32>
    %b_b = tl.splat %pb : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %b_p = tl.addptr %b_b, %b_o : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %c_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_i2 = tl.expand_dims %c_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c_j2 = tl.expand_dims %c_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c_ib = tl.broadcast %c_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %c_jb = tl.broadcast %c_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c_s = tl.constant 64 : tensor<64x64xi32>
    %c_o1 = arith.muli %c_ib, %c_s : tensor<64x64xi32>
    %c_o = arith.addi %c_o1, %c_jb : tensor<64x64xi32>
    %c_b = tl.splat %pc : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %c_p = tl.addptr %c_b, %c_o : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %a = tl.load %a_p : tensor<64x64x!tl.ptr<f16>>
    %b = tl.load %b_p : tensor<64x64x!tl.ptr<f16>>
    %z = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %d = tl.dot %a, %b, %z : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    tl.store %c_p, %d : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
  func.func @a_in_registers(%pa: !tl.ptr<f16>, %pb: !tl.ptr<f16>, %pc: !tl.ptr<f32>) {
    %a_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_i2 = tl.expand_dims %a_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %a_j2 = tl.expand_dims %a_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %a_ib = tl.broadcast %a_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %a_jb = tl.broadcast %a_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %a_s = tl.constant 64 : tensor<64x64xi32>
    %a_o1 = arith.muli %a_ib, %a_s : tensor<64x64xi32>
    %a_o = arith.addi %a_o1, %a_jb : tensor<64x64xi32>
    %a_b = tl.splat %pa : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %a_p = tl.addptr %a_b, %a_o : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %b_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_i2 = tl.expand_dims %b_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %b_j2 = tl.expand_dims %b_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %b_ib = tl.broadcast %b_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %b_jb = tl.broadcast %b_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %b_s = tl.constant 64 : tensor<64x64xi32>
    %b_o1 = arith.muli %b_ib, %b_s : tensor<64x64xi32>
    %b_o = arith.addi %b_o1, %b_jb : tensor<64x64xi32>
    %b_b = tl.splat %pb : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %b_p = tl.addptr %b_b, %b_o : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %c_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_i2 = tl.expand_dims %c_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c_j2 = tl.expand_dims %c_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c_ib = tl.broadcast %c_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %c_jb = tl.broadcast %c_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c_s = tl.constant 64 : tensor<64x64xi32>
    %c_o1 = arith.muli %c_ib, %c_s : tensor<64x64xi32>
    %c_o = arith.addi %c_o1, %c_jb : tensor<64x64xi32>
    %c_b = tl.splat %pc : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %c_p = tl.addptr %c_b, %c_o : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %a = tl.load %a_p : tensor<64x64x!tl.ptr<f16>>
    %b = tl.load %b_p : tensor<64x64x!tl.ptr<f16>>
    %ea = math.exp %a : tensor<64x64xf16>
    %z = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %d = tl.dot %ea, %b, %z : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    tl.store %c_p, %d : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
  func.func @both_in_registers(%pa: !tl.ptr<f16>, %pb: !tl.ptr<f16>, %pc: !tl.ptr<f32>) {
    %a_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_i2 = tl.expand_dims %a_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %a_j2 = tl.expand_dims %a_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %a_ib = tl.broadcast %a_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %a_jb = tl.broadcast %a_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %a_s = tl.constant 64 : tensor<64x64xi32>
    %a_o1 = arith.muli %a_ib, %a_s : tensor<64x64xi32>
    %a_o = arith.addi %a_o1, %a_jb : tensor<64x64xi32>
    %a_b = tl.splat %pa : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %a_p = tl.addptr %a_b, %a_o : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %b_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_i2 = tl.expand_dims %b_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %b_j2 = tl.expand_dims %b_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %b_ib = tl.broadcast %b_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %b_jb = tl.broadcast %b_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %b_s = tl.constant 64 : tensor<64x64xi32>
    %b_o1 = arith.muli %b_ib, %b_s : tensor<64x64xi32>
    %b_o = arith.addi %b_o1, %b_jb : tensor<64x64xi32>
    %b_b = tl.splat %pb : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %b_p = tl.addptr %b_b, %b_o : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %c_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_i2 = tl.expand_dims %c_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c_j2 = tl.expand_dims %c_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c_ib = tl.broadcast %c_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %c_jb = tl.broadcast %c_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c_s = tl.constant 64 : tensor<64x64xi32>
    %c_o1 = arith.muli %c_ib, %c_s : tensor<64x64xi32>
    %c_o = arith.addi %c_o1, %c_jb : tensor<64x64xi32>
    %c_b = tl.splat %pc : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %c_p = tl.addptr %c_b, %c_o : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %a = tl.load %a_p : tensor<64x64x!tl.ptr<f16>>
    %b = tl.load %b_p : tensor<64x64x!tl.ptr<f16>>
    %ea = math.exp %a : tensor<64x64xf16>
    %eb = math.exp %b : tensor<64x64xf16>
    %z = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %d = tl.dot %ea, %eb, %z : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    tl.store %c_p, %d : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
  func.func @small_m(%pa: !tl.ptr<f16>, %pb: !tl.ptr<f16>, %pc: !tl.ptr<f32>) {
    %a_i = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %a_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_i2 = tl.expand_dims %a_i {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %a_j2 = tl.expand_dims %a_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %a_ib = tl.broadcast %a_i2 : tensor<16x1xi32> -> tensor<16x64xi32>
    %a_jb = tl.broadcast %a_j2 : tensor<1x64xi32> -> tensor<16x64xi32>
    %a_s = tl.constant 64 : tensor<16x64xi32>
    %a_o1 = arith.muli %a_ib, %a_s : tensor<16x64xi32>
    %a_o = arith.addi %a_o1, %a_jb : tensor<16x64xi32>
    %a_b = tl.splat %pa : !tl.ptr<f16> -> tensor<16x64x!tl.ptr<f16>>
    %a_p = tl.addptr %a_b, %a_o : tensor<16x64x!tl.ptr<f16>>, tensor<16x64xi32>
    %b_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_i2 = tl.expand_dims %b_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %b_j2 = tl.expand_dims %b_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %b_ib = tl.broadcast %b_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %b_jb = tl.broadcast %b_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %b_s = tl.constant 64 : tensor<64x64xi32>
    %b_o1 = arith.muli %b_ib, %b_s : tensor<64x64xi32>
    %b_o = arith.addi %b_o1, %b_jb : tensor<64x64xi32>
    %b_b = tl.splat %pb : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %b_p = tl.addptr %b_b, %b_o : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %c_i = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %c_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_i2 = tl.expand_dims %c_i {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %c_j2 = tl.expand_dims %c_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c_ib = tl.broadcast %c_i2 : tensor<16x1xi32> -> tensor<16x64xi32>
    %c_jb = tl.broadcast %c_j2 : tensor<1x64xi32> -> tensor<16x64xi32>
    %c_s = tl.constant 64 : tensor<16x64xi32>
    %c_o1 = arith.muli %c_ib, %c_s : tensor<16x64xi32>
    %c_o = arith.addi %c_o1, %c_jb : tensor<16x64xi32>
    %c_b = tl.splat %pc : !tl.ptr<f32> -> tensor<16x64x!tl.ptr<f32>>
    %c_p = tl.addptr %c_b, %c_o : tensor<16x64x!tl.ptr<f32>>, tensor<16x64xi32>
    %a = tl.load %a_p : tensor<16x64x!tl.ptr<f16>>
    %b = tl.load %b_p : tensor<64x64x!tl.ptr<f16>>
    %z = tl.constant 0.000000e+00 : tensor<16x64xf32>
    %d = tl.dot %a, %b, %z : tensor<16x64xf16> * tensor<64x64xf16> -> tensor<16x64xf32>
    tl.store %c_p, %d : tensor<16x64x!tl.ptr<f32>>
    func.return
  }
  func.func @f32_ieee(%pa: !tl.ptr<f32>, %pb: !tl.ptr<f32>, %pc: !tl.ptr<f32>) {
    %a_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_j = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %a_i2 = tl.expand_dims %a_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %a_j2 = tl.expand_dims %a_j {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %a_ib = tl.broadcast %a_i2 : tensor<64x1xi32> -> tensor<64x32xi32>
    %a_jb = tl.broadcast %a_j2 : tensor<1x32xi32> -> tensor<64x32xi32>
    %a_s = tl.constant 32 : tensor<64x32xi32>
    %a_o1 = arith.muli %a_ib, %a_s : tensor<64x32xi32>
    %a_o = arith.addi %a_o1, %a_jb : tensor<64x32xi32>
    %a_b = tl.splat %pa : !tl.ptr<f32> -> tensor<64x32x!tl.ptr<f32>>
    %a_p = tl.addptr %a_b, %a_o : tensor<64x32x!tl.ptr<f32>>, tensor<64x32xi32>
    %b_i = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %b_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_i2 = tl.expand_dims %b_i {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %b_j2 = tl.expand_dims %b_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %b_ib = tl.broadcast %b_i2 : tensor<32x1xi32> -> tensor<32x64xi32>
    %b_jb = tl.broadcast %b_j2 : tensor<1x64xi32> -> tensor<32x64xi32>
    %b_s = tl.constant 64 : tensor<32x64xi32>
    %b_o1 = arith.muli %b_ib, %b_s : tensor<32x64xi32>
    %b_o = arith.addi %b_o1, %b_jb : tensor<32x64xi32>
    %b_b = tl.splat %pb : !tl.ptr<f32> -> tensor<32x64x!tl.ptr<f32>>
    %b_p = tl.addptr %b_b, %b_o : tensor<32x64x!tl.ptr<f32>>, tensor<32x64xi32>
    %c_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_i2 = tl.expand_dims %c_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c_j2 = tl.expand_dims %c_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c_ib = tl.broadcast %c_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %c_jb = tl.broadcast %c_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c_s = tl.constant 64 : tensor<64x64xi32>
    %c_o1 = arith.muli %c_ib, %c_s : tensor<64x64xi32>
    %c_o = arith.addi %c_o1, %c_jb : tensor<64x64xi32>
    %c_b = tl.splat %pc : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %c_p = tl.addptr %c_b, %c_o : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %a = tl.load %a_p : tensor<64x32x!tl.ptr<f32>>
    %b = tl.load %b_p : tensor<32x64x!tl.ptr<f32>>
    %z = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %d = tl.dot %a, %b, %z : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
    tl.store %c_p, %d : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
  func.func @tf32(%pa: !tl.ptr<f32>, %pb: !tl.ptr<f32>, %pc: !tl.ptr<f32>) {
    %a_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %a_j = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %a_i2 = tl.expand_dims %a_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %a_j2 = tl.expand_dims %a_j {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %a_ib = tl.broadcast %a_i2 : tensor<64x1xi32> -> tensor<64x32xi32>
    %a_jb = tl.broadcast %a_j2 : tensor<1x32xi32> -> tensor<64x32xi32>
    %a_s = tl.constant 32 : tensor<64x32xi32>
    %a_o1 = arith.muli %a_ib, %a_s : tensor<64x32xi32>
    %a_o = arith.addi %a_o1, %a_jb : tensor<64x32xi32>
    %a_b = tl.splat %pa : !tl.ptr<f32> -> tensor<64x32x!tl.ptr<f32>>
    %a_p = tl.addptr %a_b, %a_o : tensor<64x32x!tl.ptr<f32>>, tensor<64x32xi32>
    %b_i = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %b_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %b_i2 = tl.expand_dims %b_i {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %b_j2 = tl.expand_dims %b_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %b_ib = tl.broadcast %b_i2 : tensor<32x1xi32> -> tensor<32x64xi32>
    %b_jb = tl.broadcast %b_j2 : tensor<1x64xi32> -> tensor<32x64xi32>
    %b_s = tl.constant 64 : tensor<32x64xi32>
    %b_o1 = arith.muli %b_ib, %b_s : tensor<32x64xi32>
    %b_o = arith.addi %b_o1, %b_jb : tensor<32x64xi32>
    %b_b = tl.splat %pb : !tl.ptr<f32> -> tensor<32x64x!tl.ptr<f32>>
    %b_p = tl.addptr %b_b, %b_o : tensor<32x64x!tl.ptr<f32>>, tensor<32x64xi32>
    %c_i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_j = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c_i2 = tl.expand_dims %c_i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c_j2 = tl.expand_dims %c_j {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c_ib = tl.broadcast %c_i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %c_jb = tl.broadcast %c_j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c_s = tl.constant 64 : tensor<64x64xi32>
    %c_o1 = arith.muli %c_ib, %c_s : tensor<64x64xi32>
    %c_o = arith.addi %c_o1, %c_jb : tensor<64x64xi32>
    %c_b = tl.splat %pc : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %c_p = tl.addptr %c_b, %c_o : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %a = tl.load %a_p : tensor<64x32x!tl.ptr<f32>>
    %b = tl.load %b_p : tensor<32x64x!tl.ptr<f32>>
    %z = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %d = tl.dot %a, %b, %z {tt.inputPrecision = "tf32"} : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
    tl.store %c_p, %d : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

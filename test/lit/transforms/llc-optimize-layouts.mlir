// RUN: llc-opt %s -p llc-optimize-layouts --split-input-file | filecheck %s
// RUN: llc-opt %s -p 'llc-optimize-layouts{debug=true}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=STORY
// The stripped (layout-free) examples: every tensor gets a layout, and no more conversions are
// left than Triton leaves on the same kind of kernel (0 / 0 / 0 / 1 / 2). On attention the
// solver stores the output from #mma (layout report 870 -> 752): only the free mma -> dot_op
// conversion of the probabilities is left.
// RUN: llc-opt %S/../../../examples/vector_add.mlir -p llc-strip-layouts,llc-optimize-layouts | filecheck %s --check-prefix=NONE
// RUN: llc-opt %S/../../../examples/softmax.mlir -p llc-strip-layouts,llc-optimize-layouts | filecheck %s --check-prefix=NONE
// RUN: llc-opt %S/../../../examples/layernorm.mlir -p llc-strip-layouts,llc-optimize-layouts | filecheck %s --check-prefix=NONE
// RUN: llc-opt %S/../../../examples/matmul_epilogue.mlir -p llc-strip-layouts,llc-optimize-layouts | filecheck %s --check-prefix=ONE
// RUN: llc-opt %S/../../../examples/attention.mlir -p llc-strip-layouts,llc-optimize-layouts | filecheck %s --check-prefix=TWO
// NONE-NOT: {{tensor<[0-9x]+(i[0-9]+|f[0-9]+|bf16|!tl.ptr<[a-z0-9]+>)>}}
// NONE-NOT: tl.convert_layout
// ONE: func.func
// ONE-COUNT-1: tl.convert_layout
// ONE-NOT: tl.convert_layout
// TWO: func.func
// TWO-COUNT-1: tl.convert_layout {{.*}} #mma> -> tensor<64x64xf16, #dot_op>
// TWO-NOT: tl.convert_layout

// The seeds' story (anchor / forward / backward / remat) on a small kernel: read a 64x64 tile
// row-major, exponentiate, write it transposed.
// * anchors: the load and the store get coalesced layouts, row-major and column-major;
// * forward: math.exp takes the load's layout;
// * backward: the pointer arithmetic of each access takes the layout of its access;
// * remat: the index computations both accesses share (%i, %rows, %cols, %c64) are recomputed
//   in the store's layout instead of being converted;
// one conversion is left: the transpose itself. The solver then weighs the whole function
// (layout report, staged 846 -> 832 cycles per warp): the load in the default layout (32-bit
// loads, the same 128 sectors: 288 instead of 264) makes the transpose cheaper (280 instead of
// 318). Converting before or after math.exp costs the same (same tensor, same two layouts, exp
// per element either way): the solver keeps one of the two equal optima, here math.exp in the
// load's layout and the conversion before the store.
// STORY: after anchors
// STORY: anchor %x: coalesced load
// STORY: anchor tl.store @%dst_ptrs: coalesced store
// STORY: after propagate
// STORY: %y: candidates #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// STORY: after fill
// STORY: %dst_ptrs: chosen #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// STORY: after solve
// STORY: @story: 18 nodes (18 with a choice), staged cost 848{{.*}}, optimum 834
// STORY: remat cvt %rows
// STORY: remat cvt %cols
// CHECK: #[[COL:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK: #[[ROW:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-LABEL: func.func @story
// CHECK: %x = tl.load %src_ptrs : tensor<64x64x!tl.ptr<f32>, #[[ROW]]>
// CHECK-NEXT: %y = math.exp %x : tensor<64x64xf32, #[[ROW]]>
// CHECK-NEXT: %[[T:.*]] = tl.convert_layout %y : tensor<64x64xf32, #[[ROW]]> -> tensor<64x64xf32, #[[COL]]>
// CHECK: tl.store %dst_ptrs, %[[T]] : tensor<64x64x!tl.ptr<f32>, #[[COL]]>
// CHECK-NOT: tl.convert_layout
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @story(%src: !tl.ptr<f32>, %dst: !tl.ptr<f32>) {
    %i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %i2 = tl.expand_dims %i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %rows = tl.broadcast %i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %j2 = tl.expand_dims %i {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cols = tl.broadcast %j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c64 = tl.constant 64 : tensor<64x64xi32>
    %row_off = arith.muli %rows, %c64 : tensor<64x64xi32>
    %in_off = arith.addi %row_off, %cols : tensor<64x64xi32>
    %col_off = arith.muli %cols, %c64 : tensor<64x64xi32>
    %out_off = arith.addi %col_off, %rows : tensor<64x64xi32>
    %src_base = tl.splat %src : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %src_ptrs = tl.addptr %src_base, %in_off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %x = tl.load %src_ptrs : tensor<64x64x!tl.ptr<f32>>
    %y = math.exp %x : tensor<64x64xf32>
    %dst_base = tl.splat %dst : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %dst_ptrs = tl.addptr %dst_base, %out_off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %dst_ptrs, %y : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

// -----

// A transpose: load row-major, store column-major. One conversion (Triton leaves one too).
// CHECK-LABEL: func.func @transpose
// CHECK-COUNT-1: tl.convert_layout
// CHECK-NOT: tl.convert_layout
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @transpose(%src: !tl.ptr<f32>, %dst: !tl.ptr<f32>) {
    %i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %i2 = tl.expand_dims %i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %ib = tl.broadcast %i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %j2 = tl.expand_dims %i {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %jb = tl.broadcast %j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c64 = tl.constant 64 : tensor<64x64xi32>
    %row = arith.muli %ib, %c64 : tensor<64x64xi32>
    %in_off = arith.addi %row, %jb : tensor<64x64xi32>
    %col = arith.muli %jb, %c64 : tensor<64x64xi32>
    %out_off = arith.addi %col, %ib : tensor<64x64xi32>
    %src_base = tl.splat %src : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %src_ptrs = tl.addptr %src_base, %in_off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %x = tl.load %src_ptrs : tensor<64x64x!tl.ptr<f32>>
    %dst_base = tl.splat %dst : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %dst_ptrs = tl.addptr %dst_base, %out_off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %dst_ptrs, %x : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

// -----

// A matmul epilogue on cuda:80: dot -> mma v2 accumulator -> + bias -> relu -> store. The
// operands are staged through shared memory into dot_op layouts; the bias (a cheap load) is read
// directly in a slice of #mma; the epilogue runs in #mma. The staged analysis converted %relu to
// the coalesced store's layout (layout report 820); the solver stores from #mma (64-bit stores of
// the same sectors: 604, no conversion left). (cuda:90's wgmma form:
// llc-optimize-layouts-hopper.mlir.)
// CHECK: #[[MMA:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK: #[[BIAS:slice[0-9]*]] = #tl.slice<{dim = 0, parent = #[[MMA]]}>
// CHECK-LABEL: func.func @epilogue
// CHECK: tl.local_alloc %a
// CHECK: tl.local_alloc %b
// CHECK: %acc = tl.dot {{.*}} -> tensor<64x64xf32, #[[MMA]]>
// CHECK: %bias = tl.load %bias_ptrs : tensor<64x!tl.ptr<f32>, #[[BIAS]]>
// CHECK: %sum = arith.addf %acc, %biasb : tensor<64x64xf32, #[[MMA]]>
// CHECK: %relu = arith.maxnumf %sum, %{{.*}} : tensor<64x64xf32, #[[MMA]]>
// CHECK-NOT: tl.convert_layout
// CHECK: tl.store %c_ptrs, %relu : tensor<64x64x!tl.ptr<f32>, #[[MMA]]>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @epilogue(%a_ptr: !tl.ptr<f16>, %b_ptr: !tl.ptr<f16>, %bias_ptr: !tl.ptr<f32>, %c_ptr: !tl.ptr<f32>) {
    %i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %i2 = tl.expand_dims %i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %rows = tl.broadcast %i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %j2 = tl.expand_dims %i {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cols = tl.broadcast %j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c64 = tl.constant 64 : tensor<64x64xi32>
    %row_off = arith.muli %rows, %c64 : tensor<64x64xi32>
    %off = arith.addi %row_off, %cols : tensor<64x64xi32>
    %a_base = tl.splat %a_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %a_ptrs = tl.addptr %a_base, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %a = tl.load %a_ptrs : tensor<64x64x!tl.ptr<f16>>
    %b_base = tl.splat %b_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %b_ptrs = tl.addptr %b_base, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %b = tl.load %b_ptrs : tensor<64x64x!tl.ptr<f16>>
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %acc = tl.dot %a, %b, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %bias_base = tl.splat %bias_ptr : !tl.ptr<f32> -> tensor<64x!tl.ptr<f32>>
    %bias_ptrs = tl.addptr %bias_base, %i : tensor<64x!tl.ptr<f32>>, tensor<64xi32>
    %bias = tl.load %bias_ptrs : tensor<64x!tl.ptr<f32>>
    %bias2 = tl.expand_dims %bias {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    %biasb = tl.broadcast %bias2 : tensor<1x64xf32> -> tensor<64x64xf32>
    %sum = arith.addf %acc, %biasb : tensor<64x64xf32>
    %zero_c = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %relu = arith.maxnumf %sum, %zero_c : tensor<64x64xf32>
    %c_base = tl.splat %c_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %c_ptrs = tl.addptr %c_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %c_ptrs, %relu : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

// The layout solver (llc.passes.layout_solver): one exact optimization per function. Each
// chunk runs through the solver (default) and through the staged analysis alone
// (solver=staged), with --layout-report's figures (cycles per warp, times loop weights).
// RUN: llc-opt %s -p llc-propagate-layouts --split-input-file --layout-report | filecheck %s
// RUN: llc-opt %s -p 'llc-propagate-layouts{solver=staged}' --split-input-file --layout-report | filecheck %s --check-prefix=STAGED
// RUN: llc-opt %s -p 'llc-propagate-layouts{debug=true}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=DEBUG
// Past its budget (0 s here) a function keeps the staged assignment, with a remark. The budget
// covers pricing: past it no conversion is planned, not even the staged assignment's.
// RUN: llc-opt %s -p 'llc-propagate-layouts{solver-budget=0.0}' --split-input-file --layout-report 2>%t.err | filecheck %s --check-prefix=STAGED
// RUN: filecheck %s --check-prefix=BUDGET < %t.err
// BUDGET: remark: llc-propagate-layouts: @matmul_f16_out: the layout solver did not finish within its budget of 0 s (time limit reached while pricing conversions); keeping the staged assignment
// BUDGET: remark: llc-propagate-layouts: @carried: the layout solver did not finish within its budget of 0 s (time limit reached while pricing conversions); keeping the staged assignment

// Truncation placement (issue 18's matmul): the f16 result of the accumulator's truncf joins,
// through scf.if, a value loaded in the coalesced layout. The staged analysis lays the whole
// if-class out coalesced, so it converts the f32 accumulator (214) and truncates after; the
// solver truncates in #mma and converts the f16 value inside the branch (142: half the bytes).
// CHECK-LABEL: layout report @matmul_f16_out
// CHECK: convert <tl.convert_layout result> 64x64xf16: nvidia_mma -> blocked spt=[1, 8] order=[1, 0]: cost 142 x weight 1 = 142
// CHECK-NOT: 64x64xf32: nvidia_mma
// CHECK: total 2774: 3 conversions 1454, 4 accesses 1320
// CHECK-LABEL: func.func @matmul_f16_out
// CHECK: %h = arith.truncf %acc : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT: %[[H:.*]] = tl.convert_layout %h : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #[[B:blocked[0-9]*]]>
// CHECK-NEXT: scf.yield %[[H]] : tensor<64x64xf16, #[[B]]>
// STAGED-LABEL: layout report @matmul_f16_out
// STAGED: convert <tl.convert_layout result> 64x64xf32: nvidia_mma -> blocked spt=[1, 8] order=[1, 0]: cost 214 x weight 1 = 214
// STAGED: total 2846: 3 conversions 1526, 4 accesses 1320
// STAGED: tl.convert_layout %acc : tensor<64x64xf32, #mma>
// STAGED: arith.truncf {{.*}} : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
// DEBUG: after solve
// DEBUG: @matmul_f16_out: {{.*}} staged cost 2847{{.*}}, optimum 2775
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @matmul_f16_out(%a_ptr: !tl.ptr<f16>, %b_ptr: !tl.ptr<f16>, %c_ptr: !tl.ptr<f16>, %flag: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
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
    %b_base = tl.splat %b_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %b_ptrs = tl.addptr %b_base, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %c_base = tl.splat %c_ptr : !tl.ptr<f16> -> tensor<64x64x!tl.ptr<f16>>
    %c_ptrs = tl.addptr %c_base, %off : tensor<64x64x!tl.ptr<f16>>, tensor<64x64xi32>
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
      %a = tl.load %a_ptrs : tensor<64x64x!tl.ptr<f16>>
      %b = tl.load %b_ptrs : tensor<64x64x!tl.ptr<f16>>
      %d = tl.dot %a, %b, %acc_i : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %out = scf.if %flag -> (tensor<64x64xf16>) {
      %h = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
      scf.yield %h : tensor<64x64xf16>
    } else {
      %old = tl.load %c_ptrs : tensor<64x64x!tl.ptr<f16>>
      scf.yield %old : tensor<64x64xf16>
    }
    tl.store %c_ptrs, %out : tensor<64x64x!tl.ptr<f16>>
    func.return
  }
}

// -----

// Loop weighting: %x is loaded row-major before the loop, %y column-major inside it, and the
// sum is carried. With one iteration (constant bounds: weight 1) the solver carries the sum
// row-major and converts %y inside the loop once; with 16 (next chunk) that conversion would
// cost 16 times 322, so it carries the sum column-major and converts twice outside (318 + 322).
// CHECK-LABEL: layout report @carried
// CHECK: convert <tl.convert_layout result> 64x64xf32: blocked spt=[4, 1] order=[0, 1] -> blocked spt=[1, 4] order=[1, 0]: cost 322 x weight 1 = 322
// CHECK: total 1114: 1 conversions 322, 3 accesses 792
// CHECK-LABEL: func.func @carried
// CHECK: scf.for {{.*}} iter_args(%s = %x) -> (tensor<64x64xf32, #[[ROW:blocked[0-9]*]]>)
// CHECK: tl.convert_layout %y : tensor<64x64xf32, #{{blocked[0-9]*}}> -> tensor<64x64xf32, #[[ROW]]>
// STAGED-LABEL: layout report @carried
// STAGED: total 1758: 3 conversions 966, 3 accesses 792
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @carried(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %o_ptr: !tl.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %trips = arith.constant 1 : i32
    %i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %i2 = tl.expand_dims %i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %rows = tl.broadcast %i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %j2 = tl.expand_dims %i {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cols = tl.broadcast %j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c64 = tl.constant 64 : tensor<64x64xi32>
    %row_off = arith.muli %rows, %c64 : tensor<64x64xi32>
    %off = arith.addi %row_off, %cols : tensor<64x64xi32>
    %col_off = arith.muli %cols, %c64 : tensor<64x64xi32>
    %t_off = arith.addi %col_off, %rows : tensor<64x64xi32>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %x_ptrs = tl.addptr %x_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %y_ptrs = tl.addptr %y_base, %t_off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %x = tl.load %x_ptrs : tensor<64x64x!tl.ptr<f32>>
    %acc = scf.for %k = %c0 to %trips step %c1 iter_args(%s = %x) -> (tensor<64x64xf32>) : i32 {
      %y = tl.load %y_ptrs : tensor<64x64x!tl.ptr<f32>>
      %s2 = arith.addf %s, %y : tensor<64x64xf32>
      scf.yield %s2 : tensor<64x64xf32>
    }
    %o_base = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %o_ptrs = tl.addptr %o_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %o_ptrs, %acc : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

// -----

// The same loop with 16 iterations. Rematerialization against conversion: the index tensors
// %rows and %cols, needed in both access layouts, are recomputed from make_range (no
// conversion left of them, as the staged analysis leaves two), while the loaded %x, which
// cannot be recomputed, is converted.
// CHECK-LABEL: layout report @carried
// CHECK: convert <tl.convert_layout result> 64x64xf32: blocked spt=[1, 4] order=[1, 0] -> blocked spt=[4, 1] order=[0, 1]: cost 318 x weight 1 = 318
// CHECK: convert <tl.convert_layout result> 64x64xf32: blocked spt=[4, 1] order=[0, 1] -> blocked spt=[1, 4] order=[1, 0]: cost 322 x weight 1 = 322
// CHECK: load %y 64x64xf32: 128 bits x 8, 128 sectors: cost 264 x weight 16 = 4224
// CHECK: total 5392: 2 conversions 640, 3 accesses 4752
// CHECK-LABEL: func.func @carried
// CHECK-NOT: tl.convert_layout %rows
// CHECK-NOT: tl.convert_layout %cols
// CHECK: %[[X:.*]] = tl.convert_layout %x
// CHECK: scf.for {{.*}} iter_args(%s = %[[X]])
// STAGED-LABEL: layout report @carried
// STAGED: convert <tl.convert_layout result> 64x64xf32: blocked spt=[4, 1] order=[0, 1] -> blocked spt=[1, 4] order=[1, 0]: cost 322 x weight 16 = 5152
// STAGED: total 10548: 3 conversions 5796, 3 accesses 4752
// STAGED: tl.convert_layout %rows
// STAGED: tl.convert_layout %cols
// DEBUG: remat cvt %rows: 3 ops from scalars
// DEBUG: remat cvt %cols: 3 ops from scalars
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @carried(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %o_ptr: !tl.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %trips = arith.constant 16 : i32
    %i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %i2 = tl.expand_dims %i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %rows = tl.broadcast %i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %j2 = tl.expand_dims %i {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cols = tl.broadcast %j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c64 = tl.constant 64 : tensor<64x64xi32>
    %row_off = arith.muli %rows, %c64 : tensor<64x64xi32>
    %off = arith.addi %row_off, %cols : tensor<64x64xi32>
    %col_off = arith.muli %cols, %c64 : tensor<64x64xi32>
    %t_off = arith.addi %col_off, %rows : tensor<64x64xi32>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %x_ptrs = tl.addptr %x_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %y_ptrs = tl.addptr %y_base, %t_off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %x = tl.load %x_ptrs : tensor<64x64x!tl.ptr<f32>>
    %acc = scf.for %k = %c0 to %trips step %c1 iter_args(%s = %x) -> (tensor<64x64xf32>) : i32 {
      %y = tl.load %y_ptrs : tensor<64x64x!tl.ptr<f32>>
      %s2 = arith.addf %s, %y : tensor<64x64xf32>
      scf.yield %s2 : tensor<64x64xf32>
    }
    %o_base = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %o_ptrs = tl.addptr %o_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %o_ptrs, %acc : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

// -----

// A conflict the staged analysis resolves class by class: the two branches of an scf.if load
// row-major and column-major. The staged analysis converts the column-major value and the
// row-major pointer tensor (64-bit elements: 442) for the other branch (764 in all); the
// solver converts the column-major value once inside its branch (322).
// CHECK-LABEL: layout report @branches
// CHECK: total 1114: 1 conversions 322, 3 accesses 792
// STAGED-LABEL: layout report @branches
// STAGED: total 1556: 2 conversions 764, 3 accesses 792
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @branches(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %flag: i1) {
    %i = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %i2 = tl.expand_dims %i {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %rows = tl.broadcast %i2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %j2 = tl.expand_dims %i {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cols = tl.broadcast %j2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %c64 = tl.constant 64 : tensor<64x64xi32>
    %row_off = arith.muli %rows, %c64 : tensor<64x64xi32>
    %off = arith.addi %row_off, %cols : tensor<64x64xi32>
    %col_off = arith.muli %cols, %c64 : tensor<64x64xi32>
    %t_off = arith.addi %col_off, %rows : tensor<64x64xi32>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %x_ptrs = tl.addptr %x_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %xt_ptrs = tl.addptr %x_base, %t_off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    %v = scf.if %flag -> (tensor<64x64xf32>) {
      %row_major = tl.load %x_ptrs : tensor<64x64x!tl.ptr<f32>>
      scf.yield %row_major : tensor<64x64xf32>
    } else {
      %col_major = tl.load %xt_ptrs : tensor<64x64x!tl.ptr<f32>>
      scf.yield %col_major : tensor<64x64xf32>
    }
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %y_ptrs = tl.addptr %y_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %y_ptrs, %v : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

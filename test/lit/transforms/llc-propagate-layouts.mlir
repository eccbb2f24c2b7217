// RUN: llc-opt %s -p llc-propagate-layouts --split-input-file | filecheck %s
// RUN: llc-opt %s -p 'llc-propagate-layouts{debug=true}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=DEBUG

// A reduction followed by a broadcast back: the load's coalesced layout flows forward into
// the reduction (a slice of it), back through expand_dims to the parent, and into the divide:
// no conversion. The index computations take the layouts their users need (backward fill).
// CHECK: #[[B:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #[[ROWS:slice[0-9]*]] = #tl.slice<{dim = 1, parent = #[[B]]}>
// CHECK: #[[COLS:slice[0-9]*]] = #tl.slice<{dim = 0, parent = #[[B]]}>
// CHECK-LABEL: func.func @row_normalize
// CHECK-NOT: tl.convert_layout
// CHECK: %i = tl.make_range {{.*}} : tensor<16xi32, #[[ROWS]]>
// CHECK: %j = tl.make_range {{.*}} : tensor<128xi32, #[[COLS]]>
// CHECK: %x = tl.load %x_ptrs : tensor<16x128x!tl.ptr<f32>, #[[B]]>
// CHECK: %sum = tl.reduce %x {axis = 1 : i32} : tensor<16x128xf32, #[[B]]> -> tensor<16xf32, #[[ROWS]]>
// CHECK: %sum2 = tl.expand_dims %sum {axis = 1 : i32} : tensor<16xf32, #[[ROWS]]> -> tensor<16x1xf32, #[[B]]>
// CHECK: %y = arith.divf %x, %sumb : tensor<16x128xf32, #[[B]]>
// CHECK-NOT: tl.convert_layout
// CHECK: tl.store %y_ptrs, %y : tensor<16x128x!tl.ptr<f32>, #[[B]]>
// DEBUG: after anchors
// DEBUG: anchor %x: coalesced load
// DEBUG: anchor tl.store @%y_ptrs: coalesced store
// DEBUG: after propagate
// DEBUG: %sum: candidates #tl.slice<{dim = 1, parent = #tl.blocked<{sizePerThread = [1, 4]
// DEBUG: after fill
// DEBUG: llc-propagate-layouts: 0 conversions
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @row_normalize(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>) {
    %i = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %i2 = tl.expand_dims %i {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %rows = tl.broadcast %i2 : tensor<16x1xi32> -> tensor<16x128xi32>
    %j = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %j2 = tl.expand_dims %j {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %cols = tl.broadcast %j2 : tensor<1x128xi32> -> tensor<16x128xi32>
    %c128 = tl.constant 128 : tensor<16x128xi32>
    %row_off = arith.muli %rows, %c128 : tensor<16x128xi32>
    %off = arith.addi %row_off, %cols : tensor<16x128xi32>
    %x_base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<16x128x!tl.ptr<f32>>
    %x_ptrs = tl.addptr %x_base, %off : tensor<16x128x!tl.ptr<f32>>, tensor<16x128xi32>
    %x = tl.load %x_ptrs : tensor<16x128x!tl.ptr<f32>>
    %sum = tl.reduce %x {axis = 1 : i32} : tensor<16x128xf32> -> tensor<16xf32> {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tl.reduce.return %s : f32
    }
    %sum2 = tl.expand_dims %sum {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %sumb = tl.broadcast %sum2 : tensor<16x1xf32> -> tensor<16x128xf32>
    %y = arith.divf %x, %sumb : tensor<16x128xf32>
    %y_base = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<16x128x!tl.ptr<f32>>
    %y_ptrs = tl.addptr %y_base, %off : tensor<16x128x!tl.ptr<f32>>, tensor<16x128xi32>
    tl.store %y_ptrs, %y : tensor<16x128x!tl.ptr<f32>>
    func.return
  }
}

// -----

// scf.for with a loop-carried accumulator: the dot anchors the accumulator class (init
// constant, iteration argument, yielded value, loop result) in #mma, so the loop carries it
// without conversion. The staged analysis converted the result to the coalesced store's
// layout after the loop (layout report: total 7820); the solver stores from #mma instead (a
// 64-bit store touching the same 128 sectors, 272 cycles, against a 214-cycle conversion plus
// the 264-cycle coalesced store) and recomputes the offsets in #mma (total 5392).
// CHECK: #[[MMA:mma[0-9]*]] = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-LABEL: func.func @kloop
// CHECK: %zero = tl.constant 0.000000e+00 : tensor<64x64xf32, #[[MMA]]>
// CHECK: %acc = scf.for {{.*}} iter_args(%acc_i = %zero) -> (tensor<64x64xf32, #[[MMA]]>)
// CHECK: %d = tl.dot {{.*}}, %acc_i : {{.*}} -> tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT: scf.yield %d : tensor<64x64xf32, #[[MMA]]>
// CHECK-NOT: tl.convert_layout %acc
// CHECK: tl.store %c_ptrs, %acc : tensor<64x64x!tl.ptr<f32>, #[[MMA]]>
// DEBUG: anchor %d: dot
// DEBUG: %zero, %acc, %acc_i, %d: anchor #tl.nvidia_mma
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @kloop(%a_ptr: !tl.ptr<f16>, %b_ptr: !tl.ptr<f16>, %c_ptr: !tl.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
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
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32>
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
      %a = tl.load %a_ptrs : tensor<64x64x!tl.ptr<f16>>
      %b = tl.load %b_ptrs : tensor<64x64x!tl.ptr<f16>>
      %d = tl.dot %a, %b, %acc_i : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c_base = tl.splat %c_ptr : !tl.ptr<f32> -> tensor<64x64x!tl.ptr<f32>>
    %c_ptrs = tl.addptr %c_base, %off : tensor<64x64x!tl.ptr<f32>>, tensor<64x64xi32>
    tl.store %c_ptrs, %acc : tensor<64x64x!tl.ptr<f32>>
    func.return
  }
}

// -----

// scf.if whose branches disagree: each branch loads with its own coalesced layout (row-major
// and column-major pointers), control flow ties both to the if's result, and the cost model
// picks the row-major layout the store also wants: the column-major branch converts, inside
// the branch, and nothing else does.
// CHECK: #[[ROW:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #[[COL:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @branches
// CHECK: %v = scf.if %flag -> (tensor<64x64xf32, #[[ROW]]>) {
// CHECK-NEXT: %row_major = tl.load %x_ptrs : tensor<64x64x!tl.ptr<f32>, #[[ROW]]>
// CHECK-NEXT: scf.yield %row_major : tensor<64x64xf32, #[[ROW]]>
// CHECK-NEXT: } else {
// CHECK-NEXT: %col_major = tl.load %{{.*}} : tensor<64x64x!tl.ptr<f32>, #[[COL]]>
// CHECK-NEXT: %[[CVT:.*]] = tl.convert_layout %col_major : tensor<64x64xf32, #[[COL]]> -> tensor<64x64xf32, #[[ROW]]>
// CHECK-NEXT: scf.yield %[[CVT]] : tensor<64x64xf32, #[[ROW]]>
// CHECK: tl.store %y_ptrs, %v : tensor<64x64x!tl.ptr<f32>, #[[ROW]]>
// DEBUG: anchor conflict %row_major, %col_major: {{.*}} -> #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
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

// -----

// scf.while: the loop-carried tensor (init, before-region argument, condition operand,
// after-region argument, yield, result) is one class and takes the load's layout everywhere.
// CHECK: #[[W:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @halve
// CHECK-NOT: tl.convert_layout
// CHECK: scf.while (%v = %x, %i = %c0) : (tensor<512xf32, #[[W]]>, i32) -> (tensor<512xf32, #[[W]]>, i32)
// CHECK: ^bb0(%w: tensor<512xf32, #[[W]]>, %j: i32):
// CHECK-NEXT: %h = math.sqrt %w : tensor<512xf32, #[[W]]>
// CHECK-NOT: tl.convert_layout
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @halve(%p: !tl.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = tl.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %base = tl.splat %p : !tl.ptr<f32> -> tensor<512x!tl.ptr<f32>>
    %ptrs = tl.addptr %base, %r : tensor<512x!tl.ptr<f32>>, tensor<512xi32>
    %x = tl.load %ptrs : tensor<512x!tl.ptr<f32>>
    %res:2 = scf.while (%v = %x, %i = %c0) : (tensor<512xf32>, i32) -> (tensor<512xf32>, i32) {
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %v, %i : tensor<512xf32>, i32
    } do {
    ^bb0(%w: tensor<512xf32>, %j: i32):
      %h = math.sqrt %w : tensor<512xf32>
      %j1 = arith.addi %j, %c1 : i32
      scf.yield %h, %j1 : tensor<512xf32>, i32
    }
    tl.store %ptrs, %res#0 : tensor<512x!tl.ptr<f32>>
    func.return
  }
}

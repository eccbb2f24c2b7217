// RUN: llc-opt %s -p 'llc-remove-conversions{solver=staged}' --split-input-file | filecheck %s
// RUN: llc-opt %s -p 'llc-remove-conversions{solver=staged debug=true}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=DEBUG

#A = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  // Rematerialization: the converted value is a cheap chain of a range, a splat and an add;
  // recomputing it in #B costs less than a shared-memory round trip.
  // CHECK: #[[B:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
  // CHECK: #[[SLB:slice[0-9]*]] = #tl.slice<{dim = 0, parent = #[[B]]}>
  // CHECK: #[[A:blocked[0-9]*]] = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
  // CHECK-LABEL: func.func @remat
  // CHECK-NOT: tl.convert_layout
  // CHECK: %r = tl.make_range {{.*}} : tensor<64xi32, #[[SLB]]>
  // CHECK: %sum = arith.addi %b, %splat : tensor<64x64xi32, #[[B]]>
  // CHECK: "test.op"(%sum) : (tensor<64x64xi32, #[[B]]>) -> ()
  // DEBUG: remat cvt %c: 5 ops, 0 leaves
  func.func @remat(%s: i32) {
    %r = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #A}>>
    %e = tl.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #tl.slice<{dim = 0, parent = #A}>> -> tensor<1x64xi32, #A>
    %b = tl.broadcast %e : tensor<1x64xi32, #A> -> tensor<64x64xi32, #A>
    %splat = tl.splat %s : i32 -> tensor<64x64xi32, #A>
    %sum = arith.addi %b, %splat : tensor<64x64xi32, #A>
    %c = tl.convert_layout %sum : tensor<64x64xi32, #A> -> tensor<64x64xi32, #B>
    "test.op"(%c) : (tensor<64x64xi32, #B>) -> ()
    func.return
  }

  // Hoisting above a widening cast: convert the f16 values, then extend (half the bytes move).
  // CHECK-LABEL: func.func @hoist_ext
  // CHECK: %[[H:.*]] = tl.convert_layout %h : tensor<64x64xf16, #[[A]]> -> tensor<64x64xf16, #[[B]]>
  // CHECK: arith.extf %[[H]] : tensor<64x64xf16, #[[B]]> to tensor<64x64xf32, #[[B]]>
  // CHECK-NOT: tl.convert_layout
  func.func @hoist_ext(%h: tensor<64x64xf16, #A>) {
    %w = arith.extf %h : tensor<64x64xf16, #A> to tensor<64x64xf32, #A>
    %c = tl.convert_layout %w : tensor<64x64xf32, #A> -> tensor<64x64xf32, #B>
    "test.op"(%c) : (tensor<64x64xf32, #B>) -> ()
    func.return
  }

  // Hoisting above a broadcast: convert the 64x1 column, then broadcast (64x fewer bytes).
  // CHECK-LABEL: func.func @hoist_broadcast
  // CHECK: %[[X:.*]] = tl.convert_layout %x : tensor<64x1xf32, #[[A]]> -> tensor<64x1xf32, #[[B]]>
  // CHECK: tl.broadcast %[[X]] : tensor<64x1xf32, #[[B]]> -> tensor<64x64xf32, #[[B]]>
  // CHECK-NOT: tl.convert_layout
  func.func @hoist_broadcast(%x: tensor<64x1xf32, #A>) {
    %b = tl.broadcast %x : tensor<64x1xf32, #A> -> tensor<64x64xf32, #A>
    %c = tl.convert_layout %b : tensor<64x64xf32, #A> -> tensor<64x64xf32, #B>
    "test.op"(%c) : (tensor<64x64xf32, #B>) -> ()
    func.return
  }

  // A load that has another user is never duplicated: the conversion stays.
  // CHECK-LABEL: func.func @no_duplicate_load
  // CHECK-COUNT-1: tl.load
  // CHECK: tl.convert_layout %x
  func.func @no_duplicate_load(%p: tensor<64x64x!tl.ptr<f32>, #A>) {
    %x = tl.load %p : tensor<64x64x!tl.ptr<f32>, #A>
    %c = tl.convert_layout %x : tensor<64x64xf32, #A> -> tensor<64x64xf32, #B>
    "test.op"(%x) : (tensor<64x64xf32, #A>) -> ()
    "test.op"(%c) : (tensor<64x64xf32, #B>) -> ()
    func.return
  }

  // Loop-carried value: the body converts its iteration argument to #B on every iteration and
  // back before the yield. The loop now carries #B: one conversion before it, one after it.
  // CHECK-LABEL: func.func @loop_carried
  // CHECK: %[[INIT:.*]] = tl.convert_layout %init : tensor<64x64xf32, #[[A]]> -> tensor<64x64xf32, #[[B]]>
  // CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%v = %[[INIT]]) -> (tensor<64x64xf32, #[[B]]>)
  // CHECK-NEXT: %n = math.exp %v : tensor<64x64xf32, #[[B]]>
  // CHECK-NEXT: scf.yield %n : tensor<64x64xf32, #[[B]]>
  // CHECK: tl.convert_layout %[[R]] : tensor<64x64xf32, #[[B]]> -> tensor<64x64xf32, #[[A]]>
  // DEBUG: loop-carried: iteration argument #0 of scf.for now carried in the converted layout
  func.func @loop_carried(%init: tensor<64x64xf32, #A>, %steps: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %steps step %c1 iter_args(%v = %init) -> (tensor<64x64xf32, #A>) : i32 {
      %c = tl.convert_layout %v : tensor<64x64xf32, #A> -> tensor<64x64xf32, #B>
      %n = math.exp %c : tensor<64x64xf32, #B>
      %back = tl.convert_layout %n : tensor<64x64xf32, #B> -> tensor<64x64xf32, #A>
      scf.yield %back : tensor<64x64xf32, #A>
    }
    "test.op"(%r) : (tensor<64x64xf32, #A>) -> ()
    func.return
  }
}

// -----

// Dot operands converted from a blocked layout are staged through shared memory (Triton's
// ReduceDataDuplication); the chained mma -> dot_op conversion stays in registers.
#blocked = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot_a = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  // CHECK-LABEL: func.func @stage
  // CHECK: tl.convert_layout %a : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_op{{[0-9]*}}>
  // CHECK: %[[M:.*]] = tl.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tl.memdesc<64x64xf16, #[[SH:shared[0-9]*]]>
  // CHECK: %[[OPB:.*]] = tl.local_load %[[M]] : !tl.memdesc<64x64xf16, #[[SH]]> -> tensor<64x64xf16, #dot_op{{[0-9]*}}>
  // CHECK: tl.dot {{.*}}, %[[OPB]], %acc
  func.func @stage(%a: tensor<64x64xf16, #mma>, %b: tensor<64x64xf16, #blocked>, %acc: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %ad = tl.convert_layout %a : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
    %bd = tl.convert_layout %b : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_b>
    %d = tl.dot %ad, %bd, %acc : tensor<64x64xf16, #dot_a> * tensor<64x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
    func.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// An index chain inside a loop (attention's key offsets `start_n + arange`), needed as rows
// and as columns: the two slice layouts have the same linear layout, so the conversion is
// free, and recomputing `splat`/`addi`/`make_range` in the other layout is identical code
// (the backend merges the copies). The conversion op goes: no convert_layout is left.
// CHECK-LABEL: func.func @index_chain
// CHECK-NOT: tl.convert_layout
// CHECK: %start_1 = tl.splat %i : i32 -> tensor<64xi32, #[[SC:slice[0-9]*]]>
// CHECK: %offs_1 = arith.addi %start_1, %range_1 : tensor<64xi32, #[[SC]]>
// CHECK: %as_cols = tl.expand_dims %offs_1 {axis = 0 : i32} : tensor<64xi32, #[[SC]]>
// CHECK-NOT: tl.convert_layout
// DEBUG: remat cvt %cvt: 3 ops, 0 leaves, cost 0 <= 0
#rows = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#cols = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>
#srows = #tl.slice<{dim = 1, parent = #rows}>
#scols = #tl.slice<{dim = 0, parent = #cols}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @index_chain(%n: i32, %a0: tensor<64x1xi32, #rows>, %b0: tensor<1x64xi32, #cols>) -> (tensor<64x1xi32, #rows>, tensor<1x64xi32, #cols>) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %range = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #srows>
    %r:2 = scf.for %i = %c0 to %n step %c64 iter_args(%a = %a0, %b = %b0) -> (tensor<64x1xi32, #rows>, tensor<1x64xi32, #cols>) : i32 {
      %start = tl.splat %i : i32 -> tensor<64xi32, #srows>
      %offs = arith.addi %start, %range : tensor<64xi32, #srows>
      %as_rows = tl.expand_dims %offs {axis = 1 : i32} : tensor<64xi32, #srows> -> tensor<64x1xi32, #rows>
      %cvt = tl.convert_layout %offs : tensor<64xi32, #srows> -> tensor<64xi32, #scols>
      %as_cols = tl.expand_dims %cvt {axis = 0 : i32} : tensor<64xi32, #scols> -> tensor<1x64xi32, #cols>
      %a1 = arith.addi %a, %as_rows : tensor<64x1xi32, #rows>
      %b1 = arith.addi %b, %as_cols : tensor<1x64xi32, #cols>
      scf.yield %a1, %b1 : tensor<64x1xi32, #rows>, tensor<1x64xi32, #cols>
    }
    func.return %r#0, %r#1 : tensor<64x1xi32, #rows>, tensor<1x64xi32, #cols>
  }
}

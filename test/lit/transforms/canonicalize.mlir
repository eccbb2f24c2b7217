// The folds of tl.convert_layout under xDSL's canonicalize pass, run by llc-opt and by the stock
// xdsl-opt (which loads llc's dialect through the xdsl.universe plugin; llc-opt re-prints its output
// with layout aliases).
// RUN: llc-opt %s -p canonicalize --split-input-file | filecheck %s
// RUN: xdsl-opt %s -p canonicalize --split-input-file | llc-opt - --split-input-file | filecheck %s

// CHECK:      #blocked1 = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-NEXT: #slice = #tl.slice<{dim = 0, parent = #blocked1}>
// CHECK-NEXT: #slice1 = #tl.slice<{dim = 1, parent = #blocked1}>
#b0 = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#b1 = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32} {
  // A conversion to the same type is its operand.
  // CHECK-LABEL: func.func @identity
  // CHECK-NEXT:    func.return %x : tensor<32x32xf32, #blocked>
  func.func @identity(%x: tensor<32x32xf32, #b0>) -> tensor<32x32xf32, #b0> {
    %y = tl.convert_layout %x : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #b0>
    func.return %y : tensor<32x32xf32, #b0>
  }

  // A chain A -> B -> C is one conversion A -> C; the dead middle conversion goes.
  // CHECK-LABEL: func.func @chain
  // CHECK-NEXT:    %{{.*}} = tl.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #mma>
  // CHECK-NEXT:    func.return
  func.func @chain(%x: tensor<32x32xf32, #b0>) -> tensor<32x32xf32, #mma> {
    %y = tl.convert_layout %x : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #b1>
    %z = tl.convert_layout %y : tensor<32x32xf32, #b1> -> tensor<32x32xf32, #mma>
    func.return %z : tensor<32x32xf32, #mma>
  }

  // A chain that comes back to the source layout is the source; a middle conversion that has
  // another user stays.
  // CHECK-LABEL: func.func @round_trip
  // CHECK-NEXT:    %[[Y:.*]] = tl.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
  // CHECK-NEXT:    func.return %x, %[[Y]] : tensor<32x32xf32, #blocked>, tensor<32x32xf32, #blocked1>
  func.func @round_trip(%x: tensor<32x32xf32, #b0>) -> (tensor<32x32xf32, #b0>, tensor<32x32xf32, #b1>) {
    %y = tl.convert_layout %x : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #b1>
    %z = tl.convert_layout %y : tensor<32x32xf32, #b1> -> tensor<32x32xf32, #b0>
    func.return %z, %y : tensor<32x32xf32, #b0>, tensor<32x32xf32, #b1>
  }

  // Constants (splat and dense, tl and arith), splats and ranges are made in the target layout.
  // CHECK-LABEL: func.func @producers
  // CHECK-NEXT:    %[[C:.*]] = tl.constant 1.500000e+00 : tensor<32x32xf32, #blocked1>
  // CHECK-NEXT:    %[[D:.*]] = tl.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #slice>
  // CHECK-NEXT:    %[[A:.*]] = arith.constant dense<2.000000e+00> : tensor<32x32xf32, #mma>
  // CHECK-NEXT:    %[[S:.*]] = tl.splat %s : f32 -> tensor<32x32xf32, #mma>
  // CHECK-NEXT:    %[[R:.*]] = tl.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #slice1>
  // CHECK-NEXT:    func.return %[[C]], %[[D]], %[[A]], %[[S]], %[[R]] :
  func.func @producers(%s: f32) -> (tensor<32x32xf32, #b1>, tensor<4xi32, #tl.slice<{dim = 0, parent = #b1}>>, tensor<32x32xf32, #mma>, tensor<32x32xf32, #mma>, tensor<32xi32, #tl.slice<{dim = 1, parent = #b1}>>) {
    %c = tl.constant 1.5 : tensor<32x32xf32, #b0>
    %c1 = tl.convert_layout %c : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #b1>
    %d = tl.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #tl.slice<{dim = 0, parent = #b0}>>
    %d1 = tl.convert_layout %d : tensor<4xi32, #tl.slice<{dim = 0, parent = #b0}>> -> tensor<4xi32, #tl.slice<{dim = 0, parent = #b1}>>
    %a = arith.constant dense<2.0> : tensor<32x32xf32, #b0>
    %a1 = tl.convert_layout %a : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #mma>
    %sp = tl.splat %s : f32 -> tensor<32x32xf32, #b0>
    %sp1 = tl.convert_layout %sp : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #mma>
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 1, parent = #b0}>>
    %r1 = tl.convert_layout %r : tensor<32xi32, #tl.slice<{dim = 1, parent = #b0}>> -> tensor<32xi32, #tl.slice<{dim = 1, parent = #b1}>>
    func.return %c1, %d1, %a1, %sp1, %r1 : tensor<32x32xf32, #b1>, tensor<4xi32, #tl.slice<{dim = 0, parent = #b1}>>, tensor<32x32xf32, #mma>, tensor<32x32xf32, #mma>, tensor<32xi32, #tl.slice<{dim = 1, parent = #b1}>>
  }

  // A chain ending in a folded producer: cvt(cvt(splat)) is one splat.
  // CHECK-LABEL: func.func @chain_of_splat
  // CHECK-NEXT:    %[[S:.*]] = tl.splat %s : f32 -> tensor<32x32xf32, #mma>
  // CHECK-NEXT:    func.return %[[S]]
  func.func @chain_of_splat(%s: f32) -> tensor<32x32xf32, #mma> {
    %sp = tl.splat %s : f32 -> tensor<32x32xf32, #b0>
    %y = tl.convert_layout %sp : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #b1>
    %z = tl.convert_layout %y : tensor<32x32xf32, #b1> -> tensor<32x32xf32, #mma>
    func.return %z : tensor<32x32xf32, #mma>
  }

  // Conversions of other values stay; dead pure tl ops go, side effects stay.
  // CHECK-LABEL: func.func @kept
  // CHECK-NEXT:    %[[V:.*]] = tl.load %p : tensor<32x32x!tl.ptr<f32>, #blocked>
  // CHECK-NEXT:    %[[W:.*]] = tl.convert_layout %[[V]] : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
  // CHECK-NEXT:    tl.store %q, %[[W]] : tensor<32x32x!tl.ptr<f32>, #blocked1>
  // CHECK-NEXT:    func.return
  func.func @kept(%p: tensor<32x32x!tl.ptr<f32>, #b0>, %q: tensor<32x32x!tl.ptr<f32>, #b1>) {
    %v = tl.load %p : tensor<32x32x!tl.ptr<f32>, #b0>
    %w = tl.convert_layout %v : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #b1>
    %dead_t = tl.trans %w {order = array<i32: 1, 0>} : tensor<32x32xf32, #b1> -> tensor<32x32xf32, #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
    %dead_r = tl.reduce %v {axis = 0 : i32} : tensor<32x32xf32, #b0> -> tensor<32xf32, #tl.slice<{dim = 0, parent = #b0}>> {
    ^bb0(%l: f32, %r: f32):
      %m = arith.addf %l, %r : f32
      tl.reduce.return %m : f32
    }
    %dead_e = tl.expand_dims %dead_r {axis = 0 : i32} : tensor<32xf32, #tl.slice<{dim = 0, parent = #b0}>> -> tensor<1x32xf32, #b0>
    %dead_b = tl.broadcast %dead_e : tensor<1x32xf32, #b0> -> tensor<32x32xf32, #b0>
    %dead_c = tl.cmpf olt, %dead_b, %v : tensor<32x32xf32, #b0>
    %pid = tl.get_program_id x : i32
    tl.store %q, %w : tensor<32x32x!tl.ptr<f32>, #b1>
    func.return
  }
}

// -----

// Inside loops and conditionals too.
#b0 = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32} {
  // CHECK-LABEL: func.func @loop
  // CHECK:         scf.for
  // CHECK-NEXT:      %[[Z:.*]] = tl.convert_layout %{{.*}} : tensor<512xf32, #blocked> -> tensor<512xf32, #blocked1>
  // CHECK-NEXT:      %{{.*}} = arith.addf %{{.*}}, %[[Z]]
  // CHECK-NOT:     tl.convert_layout
  func.func @loop(%x: tensor<512xf32, #b0>, %n: index) -> tensor<512xf32, #b1> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %init = tl.constant 0.0 : tensor<512xf32, #b1>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<512xf32, #b1>) {
      %y = tl.convert_layout %x : tensor<512xf32, #b0> -> tensor<512xf32, #b1>
      %y0 = tl.convert_layout %y : tensor<512xf32, #b1> -> tensor<512xf32, #b0>
      %y1 = tl.convert_layout %y0 : tensor<512xf32, #b0> -> tensor<512xf32, #b1>
      %s = arith.addf %acc, %y1 : tensor<512xf32, #b1>
      scf.yield %s : tensor<512xf32, #b1>
    }
    func.return %r : tensor<512xf32, #b1>
  }
}

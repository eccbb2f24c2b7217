// llc-lower-to-simt on tl.scan (passes/lower_scan.py).
// RUN: llc-opt -p llc-lower-to-simt %s | filecheck %s
// RUN: llc-opt -p llc-lower-to-simt %s -t ptx > %t.ptx
// RUN: python -c "import sys; from llc.testing.ptxas import assemble; print(repr(assemble(open(sys.argv[1]).read(), 'sm_80')))" %t.ptx | filecheck %s --check-prefix=PTXAS
// PTXAS: {{^}}''{{$}}
// @cumsum: 2 f32 per thread, 32 lanes, 4 warps along the axis. The pair in registers, then the
// pair totals over the lanes (5 rounds of shfl.sync.up by 1, 2, 4, 8, 16 lanes, a lane below the
// offset keeps its value), one more up-shuffle for the lanes before, the warp total from lane 31,
// then one 16-byte buffer of the 4 warp totals: store, one barrier, the 3 totals a warp may need.
// CHECK-LABEL: func.func @cumsum
// CHECK: %[[TID:.*]] = "gpu.thread_id"()
// CHECK: %[[V:.*]] = simt.global_load {{.*}} : vector<2xf32>
// CHECK: %[[R0:.*]] = vector.shuffle %[[V]], %[[V]] [0]
// CHECK: %[[R1:.*]] = vector.shuffle %[[V]], %[[V]] [1]
// CHECK: %[[PAIR:.*]] = arith.addf %[[R0]], %[[R1]] : vector<1xf32>
// CHECK: %[[LANE0:.*]] = arith.andi %[[TID]], %{{.*}} : index
// CHECK: %[[HAS0:.*]] = arith.cmpi ne, %[[LANE0]], %{{.*}} : index
// CHECK: %[[UP:.*]] = simt.shuffle "up" %[[PAIR]], %{{.*}} c = 0 mask = -1 : vector<1xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[UP]], %[[PAIR]] : vector<1xf32>
// CHECK: arith.select %[[HAS0]], %[[SUM]], %[[PAIR]] : vector<1xf32>
// CHECK-COUNT-5: simt.shuffle "up"
// CHECK-NOT: simt.shuffle "up"
// CHECK: simt.shuffle "idx"
// CHECK-NOT: simt.shuffle
// CHECK: simt.shared_alloc : !simt.smem<16, align 16>
// CHECK: simt.shared_store
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-COUNT-3: simt.shared_load
// CHECK-NOT: "gpu.barrier"
// CHECK: simt.global_store {{.*}} : vector<2xf32>
//
// @revmax: a reversed scan of f64 rows (2 per thread, 8 lanes): the lanes read from above
// (shfl.sync.down, clamp 31), each f64 as two 32-bit shuffles; the register pair is combined from
// its end; no shared memory.
// CHECK-LABEL: func.func @revmax
// CHECK: %[[V:.*]] = simt.global_load {{.*}} : vector<2xf64>
// CHECK: %[[HI:.*]] = vector.shuffle %[[V]], %[[V]] [1]
// CHECK: %[[LO:.*]] = vector.shuffle %[[V]], %[[V]] [0]
// CHECK: arith.maximumf %[[HI]], %[[LO]] : vector<1xf64>
// CHECK-COUNT-8: simt.shuffle "down" {{.*}} c = 31 mask = -1 : vector<1xi32>
// CHECK-NOT: simt.shuffle
// CHECK-NOT: simt.shared_alloc
// CHECK: simt.global_store {{.*}} : vector<2xf64>
//
// @lanes: rows of 32 i32, one per lane: the first run is the lanes, so their scan is the result:
// 5 up-shuffles and nothing else.
// CHECK-LABEL: func.func @lanes
// CHECK-COUNT-5: simt.shuffle "up"
// CHECK-NOT: simt.shuffle
// CHECK: simt.global_store

#b1 = #tl.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#lanes = #tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tl.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @cumsum(%x: !tl.ptr<f32>, %y: !tl.ptr<f32>) {
    %r = tl.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b1>
    %xb = tl.splat %x : !tl.ptr<f32> -> tensor<256x!tl.ptr<f32>, #b1>
    %xp = tl.addptr %xb, %r : tensor<256x!tl.ptr<f32>, #b1>, tensor<256xi32, #b1>
    %v = tl.load %xp : tensor<256x!tl.ptr<f32>, #b1>
    %s = tl.scan %v {axis = 0 : i32, reverse = false} : tensor<256xf32, #b1> -> tensor<256xf32, #b1> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tl.scan.return %c : f32
    }
    %yb = tl.splat %y : !tl.ptr<f32> -> tensor<256x!tl.ptr<f32>, #b1>
    %yp = tl.addptr %yb, %r : tensor<256x!tl.ptr<f32>, #b1>, tensor<256xi32, #b1>
    tl.store %yp, %s : tensor<256x!tl.ptr<f32>, #b1>
    func.return
  }
  func.func @revmax(%x: !tl.ptr<f64>, %y: !tl.ptr<f64>) {
    %r = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #tl.slice<{dim = 0, parent = #rows}>>
    %r2 = tl.expand_dims %r {axis = 0 : i32} : tensor<16xi32, #tl.slice<{dim = 0, parent = #rows}>> -> tensor<1x16xi32, #rows>
    %rb = tl.broadcast %r2 : tensor<1x16xi32, #rows> -> tensor<16x16xi32, #rows>
    %xb = tl.splat %x : !tl.ptr<f64> -> tensor<16x16x!tl.ptr<f64>, #rows>
    %xp = tl.addptr %xb, %rb : tensor<16x16x!tl.ptr<f64>, #rows>, tensor<16x16xi32, #rows>
    %v = tl.load %xp : tensor<16x16x!tl.ptr<f64>, #rows>
    %s = tl.scan %v {axis = 1 : i32, reverse = true} : tensor<16x16xf64, #rows> -> tensor<16x16xf64, #rows> {
    ^bb0(%a: f64, %b: f64):
      %c = arith.maximumf %a, %b : f64
      tl.scan.return %c : f64
    }
    %yb = tl.splat %y : !tl.ptr<f64> -> tensor<16x16x!tl.ptr<f64>, #rows>
    %yp = tl.addptr %yb, %rb : tensor<16x16x!tl.ptr<f64>, #rows>, tensor<16x16xi32, #rows>
    tl.store %yp, %s : tensor<16x16x!tl.ptr<f64>, #rows>
    func.return
  }
  func.func @lanes(%x: !tl.ptr<i32>, %y: !tl.ptr<i32>) {
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #lanes}>>
    %r2 = tl.expand_dims %r {axis = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #lanes}>> -> tensor<1x32xi32, #lanes>
    %rb = tl.broadcast %r2 : tensor<1x32xi32, #lanes> -> tensor<4x32xi32, #lanes>
    %xb = tl.splat %x : !tl.ptr<i32> -> tensor<4x32x!tl.ptr<i32>, #lanes>
    %xp = tl.addptr %xb, %rb : tensor<4x32x!tl.ptr<i32>, #lanes>, tensor<4x32xi32, #lanes>
    %v = tl.load %xp : tensor<4x32x!tl.ptr<i32>, #lanes>
    %s = tl.scan %v {axis = 1 : i32, reverse = false} : tensor<4x32xi32, #lanes> -> tensor<4x32xi32, #lanes> {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tl.scan.return %c : i32
    }
    %yb = tl.splat %y : !tl.ptr<i32> -> tensor<4x32x!tl.ptr<i32>, #lanes>
    %yp = tl.addptr %yb, %rb : tensor<4x32x!tl.ptr<i32>, #lanes>, tensor<4x32xi32, #lanes>
    tl.store %yp, %s : tensor<4x32x!tl.ptr<i32>, #lanes>
    func.return
  }
}

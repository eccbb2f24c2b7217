// llc-lower-to-simt on laid-out IR: indices from the layout (register part constant, thread part
// bit fields of gpu.thread_id), 128-bit global accesses where the layout gives 4 contiguous f32,
// a row reduction within the thread then over the 3 lane bits of the row (xor shuffles), and a
// store of the sliced result by the lanes whose broadcast bits are 0 only.
// RUN: llc-opt -p llc-lower-to-simt %s | filecheck %s
// RUN: llc-opt -p llc-lower-to-simt %s | not grep 'tensor<'

// CHECK-LABEL: func.func @copy(%x: !tl.ptr<f32>, %y: !tl.ptr<f32>)
// CHECK: %[[TID:.*]] = "gpu.thread_id"()
// CHECK: %[[LANES:.*]] = arith.andi %[[TID]], %{{.*}} : index
// CHECK: %[[SHIFTED:.*]] = arith.shli %[[LANES]], %{{.*}} : index
// CHECK: %[[REG:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xi32>
// CHECK: %[[T32:.*]] = arith.index_cast %[[SHIFTED]] : index to i32
// CHECK: %[[TV:.*]] = vector.broadcast %[[T32]] : i32 to vector<4xi32>
// CHECK: arith.xori %[[TV]], %[[REG]] : vector<4xi32>
// CHECK: simt.global_load {{.*}} : vector<4xf32>
// CHECK: simt.global_store {{.*}} : vector<4xf32>

// CHECK-LABEL: func.func @rowsum
// CHECK: simt.global_load {{.*}} : vector<4xf32>
// CHECK: vector.shuffle %{{.*}} [0, 2]
// CHECK: vector.shuffle %{{.*}} [1, 3]
// CHECK: arith.addf {{.*}} : vector<2xf32>
// CHECK: arith.addf {{.*}} : vector<1xf32>
// CHECK: simt.shuffle "bfly"
// CHECK: simt.shuffle "bfly"
// CHECK: simt.shuffle "bfly"
// CHECK-NOT: simt.shuffle
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: simt.global_store %{{.*}}, %{{.*}}, %[[FIRST]] : vector<1xf32>
#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#row = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @copy(%x: !tl.ptr<f32>, %y: !tl.ptr<f32>) {
    %r = tl.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %xb = tl.splat %x : !tl.ptr<f32> -> tensor<512x!tl.ptr<f32>, #blocked>
    %xp = tl.addptr %xb, %r : tensor<512x!tl.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %v = tl.load %xp : tensor<512x!tl.ptr<f32>, #blocked>
    %yb = tl.splat %y : !tl.ptr<f32> -> tensor<512x!tl.ptr<f32>, #blocked>
    %yp = tl.addptr %yb, %r : tensor<512x!tl.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    tl.store %yp, %v : tensor<512x!tl.ptr<f32>, #blocked>
    func.return
  }
  func.func @rowsum(%x: !tl.ptr<f32>, %y: !tl.ptr<f32>) {
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #row}>>
    %r2 = tl.expand_dims %r {axis = 0 : i32} : tensor<32xi32, #tl.slice<{dim = 0, parent = #row}>> -> tensor<1x32xi32, #row>
    %rb = tl.broadcast %r2 : tensor<1x32xi32, #row> -> tensor<16x32xi32, #row>
    %xb = tl.splat %x : !tl.ptr<f32> -> tensor<16x32x!tl.ptr<f32>, #row>
    %xp = tl.addptr %xb, %rb : tensor<16x32x!tl.ptr<f32>, #row>, tensor<16x32xi32, #row>
    %v = tl.load %xp : tensor<16x32x!tl.ptr<f32>, #row>
    %s = tl.reduce %v {axis = 1 : i32} : tensor<16x32xf32, #row> -> tensor<16xf32, #tl.slice<{dim = 1, parent = #row}>> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tl.reduce.return %c : f32
    }
    %o = tl.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #tl.slice<{dim = 1, parent = #row}>>
    %yb = tl.splat %y : !tl.ptr<f32> -> tensor<16x!tl.ptr<f32>, #tl.slice<{dim = 1, parent = #row}>>
    %yp = tl.addptr %yb, %o : tensor<16x!tl.ptr<f32>, #tl.slice<{dim = 1, parent = #row}>>, tensor<16xi32, #tl.slice<{dim = 1, parent = #row}>>
    tl.store %yp, %s : tensor<16x!tl.ptr<f32>, #tl.slice<{dim = 1, parent = #row}>>
    func.return
  }
}

// scf.while and scf.if carry per-thread register vectors through llc-compile; the lowered kernel
// gives the tensor-level buffers bit for bit.
// RUN: llc-opt -p llc-compile %s -o %t.simt.mlir
// RUN: filecheck %s --input-file %t.simt.mlir
// RUN: not grep -n 'tensor<' %t.simt.mlir
// RUN: rm -rf %t && mkdir -p %t && python -c "import numpy as np; np.save('%t/x.npy', np.random.default_rng(3).random(512, dtype=np.float32) * 100)"
// RUN: llc-run %s --entry halve --args %t/x.npy 3 1 --out %t/ref
// RUN: llc-run %t.simt.mlir --entry halve --args %t/x.npy 3 1 --out %t/low
// RUN: python -c "import numpy as np; a = np.load('%t/ref/p.npy'); b = np.load('%t/low/p.npy'); assert np.array_equal(a, b) and not np.array_equal(a, np.load('%t/x.npy')), 'differs'; print('same')" | filecheck %s --check-prefix=SAME
// SAME: same
// CHECK-LABEL: func.func @halve
// CHECK: scf.while {{.*}} : (vector<4xf32>, i32) -> (vector<4xf32>, i32)
// CHECK: scf.condition
// CHECK: math.sqrt {{.*}} : vector<4xf32>
// CHECK: scf.if
// CHECK: simt.global_store {{.*}} : vector<4xf32>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @halve(%p: !tl.ptr<f32>, %n: i32, %flag: i1) {
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
    %out = scf.if %flag -> (tensor<512xf32>) {
      %neg = arith.negf %res#0 : tensor<512xf32>
      scf.yield %neg : tensor<512xf32>
    } else {
      scf.yield %res#0 : tensor<512xf32>
    }
    tl.store %ptrs, %out : tensor<512x!tl.ptr<f32>>
    func.return
  }
}

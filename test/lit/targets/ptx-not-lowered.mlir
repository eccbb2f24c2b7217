// -t ptx on IR that is not fully lowered: a located error (file:line:col) naming the first op
// left, exit code 1, no traceback. Here the second op is still at the tensor level.
// RUN: not llc-opt %s -t ptx 2> %t.err
// RUN: filecheck %s --input-file %t.err
// RUN: not grep -q Traceback %t.err
// CHECK: ptx-not-lowered.mlir:[[# @LINE + 6]]:5: error: 'tl.make_range' op -t ptx: the first op left that is not lowered
// CHECK-SAME: run llc-compile (or llc-lower-to-simt) first
// CHECK-NOT: error:
module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
  func.func @k(%p: !tl.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %s = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    func.return
  }
}

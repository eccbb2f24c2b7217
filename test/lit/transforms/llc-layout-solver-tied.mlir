// The layout solver's tied model (llc.passes.layout_solver, issue 18: Triton's tl.sort): in a
// function with more tensor values than solver-tie-above (default 192; -1: never), an
// elementwise op's operands and result that the staged analysis lays out alike form one node.
// Here (tie-above=0) the exp/addf/mulf chain and the index arithmetic collapse: 9 nodes
// instead of 20, and the same optimum and output as the full model.
// RUN: llc-opt %s -p 'llc-propagate-layouts{debug=true solver-tie-above=0}' 2>&1 >/dev/null | filecheck %s --check-prefix=TIED
// RUN: llc-opt %s -p 'llc-propagate-layouts{debug=true solver-tie-above=-1}' 2>&1 >/dev/null | filecheck %s --check-prefix=FULL
// RUN: llc-opt %s -p 'llc-propagate-layouts{solver-tie-above=0}' --layout-report > %t.tied
// RUN: llc-opt %s -p 'llc-propagate-layouts{solver-tie-above=-1}' --layout-report > %t.full
// RUN: diff %t.tied %t.full
// RUN: filecheck %s < %t.tied
// TIED: after solve
// TIED-NEXT: @chain: 9 nodes (8 with a choice, 11 elementwise ties), staged cost 66, optimum 66 (
// FULL: after solve
// FULL-NEXT: @chain: 20 nodes (19 with a choice), staged cost 66, optimum 66 (
// CHECK: total 66: 0 conversions 0, 2 accesses 66
// CHECK: %e = math.exp %h : tensor<4x2x64xf32, #[[L:.*]]>
// CHECK-NEXT: %s = arith.addf %e, %h : tensor<4x2x64xf32, #[[L]]>
// CHECK-NEXT: %m = arith.mulf %s, %e : tensor<4x2x64xf32, #[[L]]>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @chain(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>) {
    %r = tl.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %r2 = tl.expand_dims %r {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %rows = tl.broadcast %r2 : tensor<4x1xi32> -> tensor<4x128xi32>
    %c = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %c2 = tl.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %cols = tl.broadcast %c2 : tensor<1x128xi32> -> tensor<4x128xi32>
    %k = tl.constant 128 : tensor<4x128xi32>
    %ro = arith.muli %rows, %k : tensor<4x128xi32>
    %off = arith.addi %ro, %cols : tensor<4x128xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<4x128x!tl.ptr<f32>>
    %xp = tl.addptr %xb, %off : tensor<4x128x!tl.ptr<f32>>, tensor<4x128xi32>
    %x = tl.load %xp : tensor<4x128x!tl.ptr<f32>>
    %h = tl.reshape %x : tensor<4x128xf32> -> tensor<4x2x64xf32>
    %e = math.exp %h : tensor<4x2x64xf32>
    %s = arith.addf %e, %h : tensor<4x2x64xf32>
    %m = arith.mulf %s, %e : tensor<4x2x64xf32>
    %b = tl.reshape %m : tensor<4x2x64xf32> -> tensor<4x128xf32>
    %yb = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<4x128x!tl.ptr<f32>>
    %yp = tl.addptr %yb, %off : tensor<4x128x!tl.ptr<f32>>, tensor<4x128xi32>
    tl.store %yp, %b : tensor<4x128x!tl.ptr<f32>>
    func.return
  }
}

// Small functions exercising llc-run's argument kinds and outputs (used by cli.test).
module {
  func.func @scale(%x: tensor<2x2xf32>, %s: f32) -> tensor<2x2xf32> {
    %splat = tl.splat %s : f32 -> tensor<2x2xf32>
    %y = arith.mulf %x, %splat : tensor<2x2xf32>
    func.return %y : tensor<2x2xf32>
  }
  // out[pid] = pid * 10 + number of programs
  func.func @fill(%out: !tl.ptr<i32>) {
    %pid = tl.get_program_id x : i32
    %n = tl.get_num_programs x : i32
    %c10 = arith.constant 10 : i32
    %t = arith.muli %pid, %c10 : i32
    %v = arith.addi %t, %n : i32
    %p = tl.addptr %out, %pid : !tl.ptr<i32>, i32
    tl.store %p, %v : !tl.ptr<i32>
    func.return
  }
  // x[i] += 1 for i < 4: reads and writes the same buffer.
  func.func @increment(%x: !tl.ptr<f32>) {
    %r = tl.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %base = tl.splat %x : !tl.ptr<f32> -> tensor<4x!tl.ptr<f32>>
    %ptrs = tl.addptr %base, %r : tensor<4x!tl.ptr<f32>>, tensor<4xi32>
    %v = tl.load %ptrs : tensor<4x!tl.ptr<f32>>
    %one = tl.constant 1.000000e+00 : tensor<4xf32>
    %w = arith.addf %v, %one : tensor<4xf32>
    tl.store %ptrs, %w : tensor<4x!tl.ptr<f32>>
    func.return
  }
}

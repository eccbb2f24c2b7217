// A kernel cut off in the middle: the input ends inside the function, after a comment.
module attributes {"tl.num-warps" = 4 : i32} {
  func.func @k(%p: !tl.ptr<f32>) {
    %c4_i32 = arith.constant 4 : i32
    // the rest of the kernel is mis
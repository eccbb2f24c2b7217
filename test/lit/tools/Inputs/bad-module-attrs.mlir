module attributes {"tl.num-warps" = 3 : i32} {
  func.func @f(%x: f32) -> f32 {
    func.return %x : f32
  }
}
// -----
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 48 : i32} {
  func.func @f(%x: f32) -> f32 {
    func.return %x : f32
  }
}
// -----
module attributes {"tl.num-warps" = 0 : i32} {
}

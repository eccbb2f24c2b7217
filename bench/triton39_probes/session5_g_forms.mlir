// Spellings of Triton 3.9 llc refused until engineer g of session 5, one per chunk (written for llc).
// A bare "cuda" target (no capability): read, chosen for as cuda:90, printed back as written.
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda"} {
  tt.func @bare(%x: tensor<64x64xf16, #b>) -> tensor<64x64xf16, #b> {
    %y = arith.addf %x, %x : tensor<64x64xf16, #b>
    tt.return %y : tensor<64x64xf16, #b>
  }
}

// -----

// 2-warp tiles in a 4-warp module that only an AMD op reads (Triton checks no layout there).
#src = #ttg.linear<{register=[[1]], lane=[[2], [4], [8], [16], [32], [64]], warp=[[128]], block=[]}>
#dst = #ttg.linear<{register=[[1], [256]], lane=[[2], [4], [8], [16], [32], [64]], warp=[[128]], block=[]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32, ttg.target = "hip:gfx942"} {
  tt.func @halves(%a: tensor<256xf16, #src>, %b: tensor<256xf16, #src>) {
    %c = amdg.concat %a, %b : tensor<256xf16, #src>, tensor<256xf16, #src> -> tensor<512xf16, #dst>
    tt.return
  }
}

// -----

// One e8m0 scale per 16 elements along K (64 wide, 4 scales a row).
#k = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [0, 1]}>
#r = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:120"} {
  tt.func @groups_of_16(%a: tensor<64x64xi8, #k>, %sa: tensor<64x4xi8, #r>, %b: tensor<64x64xi8, #r>, %sb: tensor<64x4xi8, #r>) -> tensor<64x64xf32, #r> {
    %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #r>
    %d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e4m3 rhs = e4m3 {fastMath = false} : tensor<64x64xi8, #k>, tensor<64x4xi8, #r> * tensor<64x64xi8, #r>, tensor<64x4xi8, #r> -> tensor<64x64xf32, #r>
    tt.return %d : tensor<64x64xf32, #r>
  }
}

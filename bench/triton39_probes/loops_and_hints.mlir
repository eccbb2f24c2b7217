// Spellings Triton 3.9 writes, one per chunk (written for llc; bench/read_coverage.py counts them).
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @dense_hints(%p: tensor<64x128x!tt.ptr<f16>, #b> {tt.divisibility = 16 : i32, tt.contiguity = 64 : i32}, %o: tensor<64x128xi32, #b>) -> tensor<64x128xf16, #b> {
    %q = tt.addptr %p, %o {tt.divisibility = dense<16> : tensor<64x128xi32>, tt.contiguity = dense<64> : tensor<64x128xi32>, tt.constancy = dense<1> : tensor<64x128xi32>} : tensor<64x128x!tt.ptr<f16>, #b>, tensor<64x128xi32, #b>
    %x = tt.load %q : tensor<64x128x!tt.ptr<f16>, #b>
    tt.return %x : tensor<64x128xf16, #b>
  }
}

// -----

#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @scalar_load(%p: !tt.ptr<f32>, %i: i32) -> tensor<64x128xf32, #b> {
    %q = tt.addptr %p, %i : !tt.ptr<f32>, i32
    %x = tt.load %q : !tt.ptr<f32>
    %s = tt.splat %x : f32 -> tensor<64x128xf32, #b>
    tt.return %s : tensor<64x128xf32, #b>
  }
}

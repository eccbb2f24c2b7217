// Spellings Triton 3.9 writes, one per chunk (written for llc; bench/read_coverage.py counts them).
// Spellings Triton 3.9 writes, one per chunk (written for llc; bench/read_coverage.py counts them).
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx1250"} {
  tt.func @amdg(%x: i32) {
    amdg.cluster_barrier_arrive
    tt.return
  }
}

// -----

module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @hexf(%x: i32) -> f32 {
    %c = arith.constant 0xFF800000 : f32
    tt.return %c : f32
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @contig(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.contiguity = dense<[1, 64]> : tensor<2xi32>}) {
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @unsigned_for(%lb: i32, %ub: i32) {
    %c1 = arith.constant 1 : i32
    scf.for unsigned %i = %lb to %ub step %c1 : i32 {
      scf.yield
    }
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @fp_to_fp(%x: tensor<128xf32, #blocked>) -> tensor<128xf8E4M3FN, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtne : tensor<128xf32, #blocked> -> tensor<128xf8E4M3FN, #blocked>
    tt.return %y : tensor<128xf8E4M3FN, #blocked>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @extf(%x: tensor<128xf16, #blocked>) -> tensor<128xf32, #blocked> {
    %y = arith.extf %x : tensor<128xf16, #blocked> to tensor<128xf32, #blocked>
    %z = math.fma %y, %y, %y : tensor<128xf32, #blocked>
    %w = arith.maximumf %z, %y : tensor<128xf32, #blocked>
    %u = math.absf %w : tensor<128xf32, #blocked>
    %i = arith.fptosi %u : tensor<128xf32, #blocked> to tensor<128xi32, #blocked>
    %d = arith.divsi %i, %i : tensor<128xi32, #blocked>
    %r = arith.remsi %d, %i : tensor<128xi32, #blocked>
    %s = arith.shrui %r, %i : tensor<128xi32, #blocked>
    %b = arith.bitcast %s : tensor<128xi32, #blocked> to tensor<128xf32, #blocked>
    tt.return %b : tensor<128xf32, #blocked>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @reduce2(%x: tensor<4x32xf32, #blocked>, %y: tensor<4x32xi32, #blocked>) -> (tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>, tensor<4xi32, #ttg.slice<{dim = 1, parent = #blocked}>>) {
    %r:2 = "tt.reduce"(%x, %y) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      %c = arith.cmpf ogt, %a, %b : f32
      %m = arith.select %c, %a, %b : f32
      %mi = arith.select %c, %ai, %bi : i32
      tt.reduce.return %m, %mi : f32, i32
    }) : (tensor<4x32xf32, #blocked>, tensor<4x32xi32, #blocked>) -> (tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>, tensor<4xi32, #ttg.slice<{dim = 1, parent = #blocked}>>)
    tt.return %r#0, %r#1 : tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>, tensor<4xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @if_yield(%c: i1, %x: tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked> {
    %r = scf.if %c -> (tensor<128xf32, #blocked>) {
      scf.yield %x : tensor<128xf32, #blocked>
    } else {
      %y = arith.negf %x : tensor<128xf32, #blocked>
      scf.yield %y : tensor<128xf32, #blocked>
    } {ttg.partition = array<i32: 0>}
    tt.return %r : tensor<128xf32, #blocked>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.total-num-warps" = 8 : i32, ttg.shared = 1024 : i32} {
  tt.func public @kernel(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32
    %1 = tt.get_num_programs y : i32
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @print_assert(%x: tensor<128xi32, #blocked>, %c: tensor<128xi1, #blocked>) {
    tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : tensor<128xi32, #blocked>
    tt.assert %c, "bad" : tensor<128xi1, #blocked>
    tt.return
  }
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wgmma_usec(%a: !ttg.memdesc<64x64xf16, #shared, #smem>, %b: !ttg.memdesc<64x64xf16, #shared, #smem>, %c: tensor<64x64xf32, #mma>, %use: i1) -> tensor<64x64xf32, #mma> {
    %d = ttng.warp_group_dot %a, %b, %c, %use {inputPrecision = 0 : i32, isAsync = true} : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    %e = ttng.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #mma>
    tt.return %e : tensor<64x64xf32, #mma>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @switch(%i: index, %x: i32) -> i32 {
    %r = scf.index_switch %i -> i32
    case 0 {
      scf.yield %x : i32
    }
    default {
      %c = arith.constant 1 : i32
      scf.yield %c : i32
    }
    tt.return %r : i32
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @scan_rev(%x: tensor<128xi32, #blocked>) -> tensor<128xi32, #blocked> {
    %r = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tt.scan.return %s : i32
    }) : (tensor<128xi32, #blocked>) -> tensor<128xi32, #blocked>
    tt.return %r : tensor<128xi32, #blocked>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @atomic_scalar(%p: !tt.ptr<i32>, %v: i32) -> i32 {
    %x = tt.atomic_rmw add, relaxed, gpu, %p, %v : (!tt.ptr<i32>, i32) -> i32
    %y = tt.atomic_cas acq_rel, cta, %p, %v, %x : (!tt.ptr<i32>, i32, i32) -> i32
    tt.return %y : i32
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @join_split_cat(%x: tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked}>>) {
    tt.return
  }
  tt.func @elementwise_asm(%x: tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>>) -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %y = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    tt.return %y : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
}

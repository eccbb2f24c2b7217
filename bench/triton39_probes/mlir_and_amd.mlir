// Spellings Triton 3.9 writes, one per chunk (written for llc; bench/read_coverage.py counts them).
// Spellings Triton 3.9 writes, one per chunk (written for llc; bench/read_coverage.py counts them).
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @poison() -> tensor<128xf32, #blocked> {
    %p = ub.poison : tensor<128xf32, #blocked>
    tt.return %p : tensor<128xf32, #blocked>
  }
}

// -----

module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @barrier() {
    gpu.barrier
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func private @callee(%x: i32) -> i32
  tt.func @caller(%x: i32) -> i32 {
    %y = tt.call @callee(%x) : (i32) -> i32
    tt.return %y : i32
  }
}

// -----

module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @exec(%c: i1) -> i32 {
    %r = scf.execute_region -> i32 {
      %a = arith.constant 1 : i32
      scf.yield %a : i32
    }
    tt.return %r : i32
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @cf(%c: i1, %x: i32) -> i32 {
    cf.cond_br %c, ^bb1(%x : i32), ^bb2
  ^bb1(%a: i32):
    tt.return %a : i32
  ^bb2:
    %z = arith.constant 0 : i32
    tt.return %z : i32
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @multiline(%b: !ttg.memdesc<1xi64, #shared, #smem, mutable>) {
    ttng.init_barrier %b, 1 :
      !ttg.memdesc<1xi64, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @partition_attrs(%x: tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked> {
    %y = arith.addf %x, %x {ttg.partition = array<i32: 0, 1>} : tensor<128xf32, #blocked>
    tt.return %y : tensor<128xf32, #blocked>
  }
}

// -----

#shared = #ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func @rotating(%m: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>) {
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @index_ops(%x: i32) -> index {
    %i = arith.index_cast %x : i32 to index
    %j = arith.addi %i, %i : index
    tt.return %j : index
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @reduce_custom(%x: tensor<4x32xf32, #blocked>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %r = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tt.reduce.return %m : f32
    }) : (tensor<4x32xf32, #blocked>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    tt.return %r : tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @for_attrs(%lb: i32, %ub: i32, %x: tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked> {
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %x) -> (tensor<128xf32, #blocked>) : i32 {
      %y = arith.addf %acc, %acc : tensor<128xf32, #blocked>
      scf.yield %y : tensor<128xf32, #blocked>
    } {tt.num_stages = 3 : i32, tt.warp_specialize, tt.disallow_acc_multi_buffer}
    tt.return %r : tensor<128xf32, #blocked>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @nvws_aref() {
    tt.return
  }
  tt.func @select_scalar(%c: i1, %a: !tt.ptr<f32>, %b: !tt.ptr<f32>) -> !tt.ptr<f32> {
    %r = arith.select %c, %a, %b : !tt.ptr<f32>
    tt.return %r : !tt.ptr<f32>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @int_cst() -> tensor<128xi1, #blocked> {
    %t = arith.constant dense<true> : tensor<128xi1, #blocked>
    %m = arith.constant dense<-1> : tensor<128xi32, #blocked>
    %f = arith.constant dense<0xFF800000> : tensor<128xf32, #blocked>
    %h = arith.constant dense<1.000000e+00> : tensor<128xbf16, #blocked>
    %i = arith.constant 1.0 : f16
    tt.return %t : tensor<128xi1, #blocked>
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @while_multi(%x: i32) -> (i32, i32) {
    %r:2 = scf.while (%a = %x, %b = %x) : (i32, i32) -> (i32, i32) {
      %c = arith.cmpi slt, %a, %b : i32
      scf.condition(%c) %a, %b : i32, i32
    } do {
    ^bb0(%a: i32, %b: i32):
      %n = arith.addi %a, %b : i32
      scf.yield %n, %b : i32, i32
    }
    tt.return %r#0, %r#1 : i32, i32
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func @atomic(%p: tensor<128x!tt.ptr<f32>, #blocked>, %v: tensor<128xf32, #blocked>, %m: tensor<128xi1, #blocked>) -> tensor<128xf32, #blocked> {
    %x = tt.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : (tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xf32, #blocked>, tensor<128xi1, #blocked>) -> tensor<128xf32, #blocked>
    tt.return %x : tensor<128xf32, #blocked>
  }
}

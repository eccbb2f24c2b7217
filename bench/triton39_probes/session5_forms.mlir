// Spellings of Triton 3.9 llc did not read before session 5, one per chunk (written for llc).
// A partitioned buffer whose pieces use a padded layout given by an alias.
#pad = #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 32]}>
#parts = #ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, partitionLayout = #pad}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "hip:gfx1250"} {
  tt.func @partitioned(%arg: !ttg.memdesc<64x32xbf16, #parts, #ttg.shared_memory>) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x32xbf16, #parts, #ttg.shared_memory, mutable>
    ttg.local_dealloc %buf : !ttg.memdesc<64x32xbf16, #parts, #ttg.shared_memory, mutable>
    tt.return
  }
}

// -----

// Tensor-memory ops whose token results have no type in the text.
#acc = #ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#tm = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  tt.func @tokens(%a: !ttg.memdesc<128x32xf16, #nv, #ttg.shared_memory>, %b: !ttg.memdesc<32x64xf16, #nv, #ttg.shared_memory>, %x: tensor<128x64xf32, #acc>, %on: i1) -> tensor<128x64xf32, #acc> {
    %m, %t0 = ttng.tmem_alloc %x : (tensor<128x64xf32, #acc>) -> (!ttg.memdesc<128x64xf32, #tm, #ttng.tensor_memory, mutable>, !ttg.async.token)
    %t1 = ttng.tc_gen5_mma %a, %b, %m[%t0], %on, %on : !ttg.memdesc<128x32xf16, #nv, #ttg.shared_memory>, !ttg.memdesc<32x64xf16, #nv, #ttg.shared_memory>, !ttg.memdesc<128x64xf32, #tm, #ttng.tensor_memory, mutable>
    %t2 = ttng.tmem_store %x, %m[%t1], %on : tensor<128x64xf32, #acc> -> !ttg.memdesc<128x64xf32, #tm, #ttng.tensor_memory, mutable>
    %r, %t3 = ttng.tmem_load %m[%t2] : !ttg.memdesc<128x64xf32, #tm, #ttng.tensor_memory, mutable> -> tensor<128x64xf32, #acc>
    tt.return %r : tensor<128x64xf32, #acc>
  }
}

// -----

// An op whose types follow `name:` on the next line, LLVM and ROCDL ops, an LLVM global.
#row = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32, ttg.target = "hip:gfx942"} {
  llvm.mlir.global external @scratch() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  tt.func @glue(%lo: tensor<32x32xf16, #row>, %hi: tensor<32x32xf16, #row>, %n: i32) {
    %both = amdg.concat %lo, %hi:
      tensor<32x32xf16, #row>, tensor<32x32xf16, #row> -> tensor<64x32xf16, #row>
    %tid = rocdl.workitem.id.x : i32
    %ok = arith.cmpi slt, %tid, %n : i32
    llvm.intr.assume %ok : i1
    tt.return
  }
}

// -----

// A TMA load that drops the leading unit dim of its block; a warp-group dot of bf16 x f16.
#b2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#sw = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, rank = 3}>
#s2 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#v3 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func @rank_drop(%d: !tt.tensordesc<1x64x64xf16, #sw>, %i: i32, %a: tensor<64x64xbf16, #ttg.dot_op<{opIdx = 0, parent = #v3, kWidth = 2}>>, %b: !ttg.memdesc<64x64xf16, #s2, #ttg.shared_memory>) -> tensor<64x64xf32, #v3> {
    %x = tt.descriptor_load %d[%i, %i, %i] : !tt.tensordesc<1x64x64xf16, #sw> -> tensor<64x64xf16, #b2>
    %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #v3>
    %c = ttng.warp_group_dot %a, %b, %z : tensor<64x64xbf16, #ttg.dot_op<{opIdx = 0, parent = #v3, kWidth = 2}>> * !ttg.memdesc<64x64xf16, #s2, #ttg.shared_memory> -> tensor<64x64xf32, #v3>
    tt.return %c : tensor<64x64xf32, #v3>
  }
}

// -----

// Types of a dialect llc does not model: an aref over two buffers, one of them mutable.
#nv8 = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  tt.func @arefs(%x: !ttg.memdesc<2x32x64xi8, #nv8, #ttg.shared_memory, mutable>, %y: !ttg.memdesc<2x64x32xi8, #nv8, #ttg.shared_memory>, %k: i32) {
    %r = nvws.aref.create %x, %y : !nvws.aref<[!ttg.memdesc<2x32x64xi8, #nv8, #ttg.shared_memory, mutable>, !ttg.memdesc<2x64x32xi8, #nv8, #ttg.shared_memory>]>
    %a, %b, %tok = nvws.aref.put.enter %r[%k, %k] : !nvws.aref<[!ttg.memdesc<2x32x64xi8, #nv8, #ttg.shared_memory, mutable>, !ttg.memdesc<2x64x32xi8, #nv8, #ttg.shared_memory>]> -> !ttg.memdesc<32x64xi8, #nv8, #ttg.shared_memory, mutable>, !ttg.memdesc<64x32xi8, #nv8, #ttg.shared_memory>, !ttg.async.token
    nvws.aref.put.exit %r[%k], %tok [#nvws.async_op<tma_load>] : !nvws.aref<[!ttg.memdesc<2x32x64xi8, #nv8, #ttg.shared_memory, mutable>, !ttg.memdesc<2x64x32xi8, #nv8, #ttg.shared_memory>]>, !ttg.async.token
    tt.return
  }
}

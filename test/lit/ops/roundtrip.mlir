// Every tl op and type, and the xDSL ops llc reuses (func, scf, arith, math) on tensors with
// layouts: printed back in the custom syntax after a trip through the generic form (CHECK), and
// in the generic form after a trip through the custom syntax (CHECK-GENERIC).
// RUN: llc-opt %s --print-op-generic --split-input-file | llc-opt --split-input-file | filecheck %s
// RUN: llc-opt %s --split-input-file | llc-opt --print-op-generic --split-input-file | filecheck %s --check-prefix=CHECK-GENERIC

#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @memory(%x_ptr: !tl.ptr<f32>, %n: i32) -> tensor<128xf32, #blocked> {
    %pid = tl.get_program_id x : i32
    %grid_y = tl.get_num_programs y : i32
    %range = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %n_splat = tl.splat %n : i32 -> tensor<128xi32, #blocked>
    %mask = tl.cmpi slt, %range, %n_splat : tensor<128xi32, #blocked>
    %base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>, #blocked>
    %ptrs = tl.addptr %base, %range : tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %scalar_ptr = tl.addptr %x_ptr, %n : !tl.ptr<f32>, i32
    %scalar = tl.load %scalar_ptr : !tl.ptr<f32>
    %a = tl.load %ptrs : tensor<128x!tl.ptr<f32>, #blocked>
    %b = tl.load %ptrs, %mask : tensor<128x!tl.ptr<f32>, #blocked>
    %other = tl.constant -inf : tensor<128xf32, #blocked>
    %c = tl.load %ptrs, %mask, %other : tensor<128x!tl.ptr<f32>, #blocked>
    tl.store %ptrs, %a : tensor<128x!tl.ptr<f32>, #blocked>
    tl.store %ptrs, %b, %mask : tensor<128x!tl.ptr<f32>, #blocked>
    func.return %c : tensor<128xf32, #blocked>
  }
}


// CHECK:      #blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-NEXT: builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
// CHECK-NEXT:   func.func @memory(%x_ptr: !tl.ptr<f32>, %n: i32) -> tensor<128xf32, #blocked> {
// CHECK-NEXT:     %pid = tl.get_program_id x : i32
// CHECK-NEXT:     %grid_y = tl.get_num_programs y : i32
// CHECK-NEXT:     %range = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
// CHECK-NEXT:     %n_splat = tl.splat %n : i32 -> tensor<128xi32, #blocked>
// CHECK-NEXT:     %mask = tl.cmpi slt, %range, %n_splat : tensor<128xi32, #blocked>
// CHECK-NEXT:     %base = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>, #blocked>
// CHECK-NEXT:     %ptrs = tl.addptr %base, %range : tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
// CHECK-NEXT:     %scalar_ptr = tl.addptr %x_ptr, %n : !tl.ptr<f32>, i32
// CHECK-NEXT:     %scalar = tl.load %scalar_ptr : !tl.ptr<f32>
// CHECK-NEXT:     %a = tl.load %ptrs : tensor<128x!tl.ptr<f32>, #blocked>
// CHECK-NEXT:     %b = tl.load %ptrs, %mask : tensor<128x!tl.ptr<f32>, #blocked>
// CHECK-NEXT:     %other = tl.constant -inf : tensor<128xf32, #blocked>
// CHECK-NEXT:     %c = tl.load %ptrs, %mask, %other : tensor<128x!tl.ptr<f32>, #blocked>
// CHECK-NEXT:     tl.store %ptrs, %a : tensor<128x!tl.ptr<f32>, #blocked>
// CHECK-NEXT:     tl.store %ptrs, %b, %mask : tensor<128x!tl.ptr<f32>, #blocked>
// CHECK-NEXT:     func.return %c : tensor<128xf32, #blocked>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "func.func"() <{sym_name = "memory", function_type = (!tl.ptr<f32>, i32) -> tensor<128xf32, #blocked>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%x_ptr: !tl.ptr<f32>, %n: i32):
// CHECK-GENERIC-NEXT:     %pid = "tl.get_program_id"() <{axis = 0 : i32}> : () -> i32
// CHECK-GENERIC-NEXT:     %grid_y = "tl.get_num_programs"() <{axis = 1 : i32}> : () -> i32
// CHECK-GENERIC-NEXT:     %range = "tl.make_range"() <{end = 128 : i32, start = 0 : i32}> : () -> tensor<128xi32, #blocked>
// CHECK-GENERIC-NEXT:     %n_splat = "tl.splat"(%n) : (i32) -> tensor<128xi32, #blocked>
// CHECK-GENERIC-NEXT:     %mask = "tl.cmpi"(%range, %n_splat) <{predicate = "slt"}> : (tensor<128xi32, #blocked>, tensor<128xi32, #blocked>) -> tensor<128xi1, #blocked>
// CHECK-GENERIC-NEXT:     %base = "tl.splat"(%x_ptr) : (!tl.ptr<f32>) -> tensor<128x!tl.ptr<f32>, #blocked>
// CHECK-GENERIC-NEXT:     %ptrs = "tl.addptr"(%base, %range) : (tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xi32, #blocked>) -> tensor<128x!tl.ptr<f32>, #blocked>
// CHECK-GENERIC-NEXT:     %scalar_ptr = "tl.addptr"(%x_ptr, %n) : (!tl.ptr<f32>, i32) -> !tl.ptr<f32>
// CHECK-GENERIC-NEXT:     %scalar = "tl.load"(%scalar_ptr) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tl.ptr<f32>) -> f32
// CHECK-GENERIC-NEXT:     %a = "tl.load"(%ptrs) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<128x!tl.ptr<f32>, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %b = "tl.load"(%ptrs, %mask) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xi1, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %other = "tl.constant"() <{value = 0xff800000 : f32}> : () -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %c = "tl.load"(%ptrs, %mask, %other) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xi1, #blocked>, tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     "tl.store"(%ptrs, %a) : (tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xf32, #blocked>) -> ()
// CHECK-GENERIC-NEXT:     "tl.store"(%ptrs, %b, %mask) : (tensor<128x!tl.ptr<f32>, #blocked>, tensor<128xf32, #blocked>, tensor<128xi1, #blocked>) -> ()
// CHECK-GENERIC-NEXT:     "func.return"(%c) : (tensor<128xf32, #blocked>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} : () -> ()


// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#slice = #tl.slice<{dim = 0, parent = #blocked}>
#blocked2 = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice1 = #tl.slice<{dim = 1, parent = #blocked}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @shapes(%x: tensor<32x32xf32, #blocked>, %s: f32) -> tensor<32x32xf32, #blocked1> {
    %splat = tl.constant 1.500000e+00 : tensor<32x32xf32, #blocked>
    %int_splat = tl.constant -3 : tensor<32xi32, #slice>
    %bool_splat = tl.constant true : tensor<32x32xi1, #blocked>
    %nan = tl.constant 0x7fc00000 : tensor<32x32xf32, #blocked>
    %dense = tl.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #blocked2>
    %dense2d = tl.constant dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
    %scalar = tl.constant 2.500000e-01 : f32
    %v = tl.splat %s : f32 -> tensor<32xf32, #slice1>
    %e = tl.expand_dims %v {axis = 1 : i32} : tensor<32xf32, #slice1> -> tensor<32x1xf32, #blocked>
    %b = tl.broadcast %e : tensor<32x1xf32, #blocked> -> tensor<32x32xf32, #blocked>
    %r = tl.reshape %b : tensor<32x32xf32, #blocked> -> tensor<1024xf32, #blocked2>
    %t = tl.trans %x {order = array<i32: 1, 0>} : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
    func.return %t : tensor<32x32xf32, #blocked1>
  }
}


// CHECK:      #blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-NEXT: #blocked1 = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-NEXT: #slice = #tl.slice<{dim = 0, parent = #blocked}>
// CHECK-NEXT: #blocked2 = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-NEXT: #slice1 = #tl.slice<{dim = 1, parent = #blocked}>
// CHECK-NEXT: builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
// CHECK-NEXT:   func.func @shapes(%x: tensor<32x32xf32, #blocked>, %s: f32) -> tensor<32x32xf32, #blocked1> {
// CHECK-NEXT:     %splat = tl.constant 1.500000e+00 : tensor<32x32xf32, #blocked>
// CHECK-NEXT:     %int_splat = tl.constant -3 : tensor<32xi32, #slice>
// CHECK-NEXT:     %bool_splat = tl.constant true : tensor<32x32xi1, #blocked>
// CHECK-NEXT:     %nan = tl.constant 0x7fc00000 : tensor<32x32xf32, #blocked>
// CHECK-NEXT:     %dense = tl.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #blocked2>
// CHECK-NEXT:     %dense2d = tl.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:     %scalar = tl.constant 2.500000e-01 : f32
// CHECK-NEXT:     %v = tl.splat %s : f32 -> tensor<32xf32, #slice1>
// CHECK-NEXT:     %e = tl.expand_dims %v {axis = 1 : i32} : tensor<32xf32, #slice1> -> tensor<32x1xf32, #blocked>
// CHECK-NEXT:     %b = tl.broadcast %e : tensor<32x1xf32, #blocked> -> tensor<32x32xf32, #blocked>
// CHECK-NEXT:     %r = tl.reshape %b : tensor<32x32xf32, #blocked> -> tensor<1024xf32, #blocked2>
// CHECK-NEXT:     %t = tl.trans %x {order = array<i32: 1, 0>} : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
// CHECK-NEXT:     func.return %t : tensor<32x32xf32, #blocked1>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "func.func"() <{sym_name = "shapes", function_type = (tensor<32x32xf32, #blocked>, f32) -> tensor<32x32xf32, #blocked1>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%x: tensor<32x32xf32, #blocked>, %s: f32):
// CHECK-GENERIC-NEXT:     %splat = "tl.constant"() <{value = 1.500000e+00 : f32}> : () -> tensor<32x32xf32, #blocked>
// CHECK-GENERIC-NEXT:     %int_splat = "tl.constant"() <{value = -3 : i32}> : () -> tensor<32xi32, #slice>
// CHECK-GENERIC-NEXT:     %bool_splat = "tl.constant"() <{value = true}> : () -> tensor<32x32xi1, #blocked>
// CHECK-GENERIC-NEXT:     %nan = "tl.constant"() <{value = 0x7fc00000 : f32}> : () -> tensor<32x32xf32, #blocked>
// CHECK-GENERIC-NEXT:     %dense = "tl.constant"() <{value = dense<[0, 1, 2, 3]> : tensor<4xi32>}> : () -> tensor<4xi32, #blocked2>
// CHECK-GENERIC-NEXT:     %dense2d = "tl.constant"() <{value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
// CHECK-GENERIC-NEXT:     %scalar = "tl.constant"() <{value = 2.500000e-01 : f32}> : () -> f32
// CHECK-GENERIC-NEXT:     %v = "tl.splat"(%s) : (f32) -> tensor<32xf32, #slice1>
// CHECK-GENERIC-NEXT:     %e = "tl.expand_dims"(%v) <{axis = 1 : i32}> : (tensor<32xf32, #slice1>) -> tensor<32x1xf32, #blocked>
// CHECK-GENERIC-NEXT:     %b = "tl.broadcast"(%e) : (tensor<32x1xf32, #blocked>) -> tensor<32x32xf32, #blocked>
// CHECK-GENERIC-NEXT:     %r = "tl.reshape"(%b) : (tensor<32x32xf32, #blocked>) -> tensor<1024xf32, #blocked2>
// CHECK-GENERIC-NEXT:     %t = "tl.trans"(%x) <{order = array<i32: 1, 0>}> : (tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked1>
// CHECK-GENERIC-NEXT:     "func.return"(%t) : (tensor<32x32xf32, #blocked1>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} : () -> ()


// -----

#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @elementwise(%a: tensor<128xf32, #blocked>, %b: tensor<128xf32, #blocked>, %i: tensor<128xi32, #blocked>) -> tensor<128xf32, #blocked> {
    %add = arith.addf %a, %b : tensor<128xf32, #blocked>
    %max = arith.maxnumf %add, %b : tensor<128xf32, #blocked>
    %exp = math.exp %max : tensor<128xf32, #blocked>
    %rsqrt = math.rsqrt %exp : tensor<128xf32, #blocked>
    %lt = tl.cmpf olt, %a, %b : tensor<128xf32, #blocked>
    %une = tl.cmpf une, %a, %b : tensor<128xf32, #blocked>
    %sel = tl.select %lt, %a, %rsqrt : tensor<128xi1, #blocked>, tensor<128xf32, #blocked>
    %ge = tl.cmpi uge, %i, %i : tensor<128xi32, #blocked>
    %f = tl.sitofp %i : tensor<128xi32, #blocked> to tensor<128xf32, #blocked>
    %uf = tl.uitofp %i : tensor<128xi32, #blocked> to tensor<128xf32, #blocked>
    %fi = tl.fptosi %f : tensor<128xf32, #blocked> to tensor<128xi32, #blocked>
    %fu = tl.fptoui %f : tensor<128xf32, #blocked> to tensor<128xi32, #blocked>
    %w = tl.extsi %i : tensor<128xi32, #blocked> to tensor<128xi64, #blocked>
    %z = tl.extui %ge : tensor<128xi1, #blocked> to tensor<128xi32, #blocked>
    %n = tl.trunci %w : tensor<128xi64, #blocked> to tensor<128xi16, #blocked>
    %h = arith.truncf %sel : tensor<128xf32, #blocked> to tensor<128xf16, #blocked>
    %x = arith.extf %h : tensor<128xf16, #blocked> to tensor<128xf32, #blocked>
    %cvt = tl.sitofp %z : tensor<128xi32, #blocked> to tensor<128xf32, #blocked>
    func.return %x : tensor<128xf32, #blocked>
  }
}


// CHECK:      #blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-NEXT: builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
// CHECK-NEXT:   func.func @elementwise(%a: tensor<128xf32, #blocked>, %b: tensor<128xf32, #blocked>, %i: tensor<128xi32, #blocked>) -> tensor<128xf32, #blocked> {
// CHECK-NEXT:     %add = arith.addf %a, %b : tensor<128xf32, #blocked>
// CHECK-NEXT:     %max = arith.maxnumf %add, %b : tensor<128xf32, #blocked>
// CHECK-NEXT:     %exp = math.exp %max : tensor<128xf32, #blocked>
// CHECK-NEXT:     %rsqrt = math.rsqrt %exp : tensor<128xf32, #blocked>
// CHECK-NEXT:     %lt = tl.cmpf olt, %a, %b : tensor<128xf32, #blocked>
// CHECK-NEXT:     %une = tl.cmpf une, %a, %b : tensor<128xf32, #blocked>
// CHECK-NEXT:     %sel = tl.select %lt, %a, %rsqrt : tensor<128xi1, #blocked>, tensor<128xf32, #blocked>
// CHECK-NEXT:     %ge = tl.cmpi uge, %i, %i : tensor<128xi32, #blocked>
// CHECK-NEXT:     %f = tl.sitofp %i : tensor<128xi32, #blocked> to tensor<128xf32, #blocked>
// CHECK-NEXT:     %uf = tl.uitofp %i : tensor<128xi32, #blocked> to tensor<128xf32, #blocked>
// CHECK-NEXT:     %fi = tl.fptosi %f : tensor<128xf32, #blocked> to tensor<128xi32, #blocked>
// CHECK-NEXT:     %fu = tl.fptoui %f : tensor<128xf32, #blocked> to tensor<128xi32, #blocked>
// CHECK-NEXT:     %w = tl.extsi %i : tensor<128xi32, #blocked> to tensor<128xi64, #blocked>
// CHECK-NEXT:     %z = tl.extui %ge : tensor<128xi1, #blocked> to tensor<128xi32, #blocked>
// CHECK-NEXT:     %n = tl.trunci %w : tensor<128xi64, #blocked> to tensor<128xi16, #blocked>
// CHECK-NEXT:     %h = arith.truncf %sel : tensor<128xf32, #blocked> to tensor<128xf16, #blocked>
// CHECK-NEXT:     %x = arith.extf %h : tensor<128xf16, #blocked> to tensor<128xf32, #blocked>
// CHECK-NEXT:     %cvt = tl.sitofp %z : tensor<128xi32, #blocked> to tensor<128xf32, #blocked>
// CHECK-NEXT:     func.return %x : tensor<128xf32, #blocked>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "func.func"() <{sym_name = "elementwise", function_type = (tensor<128xf32, #blocked>, tensor<128xf32, #blocked>, tensor<128xi32, #blocked>) -> tensor<128xf32, #blocked>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: tensor<128xf32, #blocked>, %b: tensor<128xf32, #blocked>, %i: tensor<128xi32, #blocked>):
// CHECK-GENERIC-NEXT:     %add = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (tensor<128xf32, #blocked>, tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %max = "arith.maxnumf"(%add, %b) <{fastmath = #arith.fastmath<none>}> : (tensor<128xf32, #blocked>, tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %exp = "math.exp"(%max) <{fastmath = #arith.fastmath<none>}> : (tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %rsqrt = "math.rsqrt"(%exp) <{fastmath = #arith.fastmath<none>}> : (tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %lt = "tl.cmpf"(%a, %b) <{predicate = "olt"}> : (tensor<128xf32, #blocked>, tensor<128xf32, #blocked>) -> tensor<128xi1, #blocked>
// CHECK-GENERIC-NEXT:     %une = "tl.cmpf"(%a, %b) <{predicate = "une"}> : (tensor<128xf32, #blocked>, tensor<128xf32, #blocked>) -> tensor<128xi1, #blocked>
// CHECK-GENERIC-NEXT:     %sel = "tl.select"(%lt, %a, %rsqrt) : (tensor<128xi1, #blocked>, tensor<128xf32, #blocked>, tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %ge = "tl.cmpi"(%i, %i) <{predicate = "uge"}> : (tensor<128xi32, #blocked>, tensor<128xi32, #blocked>) -> tensor<128xi1, #blocked>
// CHECK-GENERIC-NEXT:     %f = "tl.sitofp"(%i) : (tensor<128xi32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %uf = "tl.uitofp"(%i) : (tensor<128xi32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %fi = "tl.fptosi"(%f) : (tensor<128xf32, #blocked>) -> tensor<128xi32, #blocked>
// CHECK-GENERIC-NEXT:     %fu = "tl.fptoui"(%f) : (tensor<128xf32, #blocked>) -> tensor<128xi32, #blocked>
// CHECK-GENERIC-NEXT:     %w = "tl.extsi"(%i) : (tensor<128xi32, #blocked>) -> tensor<128xi64, #blocked>
// CHECK-GENERIC-NEXT:     %z = "tl.extui"(%ge) : (tensor<128xi1, #blocked>) -> tensor<128xi32, #blocked>
// CHECK-GENERIC-NEXT:     %n = "tl.trunci"(%w) : (tensor<128xi64, #blocked>) -> tensor<128xi16, #blocked>
// CHECK-GENERIC-NEXT:     %h = "arith.truncf"(%sel) : (tensor<128xf32, #blocked>) -> tensor<128xf16, #blocked>
// CHECK-GENERIC-NEXT:     %x = "arith.extf"(%h) : (tensor<128xf16, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     %cvt = "tl.sitofp"(%z) : (tensor<128xi32, #blocked>) -> tensor<128xf32, #blocked>
// CHECK-GENERIC-NEXT:     "func.return"(%x) : (tensor<128xf32, #blocked>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} : () -> ()


// -----

#blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tl.slice<{dim = 1, parent = #blocked}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:90"} {
  func.func @reductions(%x: tensor<32x32xf32, #blocked>, %idx: tensor<32x32xi32, #blocked>, %v: tensor<32xf32, #slice>) -> f32 {
    %max = tl.reduce %x {axis = 1 : i32} : tensor<32x32xf32, #blocked> -> tensor<32xf32, #slice> {
    ^bb0(%lhs: f32, %rhs: f32):
      %m = arith.maxnumf %lhs, %rhs : f32
      tl.reduce.return %m : f32
    }
    %best, %arg = tl.reduce %x, %idx {axis = 1 : i32} : tensor<32x32xf32, #blocked>, tensor<32x32xi32, #blocked> -> tensor<32xf32, #slice>, tensor<32xi32, #slice> {
    ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
      %gt = arith.cmpf ogt, %v1, %v0 : f32
      %v2 = arith.select %gt, %v1, %v0 : f32
      %i2 = arith.select %gt, %i1, %i0 : i32
      tl.reduce.return %v2, %i2 : f32, i32
    }
    %sum = tl.reduce %v {axis = 0 : i32} : tensor<32xf32, #slice> -> f32 {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      tl.reduce.return %s : f32
    }
    func.return %sum : f32
  }
}


// CHECK:      #blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-NEXT: #slice = #tl.slice<{dim = 1, parent = #blocked}>
// CHECK-NEXT: builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} {
// CHECK-NEXT:   func.func @reductions(%x: tensor<32x32xf32, #blocked>, %idx: tensor<32x32xi32, #blocked>, %v: tensor<32xf32, #slice>) -> f32 {
// CHECK-NEXT:     %max = tl.reduce %x {axis = 1 : i32} : tensor<32x32xf32, #blocked> -> tensor<32xf32, #slice> {
// CHECK-NEXT:     ^bb0(%lhs: f32, %rhs: f32):
// CHECK-NEXT:       %m = arith.maxnumf %lhs, %rhs : f32
// CHECK-NEXT:       tl.reduce.return %m : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %best, %arg = tl.reduce %x, %idx {axis = 1 : i32} : tensor<32x32xf32, #blocked>, tensor<32x32xi32, #blocked> -> tensor<32xf32, #slice>, tensor<32xi32, #slice> {
// CHECK-NEXT:     ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
// CHECK-NEXT:       %gt = arith.cmpf ogt, %v1, %v0 : f32
// CHECK-NEXT:       %v2 = arith.select %gt, %v1, %v0 : f32
// CHECK-NEXT:       %i2 = arith.select %gt, %i1, %i0 : i32
// CHECK-NEXT:       tl.reduce.return %v2, %i2 : f32, i32
// CHECK-NEXT:     }
// CHECK-NEXT:     %sum = tl.reduce %v {axis = 0 : i32} : tensor<32xf32, #slice> -> f32 {
// CHECK-NEXT:     ^bb0(%lhs_1: f32, %rhs_1: f32):
// CHECK-NEXT:       %s = arith.addf %lhs_1, %rhs_1 : f32
// CHECK-NEXT:       tl.reduce.return %s : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %sum : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "func.func"() <{sym_name = "reductions", function_type = (tensor<32x32xf32, #blocked>, tensor<32x32xi32, #blocked>, tensor<32xf32, #slice>) -> f32}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%x: tensor<32x32xf32, #blocked>, %idx: tensor<32x32xi32, #blocked>, %v: tensor<32xf32, #slice>):
// CHECK-GENERIC-NEXT:     %max = "tl.reduce"(%x) <{axis = 1 : i32}> ({
// CHECK-GENERIC-NEXT:     ^bb0(%lhs: f32, %rhs: f32):
// CHECK-GENERIC-NEXT:       %m = "arith.maxnumf"(%lhs, %rhs) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:       "tl.reduce.return"(%m) : (f32) -> ()
// CHECK-GENERIC-NEXT:     }) : (tensor<32x32xf32, #blocked>) -> tensor<32xf32, #slice>
// CHECK-GENERIC-NEXT:     %best, %arg = "tl.reduce"(%x, %idx) <{axis = 1 : i32}> ({
// CHECK-GENERIC-NEXT:     ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
// CHECK-GENERIC-NEXT:       %gt = "arith.cmpf"(%v1, %v0) <{predicate = 2 : i64, fastmath = #arith.fastmath<none>}> : (f32, f32) -> i1
// CHECK-GENERIC-NEXT:       %v2 = "arith.select"(%gt, %v1, %v0) : (i1, f32, f32) -> f32
// CHECK-GENERIC-NEXT:       %i2 = "arith.select"(%gt, %i1, %i0) : (i1, i32, i32) -> i32
// CHECK-GENERIC-NEXT:       "tl.reduce.return"(%v2, %i2) : (f32, i32) -> ()
// CHECK-GENERIC-NEXT:     }) : (tensor<32x32xf32, #blocked>, tensor<32x32xi32, #blocked>) -> (tensor<32xf32, #slice>, tensor<32xi32, #slice>)
// CHECK-GENERIC-NEXT:     %sum = "tl.reduce"(%v) <{axis = 0 : i32}> ({
// CHECK-GENERIC-NEXT:     ^bb0(%lhs_1: f32, %rhs_1: f32):
// CHECK-GENERIC-NEXT:       %s = "arith.addf"(%lhs_1, %rhs_1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:       "tl.reduce.return"(%s) : (f32) -> ()
// CHECK-GENERIC-NEXT:     }) : (tensor<32xf32, #slice>) -> f32
// CHECK-GENERIC-NEXT:     "func.return"(%sum) : (f32) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:90"} : () -> ()


// -----

#blocked = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot_op = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_op1 = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#shared = #tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"} {
  func.func @dot(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked>) -> tensor<64x64xf32, #blocked> {
    %a_smem = tl.local_alloc %a : (tensor<64x32xf16, #blocked>) -> !tl.memdesc<64x32xf16, #shared>
    %b_smem = tl.local_alloc : () -> !tl.memdesc<32x64xf16, #shared>
    tl.local_store %b, %b_smem : tensor<32x64xf16, #blocked> -> !tl.memdesc<32x64xf16, #shared>
    %a_dot = tl.local_load %a_smem : !tl.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #dot_op>
    %b_dot = tl.local_load %b_smem : !tl.memdesc<32x64xf16, #shared> -> tensor<32x64xf16, #dot_op1>
    tl.local_dealloc %a_smem : !tl.memdesc<64x32xf16, #shared>
    tl.local_dealloc %b_smem : !tl.memdesc<32x64xf16, #shared>
    %zero = tl.constant 0.000000e+00 : tensor<64x64xf32, #mma>
    %d = tl.dot %a_dot, %b_dot, %zero : tensor<64x32xf16, #dot_op> * tensor<32x64xf16, #dot_op1> -> tensor<64x64xf32, #mma>
    %c = tl.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    func.return %c : tensor<64x64xf32, #blocked>
  }
}


// CHECK:      #blocked = #tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-NEXT: #shared = #tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-NEXT: #mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-NEXT: #dot_op = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK-NEXT: #dot_op1 = #tl.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-NEXT: builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:80"} {
// CHECK-NEXT:   func.func @dot(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked>) -> tensor<64x64xf32, #blocked> {
// CHECK-NEXT:     %a_smem = tl.local_alloc %a : (tensor<64x32xf16, #blocked>) -> !tl.memdesc<64x32xf16, #shared>
// CHECK-NEXT:     %b_smem = tl.local_alloc : () -> !tl.memdesc<32x64xf16, #shared>
// CHECK-NEXT:     tl.local_store %b, %b_smem : tensor<32x64xf16, #blocked> -> !tl.memdesc<32x64xf16, #shared>
// CHECK-NEXT:     %a_dot = tl.local_load %a_smem : !tl.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #dot_op>
// CHECK-NEXT:     %b_dot = tl.local_load %b_smem : !tl.memdesc<32x64xf16, #shared> -> tensor<32x64xf16, #dot_op1>
// CHECK-NEXT:     tl.local_dealloc %a_smem : !tl.memdesc<64x32xf16, #shared>
// CHECK-NEXT:     tl.local_dealloc %b_smem : !tl.memdesc<32x64xf16, #shared>
// CHECK-NEXT:     %zero = tl.constant 0.000000e+00 : tensor<64x64xf32, #mma>
// CHECK-NEXT:     %d = tl.dot %a_dot, %b_dot, %zero : tensor<64x32xf16, #dot_op> * tensor<32x64xf16, #dot_op1> -> tensor<64x64xf32, #mma>
// CHECK-NEXT:     %c = tl.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
// CHECK-NEXT:     func.return %c : tensor<64x64xf32, #blocked>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "func.func"() <{sym_name = "dot", function_type = (tensor<64x32xf16, #blocked>, tensor<32x64xf16, #blocked>) -> tensor<64x64xf32, #blocked>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked>):
// CHECK-GENERIC-NEXT:     %a_smem = "tl.local_alloc"(%a) : (tensor<64x32xf16, #blocked>) -> !tl.memdesc<64x32xf16, #shared>
// CHECK-GENERIC-NEXT:     %b_smem = "tl.local_alloc"() : () -> !tl.memdesc<32x64xf16, #shared>
// CHECK-GENERIC-NEXT:     "tl.local_store"(%b, %b_smem) : (tensor<32x64xf16, #blocked>, !tl.memdesc<32x64xf16, #shared>) -> ()
// CHECK-GENERIC-NEXT:     %a_dot = "tl.local_load"(%a_smem) : (!tl.memdesc<64x32xf16, #shared>) -> tensor<64x32xf16, #dot_op>
// CHECK-GENERIC-NEXT:     %b_dot = "tl.local_load"(%b_smem) : (!tl.memdesc<32x64xf16, #shared>) -> tensor<32x64xf16, #dot_op1>
// CHECK-GENERIC-NEXT:     "tl.local_dealloc"(%a_smem) : (!tl.memdesc<64x32xf16, #shared>) -> ()
// CHECK-GENERIC-NEXT:     "tl.local_dealloc"(%b_smem) : (!tl.memdesc<32x64xf16, #shared>) -> ()
// CHECK-GENERIC-NEXT:     %zero = "tl.constant"() <{value = 0.000000e+00 : f32}> : () -> tensor<64x64xf32, #mma>
// CHECK-GENERIC-NEXT:     %d = "tl.dot"(%a_dot, %b_dot, %zero) : (tensor<64x32xf16, #dot_op>, tensor<32x64xf16, #dot_op1>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
// CHECK-GENERIC-NEXT:     %c = "tl.convert_layout"(%d) : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #blocked>
// CHECK-GENERIC-NEXT:     "func.return"(%c) : (tensor<64x64xf32, #blocked>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, tl.target = "cuda:80"} : () -> ()


// -----

// Before layouts are assigned: plain tensors, loops with tensor iter_args, calls.
module {
  func.func @helper(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %y = arith.mulf %x, %x : tensor<16x16xf32>
    func.return %y : tensor<16x16xf32>
  }
  func.func @control(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %n: i32) -> tensor<16x16xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = tl.constant 0.000000e+00 : tensor<16x16xf32>
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_k = %init) -> (tensor<16x16xf32>) : i32 {
      %d = tl.dot %a, %b, %acc_k : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %pos = arith.cmpi sgt, %n, %c0 : i32
    %res = scf.if %pos -> (tensor<16x16xf32>) {
      %sq = func.call @helper(%acc) : (tensor<16x16xf32>) -> tensor<16x16xf32>
      scf.yield %sq : tensor<16x16xf32>
    } else {
      scf.yield %acc : tensor<16x16xf32>
    }
    func.return %res : tensor<16x16xf32>
  }
}


// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @helper(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT:     %y = arith.mulf %x, %x : tensor<16x16xf32>
// CHECK-NEXT:     func.return %y : tensor<16x16xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @control(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %n: i32) -> tensor<16x16xf32> {
// CHECK-NEXT:     %c0 = arith.constant 0 : i32
// CHECK-NEXT:     %c1 = arith.constant 1 : i32
// CHECK-NEXT:     %init = tl.constant 0.000000e+00 : tensor<16x16xf32>
// CHECK-NEXT:     %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_k = %init) -> (tensor<16x16xf32>) : i32 {
// CHECK-NEXT:       %d = tl.dot %a, %b, %acc_k : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
// CHECK-NEXT:       scf.yield %d : tensor<16x16xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     %pos = arith.cmpi sgt, %n, %c0 : i32
// CHECK-NEXT:     %res = scf.if %pos -> (tensor<16x16xf32>) {
// CHECK-NEXT:       %sq = func.call @helper(%acc) : (tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT:       scf.yield %sq : tensor<16x16xf32>
// CHECK-NEXT:     } else {
// CHECK-NEXT:       scf.yield %acc : tensor<16x16xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %res : tensor<16x16xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "func.func"() <{sym_name = "helper", function_type = (tensor<16x16xf32>) -> tensor<16x16xf32>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%x: tensor<16x16xf32>):
// CHECK-GENERIC-NEXT:     %y = "arith.mulf"(%x, %x) <{fastmath = #arith.fastmath<none>}> : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-GENERIC-NEXT:     "func.return"(%y) : (tensor<16x16xf32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "func.func"() <{sym_name = "control", function_type = (tensor<16x8xf16>, tensor<8x16xf16>, i32) -> tensor<16x16xf32>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %n: i32):
// CHECK-GENERIC-NEXT:     %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
// CHECK-GENERIC-NEXT:     %c1 = "arith.constant"() <{value = 1 : i32}> : () -> i32
// CHECK-GENERIC-NEXT:     %init = "tl.constant"() <{value = 0.000000e+00 : f32}> : () -> tensor<16x16xf32>
// CHECK-GENERIC-NEXT:     %acc = "scf.for"(%c0, %n, %c1, %init) ({
// CHECK-GENERIC-NEXT:     ^bb0(%k: i32, %acc_k: tensor<16x16xf32>):
// CHECK-GENERIC-NEXT:       %d = "tl.dot"(%a, %b, %acc_k) : (tensor<16x8xf16>, tensor<8x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-GENERIC-NEXT:       "scf.yield"(%d) : (tensor<16x16xf32>) -> ()
// CHECK-GENERIC-NEXT:     }) : (i32, i32, i32, tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-GENERIC-NEXT:     %pos = "arith.cmpi"(%n, %c0) <{predicate = 4 : i64}> : (i32, i32) -> i1
// CHECK-GENERIC-NEXT:     %res = "scf.if"(%pos) ({
// CHECK-GENERIC-NEXT:       %sq = "func.call"(%acc) <{callee = @helper}> : (tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-GENERIC-NEXT:       "scf.yield"(%sq) : (tensor<16x16xf32>) -> ()
// CHECK-GENERIC-NEXT:     }, {
// CHECK-GENERIC-NEXT:       "scf.yield"(%acc) : (tensor<16x16xf32>) -> ()
// CHECK-GENERIC-NEXT:     }) : (i1) -> tensor<16x16xf32>
// CHECK-GENERIC-NEXT:     "func.return"(%res) : (tensor<16x16xf32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()

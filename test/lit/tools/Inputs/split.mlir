"test.op"() {l = #tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>} : () -> ()
// -----
"test.op"() {l = #tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>} : () -> ()
// -----
"test.op"() {l = #tl.nvmma_shared<{swizzlingByteWidth = 48, transposed = false, elementBitWidth = 16}>} : () -> ()

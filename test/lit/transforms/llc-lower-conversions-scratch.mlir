// The scratch limit is a hard bound. This f32 transpose fits 64 KiB in one round and 4 KiB in 4
// rounds (its two layouts share two register directions); below that it is an error at the op
// (file:line:col), exit 1, never a larger buffer.
// RUN: llc-opt %s -p 'llc-lower-conversions{scratch-limit=4096}' | filecheck %s --check-prefix=FITS
// RUN: not llc-opt %s -p 'llc-lower-conversions{scratch-limit=2048}' 2>&1 | filecheck %s

#row = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"tl.num-warps" = 4 : i32} {
  func.func @k(%x: tensor<64x64xf32, #row>) {
    %y = tl.convert_layout %x : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
    func.return
  }
}
// FITS: simt.shared_alloc : !simt.smem<4096, align 16>
// FITS-COUNT-7: "gpu.barrier"
// CHECK: llc-lower-conversions-scratch.mlir:11:5: error: 'tl.convert_layout' op cannot lower this conversion: the ld/st.shared round trip needs 4096 bytes of scratch even in 4 rounds (rounds need register directions common to both layouts), more than the scratch limit of 2048 bytes; no ldmatrix/stmatrix round trip fits either
// CHECK-NOT: Traceback

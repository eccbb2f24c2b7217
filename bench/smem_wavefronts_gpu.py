"""Check llc's shared-memory wavefront model against an NVIDIA GPU's counters (Nsight Compute).

A *spec* ``B,S,v0,v1,v2,v3,v4`` is one warp instruction: ``B`` bytes per lane (1, 2, 4, 8 or
16), ``S`` 1 for a store and 0 for a load, and lane ``l`` accessing byte address
``XOR of v[j] over the set bits j of l`` (every address llc plans is linear in the lane bits).
:func:`llc.swizzle.count_wavefronts` predicts each spec's wavefronts; a CUDA probe executes it
as one ``st.shared``/``ld.shared`` of that width in a single warp, and ``ncu`` counts the
wavefronts (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{st,ld}.sum``).

The specs are: the stores and loads of :func:`llc.swizzle.plan_swizzle` plans for realistic
conversions (``plan`` specs, derived here from the plans), unswizzled row-major buffers, random
lane patterns, and broadcast patterns (lanes that repeat an address).

::

    python bench/smem_wavefronts_gpu.py probe > p.cu          # the CUDA probe
    python bench/smem_wavefronts_gpu.py specs                 # the specs, one line
    # on the GPU machine:
    nvcc -arch=sm_90 -o p p.cu
    ncu --csv --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\\
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum ./p SPECS... > ncu.csv
    python bench/smem_wavefronts_gpu.py compare ncu.csv SPECS...   # the table
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llc.layouts import BlockedLayout, DotOperandLayout, NvidiaMmaLayout
from llc.linear_layout import LinearLayout
from llc.swizzle import count_wavefronts, plan_swizzle

ROW4 = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
COL4 = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
ROW8 = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
COL8 = BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])
MMA2 = NvidiaMmaLayout(2, 0, [2, 2], [16, 8])

PLAN_PAIRS = [
    ("blocked->transposed 64x64", ROW4, COL4, [64, 64]),
    ("blocked v8->transposed v8 128x128", ROW8, COL8, [128, 128]),
    ("blocked->mma v2 64x64", ROW4, MMA2, [64, 64]),
    ("mma v2->blocked 128x128", MMA2, ROW8, [128, 128]),
    ("blocked->dot_op a 128x64", ROW8, DotOperandLayout(0, MMA2, 2), [128, 64]),
]

# Patterns chosen by hand: unswizzled buffers (conflicts of every degree), random lane patterns,
# and broadcasts (lanes that repeat an address, which loads and stores treat differently).
OTHER_SPECS = [
    "4,0,256,512,1024,2048,4096",
    "2,0,128,256,512,1024,2048",
    "8,1,256,512,1024,2048,4096",
    "1,0,64,128,256,512,1024",
    "1,1,64,128,256,512,1024",
    "8,0,8,16,32,64,128",
    "1,0,2,2048,128,8,32",
    "4,1,8,1024,4,2048,128",
    "16,0,4096,8192,64,16,32",
    "8,1,256,4096,2048,8,64",
    "2,0,2,4,64,256,16",
    "8,1,64,1024,512,8,2048",
    "4,0,1024,16,8,8192,2048",
    "16,1,2048,64,32,8192,4096",
    "2,1,64,512,32,4,1024",
    "8,0,512,16,32,64,2048",
    "4,0,0,0,4,8,16",
    "16,0,0,16,32,64,128",
    "16,1,0,0,0,0,0",
    "4,0,128,0,0,0,0",
    "16,0,16,32,4096,64,128",
    "8,0,8,16,32,4096,64",
    "16,1,16,32,4096,64,128",
    "8,1,8,16,32,4096,64",
    "16,0,16,32,0,64,128",
    "8,0,0,8,16,32,64",
    "16,1,16,32,0,64,128",
    "16,0,16,32,64,0,0",
    "16,0,0,0,0,0,0",
    "8,0,0,0,0,0,0",
    "16,0,16,32,64,4096,4096",
    "8,1,0,8,16,32,64",
    "16,0,4096,32,64,128,16",
    "16,0,0,16,32,64,4096",
    "8,0,0,8,16,4096,32",
    "16,0,0,16,32,4096,64",
    "16,1,0,16,32,64,4096",
    "8,0,0,0,8,16,32",
    "16,0,0,0,16,32,64",
]

PROBE = r"""#define A asm volatile
#define T(n,q) if(b==n)A("st.shared." q " [%0],%1;"::"r"(a),"r"(l));
#define U(n,q) if(b==n)A("ld.shared." q " %0,[%1];":"=r"(x):"r"(a));
// One warp executes one shared-memory access: lane l at the XOR of v[j] over its set bits j.
__global__ void k(int b,int s,unsigned*v,unsigned*o){
  extern __shared__ __align__(16) char m[];
  unsigned l=threadIdx.x,f=0,x=0,y=0,z=0,w=0;
  for(int j=0;j<5;j++)if(l>>j&1)f^=v[j];
  unsigned a=(unsigned)__cvta_generic_to_shared(m)+f;
  if(s){T(1,"u8")T(2,"u16")T(4,"u32")
    if(b==8)A("st.shared.v2.u32 [%0],{%1,%1};"::"r"(a),"r"(l));
    if(b==16)A("st.shared.v4.u32 [%0],{%1,%1,%1,%1};"::"r"(a),"r"(l));
  }else{U(1,"u8")U(2,"u16")U(4,"u32")
    if(b==8)A("ld.shared.v2.u32 {%0,%1},[%2];":"=r"(x),"=r"(y):"r"(a));
    if(b==16)A("ld.shared.v4.u32 {%0,%1,%2,%3},[%4];":"=r"(x),"=r"(y),"=r"(z),"=r"(w):"r"(a));
  }
  o[l]=x^y^z^w;
}
#include <cstdio>
int main(int c,char**g){
  unsigned*v,*o;cudaMallocManaged(&v,20);cudaMalloc(&o,128);
  cudaFuncSetAttribute(k,cudaFuncAttributeMaxDynamicSharedMemorySize,98304);
  for(int i=1;i<c;i++){int b,s;
    sscanf(g[i],"%d,%d,%u,%u,%u,%u,%u",&b,&s,v,v+1,v+2,v+3,v+4);
    k<<<1,32,98304>>>(b,s,v,o);cudaDeviceSynchronize();}
  puts("ok");
}
"""


def plan_specs() -> list[tuple[str, str]]:
    """``(name, spec)`` of instruction 0 of warp 0 of each side of each plan."""
    specs = []
    for name, src, dst, shape in PLAN_PAIRS:
        for bits in (16, 32):
            plan = plan_swizzle(src.to_linear_layout(shape), dst.to_linear_layout(shape), bits)
            for side, layout, vector, store in (
                ("store", plan.store_layout, plan.store_vector, 1),
                ("load", plan.load_layout, plan.load_vector, 0),
            ):
                offsets = layout.invert_and_compose(plan.shared)  # hardware -> offset
                lanes = [offsets.basis("lane", j)[0] * bits // 8 for j in range(5)]
                spec = f"{vector * bits // 8},{store}," + ",".join(map(str, lanes))
                specs.append((f"plan: {name} f{bits} {side}", spec))
    return specs


def predict(spec: str) -> tuple[int, int]:
    """``(wavefronts, ideal)`` of a spec under llc's model."""
    access, store, *lane_bytes = (int(x) for x in spec.split(","))
    bitwidth = min(access, 8) * 8
    vector = access * 8 // bitwidth
    element_bytes = bitwidth // 8
    size = 1 << 16
    layout = LinearLayout.from_bases(
        [
            ("register", [[1 << i] for i in range(vector.bit_length() - 1)]),
            ("lane", [[b // element_bytes] for b in lane_bytes]),
            ("warp", []),
        ],
        ["dim0"],
        [size],
        require_surjective=False,
    )
    shared = LinearLayout.identity_1d(size, "offset", "dim0")
    count = count_wavefronts(layout, shared, vector, bitwidth, store=bool(store))
    return count.per_instruction, int(count.ideal.max())


def all_specs() -> list[tuple[str, str]]:
    return plan_specs() + [(f"pattern {spec}", spec) for spec in OTHER_SPECS]


def compare(path: Path, specs: list[str]) -> None:
    names = dict((spec, name) for name, spec in all_specs())
    measured: dict[int, float] = {}
    for row in csv.reader(path.read_text().splitlines()):
        if len(row) > 3 and "wavefronts_mem_shared" in row[-3] and row[0].isdigit():
            measured[int(row[0])] = measured.get(int(row[0]), 0.0) + float(row[-1] or 0)
    agree = 0
    print(f"| {'access':52} | B/lane | op | predicted | ideal | measured |")
    print(f"|{'-' * 54}|--------|----|-----------|-------|----------|")
    for index, spec in enumerate(specs):
        wavefronts, ideal = predict(spec)
        got = measured.get(index, float("nan"))
        agree += int(got == wavefronts)
        access, store = spec.split(",")[:2]
        print(
            f"| {names.get(spec, spec):52} | {access:>6} | {'st' if store == '1' else 'ld'} | "
            f"{wavefronts:9} | {ideal:5} | {got:8.0f} |"
        )
    print(f"\n{agree} of {len(specs)} accesses: measured wavefronts == predicted")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("probe", "specs", "compare"))
    parser.add_argument("csv", nargs="?", type=Path, help="ncu --csv output (compare)")
    parser.add_argument("specs", nargs="*", help="the specs given to the probe (compare)")
    args = parser.parse_args()
    if args.step == "probe":
        sys.stdout.write(PROBE)
    elif args.step == "specs":
        print(" ".join(spec for _, spec in all_specs()))
    else:
        compare(args.csv, args.specs or [spec for _, spec in all_specs()])


if __name__ == "__main__":
    main()

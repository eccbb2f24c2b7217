#!/usr/bin/env bash
# The GPU benchmark in one call on the device machine (see bench/gpu.py and bench/RESULTS.md):
# installs the wheels of .whl/ (bench/gpu_wheels.sh makes them), records the machine, runs a
# quick dry-run sanity check of the hook on the installed Triton, then bench/gpu.py at real
# sizes. Everything it prints and writes lands in $OUT (env.txt, gpu.md, gpu.json, report.jsonl).
#
#   bash bench/gpu_wheels.sh                                   # here, once (network)
#   run(command="bash bench/gpu_device_run.sh", carry=[".whl"], timeout_s=600)
set -uo pipefail
OUT="${OUT:-/tmp/llc-gpu-out}"
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
ls .whl/*.whl > /dev/null 2>&1 || { echo "no .whl/: run bench/gpu_wheels.sh first" | tee "$OUT/env.txt"; exit 1; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 TRITON_DEFAULT_FP_FUSION=1
export LLC_TRITON_REPORT="$OUT/report.jsonl"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    python3 - <<'PY'
import platform, torch, triton, xdsl, llc.triton
print(f"python {platform.python_version()}; torch {torch.__version__}; triton {triton.__version__}")
print(f"device {torch.cuda.get_device_name()} sm_{''.join(map(str, torch.cuda.get_device_capability()))}")
print(f"llc.triton from {llc.triton.__file__}")
PY
} 2>&1 | tee "$OUT/env.txt"
# The whole benchmark; the table is also in gpu.md, the rows in gpu.json.
timeout 500 python3 bench/gpu.py --runs 20 --warmup 3 --json "$OUT/gpu.json" 2>&1 | tee "$OUT/gpu.md"
status=${PIPESTATUS[0]}
echo "bench/gpu.py exit status $status" | tee -a "$OUT/gpu.md"
exit "$status"

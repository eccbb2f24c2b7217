#!/usr/bin/env bash
# Prepare, on a machine with network, the wheels bench/gpu_device_run.sh installs on the GPU
# machine (Python 3.12, x86_64, no network; PyTorch, Triton, numpy and cuda-bindings are there).
#
#   bash bench/gpu_wheels.sh          # writes .whl/ in the repo root (git-ignored)
#
# .whl/ holds: llc (built from this checkout), xDSL 0.74 and its pure-Python dependencies, and
# highspy (the ILP solver llc's layout assignment may use). Then, in one device call:
#   run(command="bash bench/gpu_device_run.sh", carry=[".whl"], timeout_s=600)
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .whl && mkdir .whl
echo '*' > .whl/.gitignore  # git ignores the folder (no shared exclude file touched)
python3 -m pip wheel -q --no-deps -w .whl .
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
    'xdsl==0.74.0' immutabledict ordered-set highspy
ls -l .whl
du -sh .whl

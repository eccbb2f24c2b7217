"""Run PTX from ``-t ptx`` on an NVIDIA GPU through the CUDA driver (``cuda-python``).

The optional extra ``gpu`` installs ``cuda-bindings``. :func:`launch` loads a PTX module,
copies numpy arrays to the device, launches one entry, copies every pointer argument back and
times the launch with CUDA events. ``llc-run --gpu`` uses it to run a lowered kernel on the GPU
next to the SIMT interpreter and compare the buffers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GpuError", "GpuRun", "gpu_available", "gpu_name", "launch"]


class GpuError(RuntimeError):
    """A CUDA driver call failed (its name and the driver's error)."""


def _driver() -> Any:
    from cuda.bindings import driver  # type: ignore[import-not-found]

    return driver


def _check(result: Any, what: str) -> Any:
    err, *rest = result if isinstance(result, tuple) else (result,)
    driver = _driver()
    if err != driver.CUresult.CUDA_SUCCESS:
        _, text = driver.cuGetErrorString(err)
        raise GpuError(f"{what}: {text.decode() if text else err}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


_CONTEXT: Any = None


def _context() -> Any:
    global _CONTEXT
    if _CONTEXT is None:
        driver = _driver()
        _check(driver.cuInit(0), "cuInit")
        device = _check(driver.cuDeviceGet(0), "cuDeviceGet")
        _CONTEXT = _check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    _check(_driver().cuCtxSetCurrent(_CONTEXT), "cuCtxSetCurrent")
    return _CONTEXT


def gpu_available() -> bool:
    """Whether ``cuda-python`` is installed and a CUDA device answers."""
    try:
        _context()
    except Exception:
        return False
    return True


def gpu_name() -> str:
    """The name of device 0, e.g. ``NVIDIA H100 80GB HBM3``."""
    _context()
    driver = _driver()
    device = _check(driver.cuDeviceGet(0), "cuDeviceGet")
    raw = _check(driver.cuDeviceGetName(256, device), "cuDeviceGetName")
    return bytes(raw).split(b"\0", 1)[0].decode()


@dataclass
class GpuRun:
    """What :func:`launch` returns: every argument after the kernel ran once (pointer arguments
    copied back; scalars as given) and the mean time of a launch in milliseconds."""

    outputs: list[Any]
    milliseconds: float


def launch(
    ptx: str,
    entry: str,
    args: Sequence[Any],
    *,
    grid: tuple[int, int, int] = (1, 1, 1),
    block: tuple[int, int, int] = (128, 1, 1),
    shared_bytes: int = 0,
    repeat: int = 20,
) -> GpuRun:
    """Run ``entry`` of ``ptx``: numpy arrays are passed as device pointers (copied in and
    back), numpy scalars by value. The first launch's results are returned; then ``repeat``
    more launches are timed with CUDA events (on buffers the first launch already wrote, so
    only kernels whose output does not feed their input should be timed)."""
    driver = _driver()
    _context()
    module = _check(driver.cuModuleLoadData(ptx.encode() + b"\0"), "cuModuleLoadData")
    allocations: list[Any] = []
    try:
        function = _check(driver.cuModuleGetFunction(module, entry.encode()), "cuModuleGetFunction")
        if shared_bytes > 48 * 1024:
            attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            _check(
                driver.cuFuncSetAttribute(function, attribute, shared_bytes), "cuFuncSetAttribute"
            )
        holders: list[np.ndarray] = []
        for value in args:
            if isinstance(value, np.ndarray):
                host = np.ascontiguousarray(value)
                pointer = _check(driver.cuMemAlloc(max(1, host.nbytes)), "cuMemAlloc")
                allocations.append((pointer, host))
                _check(driver.cuMemcpyHtoD(pointer, host.ctypes.data, host.nbytes), "cuMemcpyHtoD")
                holders.append(np.array([int(pointer)], dtype=np.uint64))
            else:
                allocations.append(None)
                holders.append(np.array([value]))
        params = np.array([h.ctypes.data for h in holders], dtype=np.uint64)

        def run_once() -> None:
            _check(
                driver.cuLaunchKernel(
                    function, *grid, *block, shared_bytes, 0, params.ctypes.data, 0
                ),
                "cuLaunchKernel",
            )

        run_once()
        _check(driver.cuCtxSynchronize(), "kernel")
        outputs: list[Any] = []
        for value, alloc in zip(args, allocations, strict=True):
            if alloc is None:
                outputs.append(value)
                continue
            pointer, host = alloc
            out = np.empty_like(host)
            _check(driver.cuMemcpyDtoH(out.ctypes.data, pointer, out.nbytes), "cuMemcpyDtoH")
            outputs.append(out)
        start = _check(driver.cuEventCreate(0), "cuEventCreate")
        stop = _check(driver.cuEventCreate(0), "cuEventCreate")
        _check(driver.cuEventRecord(start, 0), "cuEventRecord")
        for _ in range(repeat):
            run_once()
        _check(driver.cuEventRecord(stop, 0), "cuEventRecord")
        _check(driver.cuEventSynchronize(stop), "cuEventSynchronize")
        elapsed = _check(driver.cuEventElapsedTime(start, stop), "cuEventElapsedTime")
        driver.cuEventDestroy(start)
        driver.cuEventDestroy(stop)
        return GpuRun(outputs, float(elapsed) / max(1, repeat))
    finally:
        for alloc in allocations:
            if alloc is not None:
                driver.cuMemFree(alloc[0])
        driver.cuModuleUnload(module)

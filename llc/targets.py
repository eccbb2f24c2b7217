"""The known values of llc's hardware options, checked in one place.

Every command-line flag and pass option that names a target, a PTX architecture, an mma
version or an element type is checked here, so ``--gpu-target banana``,
``target="cuda:xx"``, ``mma-version=9`` or ``-t 'ptx{arch=sm_42}'`` fail with one message
naming the value and what is accepted, instead of producing output for a machine that does
not exist. Element types (``--dtype``) are checked by :func:`llc.cost.dtype_bitwidth`.

>>> check_target("cuda:90"), check_target("hip:gfx942")
('cuda:90', 'hip:gfx942')
>>> check_target("cuda:xx")
Traceback (most recent call last):
...
llc.errors.LayoutError: unknown target 'cuda:xx': expected cuda:CC with CC one of 70, 72, 75, \
80, 86, 87, 89, 90, 100, 101, 103, 120, 121 (an 'a' suffix allowed, e.g. cuda:90a) or hip:ARCH \
with ARCH one of gfx908, gfx90a, gfx940, gfx941, gfx942, gfx950, gfx1100, gfx1101, gfx1102, \
gfx1200, gfx1201, gfx1250
"""

from __future__ import annotations

import re

from llc.errors import LayoutError

__all__ = [
    "CUDA_CAPABILITIES",
    "HIP_ARCHS",
    "MMA_VERSIONS",
    "PTX_ARCHS",
    "check_mma_version",
    "check_pass_options",
    "check_ptx_arch",
    "check_target",
]

CUDA_CAPABILITIES: tuple[int, ...] = (70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120, 121)
"""Compute capabilities of the NVIDIA GPUs Triton 3.9 compiles for (Volta to Blackwell)."""

HIP_ARCHS: tuple[str, ...] = (
    "gfx908",
    "gfx90a",
    "gfx940",
    "gfx941",
    "gfx942",
    "gfx950",
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1200",
    "gfx1201",
    "gfx1250",
)
"""AMD architectures Triton 3.9's AMD backend compiles for (CDNA 1-4, RDNA 3-4, gfx1250 with
WMMA v3)."""

PTX_ARCHS: tuple[str, ...] = ("sm_80", "sm_89", "sm_90", "sm_90a")
"""The ``.target`` values llc's PTX emitter writes (:mod:`llc.passes.targets.ptx`: sm_80 code
runs on every later GPU; sm_89 keeps f8 conversions in software, as PTX ISA 8.0 has no f8 ``cvt``
there; sm_90 adds ``stmatrix`` and the f8 ``cvt``; sm_90a wgmma)."""

MMA_VERSIONS: dict[int, str] = {
    0: "from the target",
    1: "FMA, no tensor cores",
    2: "NVIDIA mma v2, mma.sync",
    3: "NVIDIA mma v3, wgmma",
}
"""The ``mma-version`` option of the layout passes and ``llc-compile``."""

_CUDA = re.compile(r"cuda:(\d+)(a?)")


def _known_targets() -> str:
    caps = ", ".join(str(c) for c in CUDA_CAPABILITIES)
    return (
        f"expected cuda:CC with CC one of {caps} (an 'a' suffix allowed, e.g. cuda:90a) or "
        f"hip:ARCH with ARCH one of {', '.join(HIP_ARCHS)}"
    )


UNSPECIFIED_CUDA_CAPABILITY = 90
"""The capability llc's choices assume for a CUDA target that names none: Triton's lit inputs
write ``"cuda:0"`` or a bare ``"cuda"`` for passes that do not depend on the architecture (Triton
reads them and only a pass that asks for the capability fails). llc reads them too, prints
them back as written, and prices, picks instructions and emits PTX as for ``cuda:90`` (sm_90,
the default target of the layout passes)."""


def capability_target(target: str) -> str:
    """The target llc's choices are made for: ``target`` itself, or ``cuda:90``
    (:data:`UNSPECIFIED_CUDA_CAPABILITY`) for a CUDA target without a capability (``cuda``,
    ``cuda:0``). The module keeps the target as it was written.

    >>> [capability_target(t) for t in ("cuda", "cuda:0", "cuda:80", "hip:gfx942")]
    ['cuda:90', 'cuda:90', 'cuda:80', 'hip:gfx942']
    """
    if target in ("cuda", "cuda:0"):
        return f"cuda:{UNSPECIFIED_CUDA_CAPABILITY}"
    return target


def check_target(target: str) -> str:
    """``target`` if it names a known GPU (``cuda:80``, ``cuda:90a``, ``hip:gfx942``), else a
    :class:`~llc.errors.LayoutError` naming it and the accepted values.

    >>> check_target("hip:gfx1100")
    'hip:gfx1100'
    >>> check_target("banana")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: unknown target 'banana': expected cuda:CC with CC one of 70, ...
    """
    if (match := _CUDA.fullmatch(capability_target(target))) is not None:
        if int(match.group(1)) in CUDA_CAPABILITIES:
            return target
    elif target.startswith("hip:") and target[len("hip:") :] in HIP_ARCHS:
        return target
    raise LayoutError(f"unknown target '{target}': {_known_targets()}")


def check_ptx_arch(arch: str) -> str:
    """``arch`` if llc's PTX emitter writes it, else a :class:`~llc.errors.LayoutError`.

    >>> check_ptx_arch("sm_90")
    'sm_90'
    >>> check_ptx_arch("sm_42")
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: unknown PTX arch 'sm_42': llc emits sm_80, sm_89, sm_90, sm_90a
    """
    if arch in PTX_ARCHS:
        return arch
    raise LayoutError(f"unknown PTX arch '{arch}': llc emits {', '.join(PTX_ARCHS)}")


def check_mma_version(version: int) -> int:
    """``version`` if it is an ``mma-version`` value, else a :class:`~llc.errors.LayoutError`.

    >>> check_mma_version(2)
    2
    >>> check_mma_version(9)
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: mma-version=9 is not one of 0 (from the target), 1 (FMA, no tensor \
cores), 2 (NVIDIA mma v2, mma.sync), 3 (NVIDIA mma v3, wgmma)
    """
    if version in MMA_VERSIONS:
        return version
    known = ", ".join(f"{v} ({meaning})" for v, meaning in MMA_VERSIONS.items())
    raise LayoutError(f"mma-version={version} is not one of {known}")


def check_pass_options(pass_name: str, target: str = "", mma_version: int = 0) -> None:
    """Check a pass's ``target`` (empty: the module's) and ``mma-version`` options; the error
    names the pass and the option.

    >>> check_pass_options("llc-compile", "", 2)
    >>> check_pass_options("llc-optimize-layouts", "cuda:xx")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: llc-optimize-layouts{target="cuda:xx"}: unknown target 'cuda:xx': ...
    """
    try:
        if target:
            check_target(target)
    except LayoutError as err:
        raise LayoutError(f'{pass_name}{{target="{target}"}}: {err}') from None
    try:
        check_mma_version(mma_version)
    except LayoutError as err:
        raise LayoutError(f"{pass_name}{{mma-version={mma_version}}}: {err}") from None

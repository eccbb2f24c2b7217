"""CPU time of the random-kernel tests before and after the wider generator (issue 19).

    python bench/kernel_gen_configs.py OLD_KERNEL_GEN.py N

OLD_KERNEL_GEN.py is the generator before the change (``git show 763c014:testing/kernel_gen.py``).
For seeds 0..N-1, alternating old and new so that load bursts hit both, it times (process CPU)
what ``test/unit/test_kernel_gen.py`` does per seed (laid-out vs layout-free, tensor level) and
what ``test/unit/test_lower_to_simt.py`` does (``llc-compile`` and the SIMT interpreter against
the tensor level).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import time
from types import ModuleType
from typing import Any


def _load(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("old_kernel_gen", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_kernel_gen"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> None:
    from llc.testing import kernel_gen as new
    from llc.testing.semantics import check_pipeline, check_same_semantics

    old = _load(sys.argv[1])
    count = int(sys.argv[2])
    totals = {"old": [0.0, 0.0], "new": [0.0, 0.0]}
    for seed in range(count):
        for name, module in (("old", old), ("new", new)):
            kernel = module.generate_kernel(seed)
            kwargs: dict[str, Any] = {}
            if name == "new":
                kwargs = {"grid": kernel.grid, "buffer_elements": kernel.buffer_elements}
            start = time.process_time()
            check_same_semantics(kernel.laid_out, kernel.layout_free, entry=kernel.entry, **kwargs)
            totals[name][0] += time.process_time() - start
            start = time.process_time()
            with contextlib.redirect_stderr(io.StringIO()):  # llc-compile's remarks
                check_pipeline(kernel.layout_free, "llc-compile", entry=kernel.entry, **kwargs)
            totals[name][1] += time.process_time() - start
    print(f"{count} seeds, process CPU seconds    old    new")
    print(f"test_kernel_gen (both forms)   {totals['old'][0]:6.1f} {totals['new'][0]:6.1f}")
    print(f"test_lower_to_simt (compiled)  {totals['old'][1]:6.1f} {totals['new'][1]:6.1f}")


if __name__ == "__main__":
    main()

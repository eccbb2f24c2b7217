"""Targets: printers of llc IR for other tools (``llc-opt -t NAME``, registered in
:data:`llc.dialects.universe.TARGETS`).

* :mod:`llc.passes.targets.ptx` prints lowered SIMT IR as PTX (with :mod:`.ptx_math`, the f64
  software math sequences, and :mod:`.ptx_f8`, the exact f8 conversions);
* :mod:`llc.passes.targets.ttgir` prints tensor-level IR as Triton TTGIR.

A target reads IR and writes text; it never rewrites IR. Passes do not import targets at module
level (``test/unit/test_module_structure.py``): the only way into a target from a pass is a
call-time import of its public entry point (``emit_ptx``, ``module_to_ttgir``).
"""

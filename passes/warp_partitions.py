"""Layout passes on code that runs on its own warps: ``tl.warp_specialize`` partitions and
functions with their own ``"tl.num-warps"``.

A layout pass chooses layouts for one warp count, the module's. A partition of
``tl.warp_specialize`` (``partition0(...) num_warps(2) {...}``) and a function with its own
``"tl.num-warps"`` attribute run on another count, so their tensors need layouts for that count
(Triton's verifier checks it). :func:`by_warp_scope` runs a module pass on each such scope apart:
each is moved into a module of its own whose ``"tl.num-warps"`` is the scope's (a partition
becomes a function whose arguments are its captures, the values it receives from outside,
which the passes treat as given), the pass runs on the outer module (where a partition is a
placeholder that holds nothing) and on each of these, and everything is moved back in place.
A function whose regions branch between blocks (``cf.br``, which Triton's IR may hold) is set
aside the same way when it has no tensor to lay out, and is an error located on it otherwise
(the passes lay out structured control flow).

>>> from llc.dialects.ttgir import parse_triton_module
>>> m = parse_triton_module('''
... module {
...   tt.func @f(%p: !tt.ptr<f32>) {
...     ttg.warp_specialize(%p)
...     default {
...       ttg.warp_yield
...     }
...     partition0(%a: !tt.ptr<f32>) num_warps(2) {
...       %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
...       ttg.warp_return
...     } : (!tt.ptr<f32>) -> ()
...     tt.return
...   }
... }''')
>>> seen = []
>>> by_warp_scope(lambda module: seen.append(module.attributes["tl.num-warps"].value.data), m)
>>> seen
[4, 2]
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i32
from xdsl.ir import Block, Operation, Region

from llc.dialects import tl
from llc.dialects.diagnostics import error_at

__all__ = ["by_warp_scope", "by_warp_scope_pass"]


def _scoped_module(outer: ModuleOp, warps: int, op: Operation) -> ModuleOp:
    attrs = dict(outer.attributes)
    attrs[tl.NUM_WARPS_ATTR] = IntegerAttr(warps, i32)
    return ModuleOp([op], attrs)


_SCOPE_ATTR = "llc.warp_scope"
"""Marks a ``tl.warp_specialize`` while its partitions are apart: a pass may replace the
function around it by a copy, so the op is found again by the mark."""


_MARKS = itertools.count()


def by_warp_scope(run: Callable[[ModuleOp], None], module: ModuleOp) -> None:
    """Run ``run`` on ``module`` and apart on each partition and each function with its own
    warp count (see the module doc). ``run`` may replace the functions it is given."""
    scopes: list[tuple[ModuleOp, Callable[[ModuleOp], None]]] = []
    body = module.body.block
    for index, fn in enumerate(list(body.ops)):
        if isinstance(fn, func.FuncOp) and _branches(fn):
            # Branches between blocks (cf.br): the passes lay out structured control flow only.
            # With no tensor to lay out the function is left as it is; with tensors, it is an
            # error located on it rather than a crash inside a pass.
            if any(_has_layout(v.type) for op in fn.walk() for v in (*op.results, *op.operands)):
                raise error_at(
                    fn,
                    f"llc's layout passes lay out structured control flow (scf) only: "
                    f"@{fn.sym_name.data} branches between blocks",
                )
            body.detach_op(fn)
            scopes.append((_scoped_module(module, 0, fn), _put_back_at(body, index, run=False)))
            continue
        if not isinstance(fn, func.FuncOp) or not _own_warps(module, fn) or not fn.body.blocks:
            continue
        warps = fn.attributes[tl.NUM_WARPS_ATTR]
        assert isinstance(warps, IntegerAttr)
        body.detach_op(fn)
        scoped = _scoped_module(module, warps.value.data, fn)
        put_back = _put_back_at(body, index, run=True)
        scopes.append((scoped, put_back))
    marks = []
    for ws in [o for o in module.walk() if isinstance(o, tl.WarpSpecializeOp)]:
        if _SCOPE_ATTR in ws.attributes:  # apart already (a pass run inside another)
            continue
        mark = next(_MARKS)
        marks.append(IntegerAttr(mark, i32))
        ws.attributes[_SCOPE_ATTR] = marks[-1]
        for index, warps in enumerate(ws.num_warps):
            scopes.append(_outline_partition(module, ws, mark, index, warps))
    run(module)
    for scoped, put_back in scopes:
        if getattr(put_back, "run", True):
            by_warp_scope(run, scoped)  # a function of its own may hold partitions
        put_back(scoped)
    for ws in module.walk():
        if isinstance(ws, tl.WarpSpecializeOp) and ws.attributes.get(_SCOPE_ATTR) in marks:
            del ws.attributes[_SCOPE_ATTR]


def _outline_partition(
    module: ModuleOp, ws: tl.WarpSpecializeOp, mark: int, index: int, warps: int
) -> tuple[ModuleOp, Callable[[ModuleOp], None]]:
    """Partition ``index`` of ``ws`` as a function in a module of ``warps`` warps; the region
    keeps a placeholder block (same arguments, an op with effects, so that nothing deletes the
    op meanwhile, and a ``tl.warp_return``) until the put-back."""
    region = ws.partition_regions[index]
    types = [a.type for a in region.block.args]
    fn_body = Region()
    region.move_blocks(fn_body)
    block = fn_body.block
    ret = block.last_op
    assert isinstance(ret, tl.WarpReturnOp)
    block.erase_op(ret)
    block.add_op(func.ReturnOp())
    fn = func.FuncOp("__llc_partition", (types, []), fn_body)
    keep = tl.OpaqueOp("llc.partition_placeholder", "", [], [], [])
    region.add_block(Block([keep, tl.WarpReturnOp()], arg_types=types))

    def put_back(scoped: ModuleOp) -> None:
        (new_fn,) = list(scoped.body.block.ops)
        assert isinstance(new_fn, func.FuncOp)
        moved = new_fn.body.block
        end = moved.last_op
        assert isinstance(end, func.ReturnOp)
        moved.erase_op(end)
        moved.add_op(tl.WarpReturnOp())
        owner = next(
            o
            for o in module.walk()
            if isinstance(o, tl.WarpSpecializeOp)
            and o.attributes.get(_SCOPE_ATTR) == IntegerAttr(mark, i32)
        )
        target = owner.partition_regions[index]
        placeholder = target.block
        target.detach_block(placeholder)
        placeholder.erase()
        new_fn.body.move_blocks(target)

    return _scoped_module(module, warps, fn), put_back


def _branches(fn: func.FuncOp) -> bool:
    """Whether a region of ``fn`` has several blocks (``cf`` branches)."""
    return any(len(r.blocks) > 1 for op in fn.walk() for r in op.regions)


def _has_layout(typ: object) -> bool:
    return isinstance(typ, TensorType) and bool(typ.get_shape())


def _put_back_at(body: Block, index: int, run: bool) -> Callable[[ModuleOp], None]:
    """Puts the one function of a module back at ``index`` of ``body`` (``run``: whether the
    pass ran on it meanwhile)."""

    def put_back(scoped: ModuleOp) -> None:
        (fn,) = list(scoped.body.block.ops)
        scoped.body.block.detach_op(fn)
        ops = list(body.ops)
        if index < len(ops):
            body.insert_op_before(fn, ops[index])
        else:
            body.add_op(fn)

    put_back.run = run  # type: ignore[attr-defined]
    return put_back


def _own_warps(module: ModuleOp, fn: func.FuncOp) -> bool:
    """Whether ``fn`` sets a warp count other than its module's."""
    warps = fn.attributes.get(tl.NUM_WARPS_ATTR)
    return isinstance(warps, IntegerAttr) and warps != module.attributes.get(tl.NUM_WARPS_ATTR)


def _has_warp_scopes(module: ModuleOp) -> bool:
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp) and (_own_warps(module, op) or _branches(op)):
            return True
    return any(
        isinstance(o, tl.WarpSpecializeOp) and _SCOPE_ATTR not in o.attributes
        for o in module.walk()
    )


def by_warp_scope_pass(apply: Callable[[Any, Any, ModuleOp], None]) -> Callable[..., None]:
    """Decorates a layout pass's ``apply``: on a module with partitions or functions of their
    own warp count, run it per scope (:func:`by_warp_scope`); a ``num-warps`` option applies to
    the module's own code, each scope keeps its count."""

    @functools.wraps(apply)
    def wrapped(self: Any, ctx: Any, op: ModuleOp) -> None:
        if not _has_warp_scopes(op):
            apply(self, ctx, op)
            return

        def run(module: ModuleOp) -> None:
            scoped = self if module is op else dataclasses.replace(self, num_warps=0)
            apply(scoped, ctx, module)

        by_warp_scope(run, op)

    return wrapped

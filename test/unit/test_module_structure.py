"""Module boundaries of the package: no import cycles in the core, no private names shared.

The core (``llc/``) is imported module by module by the dialects, passes and tools; an import
cycle makes the import order matter and forces lazy imports. A name with a leading underscore
is private to its module: what other modules need gets a public name.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = {"llc": ROOT / "llc", "llc.dialects": ROOT / "dialects"}
PACKAGE_DIRS |= {"llc.passes": ROOT / "passes", "llc.tools": ROOT / "tools"}


def module_files(prefix: str, folder: Path) -> dict[str, Path]:
    """Module name -> file for every module under ``folder`` (packages excluded)."""
    modules: dict[str, Path] = {}
    for path in sorted(folder.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        rel = path.relative_to(folder).with_suffix("")
        modules[".".join([prefix, *rel.parts])] = path
    return modules


def is_type_checking_block(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def import_time_imports(path: Path) -> set[str]:
    """Modules imported when ``path`` is imported: module-level statements only, without
    ``if TYPE_CHECKING:`` blocks (imports inside functions run later, at call time)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if is_type_checking_block(node):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                found.add(inner.module)
                found.update(f"{inner.module}.{alias.name}" for alias in inner.names)
            elif isinstance(inner, ast.Import):
                found.update(alias.name for alias in inner.names)
    return found


def executed_imports(path: Path) -> set[str]:
    """Modules an import of ``path`` really imports: like :func:`import_time_imports`, but not
    looking inside function bodies, which run at call time."""
    found: set[str] = set()
    pending: list[ast.AST] = [
        node for node in ast.parse(path.read_text()).body if not is_type_checking_block(node)
    ]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        pending.extend(ast.iter_child_nodes(node))
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for succ in sorted(graph[node]):
            if state.get(succ) == 1:
                return [*stack[stack.index(succ) :], succ]
            if succ not in state and (cycle := visit(succ)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_core_has_no_import_cycle() -> None:
    modules = module_files("llc", PACKAGE_DIRS["llc"])
    graph = {name: import_time_imports(path) & set(modules) for name, path in modules.items()}
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"
    # The cycle issue 7 reported: views may name LinearLayout in types only.
    assert "llc.linear_layout" not in import_time_imports(modules["llc.views"])


def test_core_never_imports_xdsl_or_triton_at_module_level() -> None:
    """``llc/`` is the xDSL-free core: importing any of its modules loads neither xDSL nor
    Triton. ``llc.triton`` (the Triton integration, placed in ``llc/`` so that ``import
    llc.triton`` works with the package mapping as it is) needs both, and imports them inside
    its functions only; its import-time check of ``LLC_TRITON`` must stay that cheap."""
    offenders = []
    for name, path in module_files("llc", PACKAGE_DIRS["llc"]).items():
        for imported in executed_imports(path):
            if imported.split(".")[0] in ("xdsl", "triton"):
                offenders.append(f"{name}: {imported}")
    assert not offenders, offenders


def test_the_cycle_check_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_private_name_is_imported_across_modules() -> None:
    offenders = []
    for folder in PACKAGE_DIRS.values():
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.ImportFrom) or not (node.level or node.module):
                    continue
                if not node.level and not node.module.startswith("llc"):
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}")
    assert not offenders, offenders


TARGETS = "llc.passes.targets"
ANALYSES = ("llc.passes.axis_info",)
"""Modules of ``passes/`` that read IR without rewriting it: a target may call them."""


def test_targets_read_ir_and_passes_do_not_import_them_at_import_time() -> None:
    """The targets (``passes/targets/``: PTX, TTGIR) print IR for other tools. A target may use
    the core, the dialects, its sibling targets and (at call time) the analyses, never a pass (a
    printer that rewrites IR is a pass); passes and dialects reach a target only through a
    call-time import of its public entry point, so that loading the pipeline never loads a
    printer."""
    modules = module_files("llc.passes", PACKAGE_DIRS["llc.passes"])
    targets = {name for name in modules if name.startswith(TARGETS + ".")}
    assert {f"{TARGETS}.ptx", f"{TARGETS}.ttgir"} <= targets, sorted(targets)
    assert not (ROOT / "passes" / "ptx.py").exists()
    assert not (ROOT / "dialects" / "ttgir_printer.py").exists()
    offenders = []
    for name, path in modules.items():
        if name in targets:
            at_call = {i for i in import_time_imports(path) if not i.startswith(ANALYSES)}
            wrong = at_call | executed_imports(path)
            wrong = {i for i in wrong if i.startswith("llc.passes.") and not i.startswith(TARGETS)}
        else:
            wrong = {i for i in executed_imports(path) if i.startswith(TARGETS)}
        offenders += [f"{name}: {i}" for i in sorted(wrong)]
    for name, path in module_files("llc.dialects", PACKAGE_DIRS["llc.dialects"]).items():
        offenders += [f"{name}: {i}" for i in executed_imports(path) if i.startswith(TARGETS)]
    assert not offenders, offenders


def _readers_of_program_instructions() -> list[str]:
    """Every function outside ``llc/`` that reads a program's ``instrs`` (qualified name)."""
    readers = []
    for package in ("llc.dialects", "llc.passes", "llc.tools"):
        for name, path in module_files(package, PACKAGE_DIRS[package]).items():
            tree = ast.parse(path.read_text())
            for fn in ast.walk(tree):
                if not isinstance(fn, ast.FunctionDef):
                    continue
                if any(
                    isinstance(node, ast.Attribute) and node.attr == "instrs"
                    for node in ast.walk(fn)
                ):
                    readers.append(f"{name}.{fn.name}")
    testing = ROOT / "testing"
    for path in sorted(testing.rglob("*.py")):
        if any(
            isinstance(node, ast.Attribute) and node.attr == "instrs"
            for node in ast.walk(ast.parse(path.read_text()))
        ):
            readers.append(f"llc.testing.{path.stem}")
    return readers


def test_one_materializer_of_simt_programs() -> None:
    """``llc/lowering.py``'s ``SimtProgram`` (the xDSL-free planner's output, with the numpy
    model and the cost model reading it) becomes SIMT dialect ops in exactly one function,
    ``llc.passes.lower_conversions.materialize``: conversion functions, gather functions and the
    whole-kernel lowering (conversions, gathers, reductions, through
    ``FunctionLowering.run_program``) all call it. A second function that walks a program's
    instructions outside ``llc/`` is a second materializer, and the two would drift."""
    assert _readers_of_program_instructions() == ["llc.passes.lower_conversions.materialize"]

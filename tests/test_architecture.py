"""The architecture's invariants that a test can hold: no import cycles, one key rule, layers."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import numpy as np
import pytest

import datamove as dm

SRC = Path(dm.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in SRC.rglob("*.py")}


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The datamove modules ``name`` imports, at module scope or in a function alike."""
    tree = ast.parse(path.read_text())
    skip = _type_checking_lines(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", 0) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1]])
                base = f"{base}.{node.module}" if node.module else base
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in modules:
                    found.add(full)
                elif base in modules:
                    found.add(base)
    found.discard(name)
    return {m for m in found if not name.startswith(m + ".")}  # a package's own __init__


def test_no_import_cycle_anywhere_in_src():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert "datamove._backends._foreign" in graph  # the walk found the tree
    done: set[str] = set()

    def visit(name: str, stack: list[str]) -> None:
        if name in stack:
            cycle = [*stack[stack.index(name) :], name]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, [*stack, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_the_library_never_imports_the_command_line():
    modules = _modules()
    for name, path in modules.items():
        if name == "datamove.__main__" or name.startswith("datamove.cli"):
            continue
        reached = {m for m in _imports(name, path, modules) if m.startswith("datamove.cli")}
        assert not reached, f"{name} imports {sorted(reached)}"


def test_exit_codes_have_one_home_every_subcommand_imports():
    from datamove.cli import _exit

    assert (_exit.EXIT_OK, _exit.EXIT_INVALID, _exit.EXIT_USAGE) == (0, 1, 2)  # docs/cli.md
    modules = _modules()
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        assigned = {
            t.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            for target in node.targets
            for t in ast.walk(target)
            if isinstance(t, ast.Name) and t.id.startswith("EXIT_")
        }
        assert not assigned or name == "datamove.cli._exit", f"{name} assigns {sorted(assigned)}"
        if name.startswith("datamove.cli._") and "def register(" in path.read_text():
            assert "datamove.cli._exit" in _imports(name, path, modules), name


def test_the_walk_sees_a_cycle_where_there_is_one(tmp_path):
    pkg = tmp_path / "datamove"
    pkg.mkdir()
    (pkg / "a.py").write_text("def f():\n    from datamove import b\n")
    (pkg / "b.py").write_text("from datamove.a import f\n")
    modules = {"datamove.a": pkg / "a.py", "datamove.b": pkg / "b.py"}
    assert _imports("datamove.a", pkg / "a.py", modules) == {"datamove.b"}
    assert _imports("datamove.b", pkg / "b.py", modules) == {"datamove.a"}


def test_numpy_is_a_backend_like_the_others():
    from datamove import _backends

    backend, _, shape = _backends.prepare("Split", np.zeros((2, 3)))
    assert isinstance(backend, _backends.Backend)
    assert shape == (2, 3)
    assert _backends.backend_for("Split", np.zeros(1)) is backend


def test_foreign_backend_leaves_to_numpy_what_numpy_reads():
    # DirectML's split and join take anything np.asarray takes; other libraries' arrays go to
    # their backend, the one backend_for finds.
    from datamove import _backends

    for value in (np.zeros(2), np.float32(1), 3, [1, 2], memoryview(b"ab"), None, object()):
        assert _backends.foreign_backend("DirectML", value) is None
    strict = pytest.importorskip("array_api_strict")
    x = strict.asarray([1, 2])
    assert _backends.foreign_backend("DirectML", x) is _backends.backend_for("DirectML", x)


def _private_reaches(name: str, path: Path, modules: set[str]) -> list[str]:
    """``from m import _x`` and ``m._x``, where ``_x`` is a private name of module ``m``."""
    tree = ast.parse(path.read_text())
    aliases: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("datamove"):
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{name}:{node.lineno} imports {node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            aliases.update({a.asname or a.name: a.name for a in node.names if a.name in modules})
    found.extend(
        f"{name}:{node.lineno} reads {aliases[node.value.id]}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in aliases
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and f"{aliases[node.value.id]}.{node.attr}" not in modules
    )
    return found


def test_no_module_reaches_into_another_modules_private_names():
    # What one module needs of another is exported under a public name (in a private module).
    modules = _modules()
    names = set(modules) | {_module_name(p) for p in SRC.rglob("*.pyi")}  # compiled: _kernels
    found = [f for name, path in modules.items() for f in _private_reaches(name, path, names)]
    assert found == []


# -- NumPy subclasses whose indexing changes shapes (issue 23) --------------------------------
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # NumPy's, on np.matrix
def test_np_matrix_is_indexed_as_its_base_array():
    m = np.matrix([[1, 2, 3, 4]])
    got = dm.strided_slice(m, [0, 0], [1, 4], shrink_axis_mask=[1, 0])
    assert type(got) is np.ndarray
    inferred = dm.infer_strided_slice([1, 4], [0, 0], [1, 4], shrink_axis_mask=[1, 0])
    assert got.shape == (4,) == inferred.to_shape()
    assert got.tolist() == [1, 2, 3, 4]
    new = dm.strided_slice(m, [0, 0], [1, 4], new_axis_mask=[1, 0], copy=True)
    assert new.shape == (1, 1, 4)
    assert not np.shares_memory(new, m)
    out = np.empty((1, 1, 4), m.dtype)
    assert dm.strided_slice(m, [0, 0], [1, 4], new_axis_mask=[1, 0], out=out) is out
    assert out.tolist() == [[[1, 2, 3, 4]]]
    parts = dm.split(m, 1, 2)
    assert [p.shape for p in parts] == [(1, 2), (1, 2)]  # 2-D results keep the subclass
    assert all(type(p) is np.matrix for p in parts)
    # An empty 3-D view: np.matrix's own copy fails to reshape it ("cannot reshape array of
    # size 0 into shape (1,4)"), so it is copied as a plain array too.
    empty = dm.strided_slice(m, [0, 0], [0, 0], new_axis_mask=[1, 0], copy=True)
    assert type(empty) is np.ndarray
    assert empty.shape == (1, 0, 4)


def test_masked_arrays_keep_their_masks():
    x = np.ma.masked_array(np.arange(6), mask=[0, 1, 0, 0, 1, 0])
    a, b = dm.split(x, 0, 2)
    assert type(a) is np.ma.MaskedArray
    assert b.mask.tolist() == [False, True, False]
    c = dm.strided_slice(x, [0], [6], [2], copy=True)
    assert c.mask.tolist() == [False, False, True]


def test_every_example_count_scales_with_datamove_examples():
    # DATAMOVE_EXAMPLES (CONTRIBUTING.md) must reach every property test: a bare
    # max_examples=N would stay N in a long randomized run.
    tests = Path(__file__).parent
    bare = [
        f"{path.relative_to(tests)}:{node.lineno}"
        for path in sorted(tests.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.keyword)
        and node.arg == "max_examples"
        and isinstance(node.value, ast.Constant)
    ]
    assert bare == [], "use max_examples=strategies.examples(N)"


def _error_tree() -> dict[str, tuple[str, set[str]]]:
    """The tree in _errors.py's docstring: each class -> (its parent, its ``(+Other)`` bases)."""
    from datamove import _errors

    text = (_errors.__doc__ or "").split("::", 1)[1].split("\n\n", 2)[1]
    tree: dict[str, tuple[str, set[str]]] = {}
    stack: list[tuple[int, str]] = []
    for line in text.splitlines():
        found = re.search(r"(\w+)((?: \(\+\w+\))*)", line)
        assert found, line
        column = found.start()
        while stack and stack[-1][0] >= column:
            stack.pop()
        if stack:
            tree[found.group(1)] = (stack[-1][1], set(re.findall(r"\+(\w+)", found.group(2))))
        stack.append((column, found.group(1)))
    return tree


def test_the_error_tree_in_the_docstring_is_the_hierarchy() -> None:
    # docs/architecture.md and CONTRIBUTING.md send readers to this tree: each public error
    # class of every module is in it, under its first base, with its other bases as (+Name).
    modules = [importlib.import_module(name) for name in _modules()]
    classes = {
        obj
        for module in modules
        for name, obj in vars(module).items()
        if isinstance(obj, type)
        and issubclass(obj, dm.ValidationError)
        and not name.startswith("_")
        and obj.__module__.startswith("datamove")
    }
    tree = _error_tree()
    assert len(classes) > 10
    assert {c.__name__ for c in classes} == set(tree)
    for c in classes:
        first, *others = c.__bases__
        assert tree[c.__name__] == (first.__name__, {b.__name__ for b in others}), c.__name__

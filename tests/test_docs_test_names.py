"""Every test the docs name exists: the file, the function, and the parameter id.

README.md, CONTRIBUTING.md, docs/ and bench/RESULTS.md point at the test that pins a claim, in
backticks: ``tests/test_core.py::test_error_table[split(axis=2)]``, or shorter
after one such reference: ``::test_name`` (the same file), ``[id]`` right after another
parameter of the same test, or a bare ``test_name`` (a function of some file under ``tests/``).
A test renamed or removed leaves the docs pointing at nothing; this finds each such reference.
A parameter id is looked for in the test file's text (ids are written there as strings).
The other files of the repository a doc names (``src/...``, ``csrc/...``, ``bench/...``) must
exist too, and so must the code it names by module (``_plan.PLANS``, ``ir._ops.LAYER_OPS``,
``dm.cache_info``). bench/HISTORY.md is a record of the past and is not read. The other way
round, every module of ``src/`` has its place in docs/architecture.md's table of layers, and
every private name that table gives bare (``_sizes``, ``_split_dim``) exists. And every link
from one doc to another leads to a file and a heading that exist; docs/directml.md lists
``datamove.directml``'s public names.
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import datamove

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("README.md", "CONTRIBUTING.md", *sorted(f"docs/{p.name}" for p in ROOT.glob("docs/*.md")))
DOCS = (*DOCS, "bench/RESULTS.md")

SPAN = re.compile(r"`([^`\n]+)`")
REF = re.compile(r"(tests/[\w/]+\.py)?(?:::(\w+))?(\[.+\])?")
BARE = re.compile(r"test_\w+")
# What may stand between a parameter reference and the next ``[id]`` of the same test.
JOINER = re.compile(r"[\s,(]*(?:and\s*)?")


@functools.cache
def _functions(path: str) -> frozenset[str]:
    """The names of the functions and classes defined anywhere in a test file."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return frozenset(node.name for node in ast.walk(tree) if isinstance(node, kinds))


@functools.cache
def _defined_in() -> dict[str, list[str]]:
    """Test function name -> the test files that define it."""
    where: dict[str, list[str]] = {}
    for file in sorted(ROOT.glob("tests/**/*.py")):
        path = file.relative_to(ROOT).as_posix()
        for name in _functions(path):
            where.setdefault(name, []).append(path)
    return where


def _references(doc: str) -> list[tuple[int, str, str | None, str | None]]:
    """Each test reference in ``doc``: (line, file, function or None, parameter id or None)."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    refs: list[tuple[int, str, str | None, str | None]] = []
    file: str | None = None  # the file the last reference named: ``::name`` is in it
    function: str | None = None  # the test of the last parameter reference: ``[id]`` is of it
    end = 0  # where the last parameter reference ended
    for span in SPAN.finditer(text):
        body = span.group(1)
        line = text.count("\n", 0, span.start()) + 1
        ref = REF.fullmatch(body)
        follows = function is not None and JOINER.fullmatch(text[end : span.start()])
        if ref and ref.group(1):
            file, name, param = ref.group(1), ref.group(2), ref.group(3)
        elif ref and ref.group(2) and file is not None:
            name, param = ref.group(2), ref.group(3)
        elif ref and ref.group(3) and not ref.group(2) and follows:
            name, param = function, ref.group(3)
        elif BARE.fullmatch(body) and body in _defined_in():
            files = _defined_in()[body]
            file, name, param = files[0], body, None
        elif BARE.fullmatch(body):
            file, name, param = "tests/", body, None  # found nowhere: reported below
        else:
            continue
        assert file is not None
        refs.append((line, file, name, None if param is None else param[1:-1]))
        function = name if param is not None else None
        end = span.end()
    return refs


def _cases() -> list[object]:
    return [
        pytest.param(file, name, param, id=f"{doc}:{line}: {file}::{name}[{param}]")
        for doc in DOCS
        for line, file, name, param in _references(doc)
    ]


@pytest.mark.parametrize(("file", "name", "param"), _cases())
def test_the_test_a_doc_names_exists(file: str, name: str | None, param: str | None) -> None:
    if file == "tests/":
        pytest.fail(f"no test file under tests/ defines {name}")
    assert (ROOT / file).is_file(), f"{file} does not exist"
    if name is not None:
        assert name in _functions(file), f"{file} defines no {name}"
    if param is not None:
        assert param in (ROOT / file).read_text(encoding="utf-8"), f"{file} has no id {param!r}"


def test_the_docs_name_tests() -> None:
    # The reader above still finds the references (a change of notation would find none).
    assert len(_cases()) > 200


PATH = re.compile(r"(?:src|csrc|bench|examples|tests)/[\w/.-]+")


@pytest.mark.parametrize("doc", DOCS)
def test_the_files_a_doc_names_exist(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    named = {body for body in SPAN.findall(text) if PATH.fullmatch(body)}
    assert [path for path in sorted(named) if not (ROOT / path).exists()] == []


DOTTED = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?")


@functools.cache
def _modules() -> dict[str, list[object]]:
    """datamove's modules by the names the docs use: ``_plan``, ``ir._ops``, ``dm`` ..."""
    found: dict[str, list[object]] = {"dm": [datamove], "datamove": [datamove]}
    for info in pkgutil.walk_packages(datamove.__path__, "datamove."):
        module = importlib.import_module(info.name)
        inner = info.name.removeprefix("datamove.")
        for name in {inner, inner.rpartition(".")[2], info.name}:
            found.setdefault(name, []).append(module)
    return found


def _resolves(modules: list[object], names: list[str]) -> bool:
    for module in modules:
        obj = module
        try:
            for name in names:
                obj = getattr(obj, name)
        except AttributeError:
            continue
        return True
    return False


@pytest.mark.parametrize("doc", DOCS)
def test_the_code_a_doc_names_exists(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    missing = []
    for body in SPAN.findall(text):
        dotted = DOTTED.fullmatch(body)
        if not dotted or body.endswith((".py", ".md", ".c", ".h")):
            continue
        parts = dotted.group(1).split(".")
        for i in range(len(parts) - 1, 0, -1):  # the longest prefix that names a module
            modules = _modules().get(".".join(parts[:i]))
            if modules:
                if not _resolves(modules, parts[i:]):
                    missing.append(dotted.group(1))
                break
    assert missing == []


def _layer_rows() -> list[list[str]]:
    """The code spans of each row of docs/architecture.md's table of layers."""
    text = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    table = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    return [SPAN.findall(line) for line in rows]


def _in_map(package: str, name: str, rows: list[list[str]]) -> bool:
    """Whether a row of the map names module ``name`` of ``package`` (``""``, ``"ir/"`` ...)."""
    for spans in rows:
        packages = {s.split("/")[0] + "/" for s in spans if re.match(r"\w+/", s)}
        here = package in packages if package else not packages
        if name == "__init__":  # a package's own: the row of the package (of none: datamove's)
            if here and (package or "__init__.py" in spans):
                return True
            continue
        if any(s == package + name or s.startswith(f"{package}{name}.") for s in spans):
            return True  # `ir/_errors.py`, `_plan.py`, `directml/_moves.plan_moves`
        if package in packages and any(s == name or s.startswith(f"{name}.") for s in spans):
            return True  # `_graph` or `_ops.LAYER_OPS` in the row of `ir/`
        if not package and f"datamove.{name}" in spans:
            return True  # `datamove._kernels`
    return False


def test_the_map_names_every_module() -> None:
    # Each module of src/ (and the compiled one's stub) appears in architecture.md's table of
    # layers, in the row of its package: a module added without a place on the map fails here.
    src = ROOT / "src" / "datamove"
    rows = _layer_rows()
    assert len(rows) > 10
    missing = []
    for path in sorted([*src.rglob("*.py"), *src.rglob("*.pyi")]):
        parts = path.relative_to(src).with_suffix("").parts
        package = "".join(f"{p}/" for p in parts[:-1])
        if not _in_map(package, parts[-1], rows):
            missing.append(path.relative_to(src).as_posix())
    assert missing == []


LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(path: Path) -> set[str]:
    """The anchors GitHub makes of a Markdown file's headings (outside code blocks)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    anchors: set[str] = set()
    for heading in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = 0
        while (anchor := f"{slug}-{n}" if n else slug) in anchors:
            n += 1
        anchors.add(anchor)
    return anchors


@pytest.mark.parametrize("doc", DOCS)
def test_every_link_between_docs_leads_somewhere(doc: str) -> None:
    # A renamed heading or file leaves a link to nothing: each target file and anchor exists.
    source = ROOT / doc
    broken = []
    for link in LINK.findall(source.read_text(encoding="utf-8")):
        if re.match(r"\w+:", link):
            continue  # https: and the like
        path, _, anchor = link.partition("#")
        target = (source.parent / path).resolve() if path else source
        if not target.exists() or (anchor and anchor not in _anchors(target)):
            broken.append(link)
    assert broken == []


def test_directml_md_lists_exactly_the_public_names_of_datamove_directml() -> None:
    # docs/api.md leaves datamove.directml to directml.md's "Public API" (test_core holds
    # api.md's own tables to datamove and datamove.ir): each bullet names public names before
    # its colon, and together they are directml.__all__.
    import datamove.directml

    text = (ROOT / "docs/directml.md").read_text(encoding="utf-8")
    section = text.split("\n## Public API\n", 1)[1].split("\n## ", 1)[0]
    heads = [line[2:].split(": ", 1)[0] for line in section.splitlines() if line.startswith("- ")]
    named = [name for head in heads for name in re.findall(r"`(\w+)`", head)]
    assert sorted(named) == sorted(datamove.directml.__all__)


PRIVATE = re.compile(r"(?:(\w+)/)?(_(?!_)\w+)(?:\.py)?")  # not `__init__.py`, `__all__`
FILE = re.compile(r"(?:(\w+)/)?(\w+)\.pyi?")


def test_every_private_name_in_the_map_exists() -> None:
    # The reverse of test_the_map_names_every_module: a bare `_sizes` or `_build_split` in a row
    # of the table of layers (the dotted names are checked above) is a module of the row's
    # package, or a name defined in a module the row names. A module renamed or a function
    # removed leaves the map pointing at nothing.
    found = {
        info.name.removeprefix("datamove."): importlib.import_module(info.name)
        for info in pkgutil.walk_packages(datamove.__path__, "datamove.")
    }
    missing = []
    for spans in _layer_rows():
        packages = {s.split("/")[0] for s in spans if re.match(r"\w+/", s)}
        named = [found.get(p) for p in packages]
        for s in spans:
            if file := FILE.fullmatch(s):
                name = file.group(2) if file.group(2) != "__init__" else ""
                named.append(found.get(".".join(p for p in (file.group(1), name) if p)))
        for s in spans:
            private = PRIVATE.fullmatch(s)
            if not private:
                continue
            package, name = private.groups()
            modules = {name} | {f"{p}.{name}" for p in ([package] if package else packages)}
            if not modules & set(found) and not any(hasattr(m, name) for m in named if m):
                missing.append(s)
    assert missing == []

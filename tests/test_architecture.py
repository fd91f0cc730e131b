"""The map stays true: ARCHITECTURE.md lists every module of the server with the line its docstring
starts with, and no module grows past the size a newcomer reads in one sitting."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "hlo_lsp"
MAP = (ROOT / "ARCHITECTURE.md").read_text()
MOST_LINES = 400
MODULES = sorted(path for path in PACKAGE.rglob("*.py") if "grammar" not in path.parts)
SCRIPTS = sorted((ROOT / "benchmarks").rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


def _listed() -> set[str]:
    """The modules the map's "Every module" section lists, by path inside the package."""
    section = MAP.split("## Every module, one line each", 1)[1].split("\n## ", 1)[0]
    listed, package = set(), ""
    for line in section.splitlines():
        if heading := re.fullmatch(r"\*\*`(.+?)/?`\*\*", line.strip()):
            package = heading.group(1) + "/"
        elif item := re.match(r"- `([^`]+\.py)`:", line):
            listed.add(package + item.group(1))
    return listed


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_every_module_is_small_and_says_what_it_is(path: Path) -> None:
    text = path.read_text()
    assert len(text.splitlines()) <= MOST_LINES, f"{_name(path)}: split it (at most {MOST_LINES} lines)"
    tree = ast.parse(text)
    assert ast.get_docstring(tree) or not tree.body, f"{_name(path)}: a one-line docstring says what it is"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_benchmark_module_is_small_too(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MOST_LINES, f"{path.name}: split it (at most {MOST_LINES} lines)"


def test_the_map_lists_every_module_and_no_other() -> None:
    on_disk = {_name(path) for path in MODULES if path.parent != PACKAGE and ast.parse(path.read_text()).body}
    listed = _listed()
    assert sorted(on_disk - listed) == [], "modules missing from ARCHITECTURE.md's module list"
    assert sorted(listed - on_disk) == [], "ARCHITECTURE.md lists modules that are gone"


def _imports(path: Path) -> set[str]:
    """The server modules `path` imports at its top level (a name imported from a package that is one of its
    modules counts as that module)."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hlo_lsp"):
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                found.add(whole if _module_path(whole) else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("hlo_lsp"))
    return found


def _module_path(name: str) -> Path | None:
    base = PACKAGE.parent / name.replace(".", "/")
    return next((path for path in (base.with_suffix(".py"), base / "__init__.py") if path.exists()), None)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_module_imports_itself_back() -> None:
    """No import cycle (a module that a package's __init__ imports never imports that package back, say)."""
    graph = {_module_name(path): _imports(path) for path in MODULES}
    cycles = []

    def visit(name: str, path: list[str]) -> None:
        for imported in graph.get(name, ()):
            if imported in path:
                cycles.append(" -> ".join([*path[path.index(imported):], imported]))
            elif imported not in seen:
                seen.add(imported)
                visit(imported, [*path, imported])

    for start in graph:
        seen = {start}
        visit(start, [start])
    assert cycles == []

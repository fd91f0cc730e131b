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


def test_the_map_lists_every_module_and_no_other() -> None:
    on_disk = {_name(path) for path in MODULES if path.parent != PACKAGE and ast.parse(path.read_text()).body}
    listed = _listed()
    assert sorted(on_disk - listed) == [], "modules missing from ARCHITECTURE.md's module list"
    assert sorted(listed - on_disk) == [], "ARCHITECTURE.md lists modules that are gone"

"""Golden files: hover, outline and diagnostics as a user sees them on real dumps (lines and columns from 1,
file names without their folder), compared with tests/golden/<name>; HLO_LSP_UPDATE_GOLDEN=1 writes them."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from hlo_lsp.problems import Problem
from hlo_lsp.session import Cursor, Session, Symbol, module_stem
from hlo_lsp.text import Position, Range

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UPDATE = "HLO_LSP_UPDATE_GOLDEN"
OUTLINE_LIMIT = 20_000  # the editor's default bound (the setting hlo.outline.maxSymbols)


@dataclass(frozen=True)
class Spot:
    """Where to hover: on `word` (its first whole occurrence) in the one line of `path` that contains `line_text`."""

    path: Path
    line_text: str
    word: str

    def position(self) -> Position:
        lines = [(number, text) for number, text in enumerate(self.path.read_text(encoding="utf-8").split("\n"))
                 if self.line_text in text]
        assert len(lines) == 1, f"{self.line_text!r} is on {len(lines)} lines of {self.path.name}"
        number, text = lines[0]
        found = re.search(rf"(?<![\w.\-]){re.escape(self.word)}(?![\w.\-])", text)
        assert found is not None, f"{self.word!r} is not a whole word of {self.path.name}:{number + 1}"
        return Position(number, found.start())


def hover_text(spots: Iterable[Spot]) -> str:
    """`file:line:col word`, then the hover's markdown, for each spot (the module built first, as it is
    after the first seconds of an editor's session: a glance answering sooner gives the same text)."""
    session, built, entries = Session(), set[str](), []
    for spot in spots:
        source = str(spot.path.resolve())
        if module_stem(source) not in built:
            session.check(source)  # builds the module
            built.add(module_stem(source))
        position = spot.position()
        answer = session.hover(source, None, Cursor.at(position))
        shown = answer.value.markdown if answer is not None else "(no hover)"
        entries.append(f"=== {_place(spot.path.name, position)} {spot.word}\n{_relative(shown, spot.path.parent)}\n")
    return "\n".join(entries)


def outline_text(*paths: Path) -> str:
    """Each file's outline: a symbol a line, `kind name — detail — lines`, its children indented below it."""
    session = Session()
    parts = []
    for path in paths:
        answer = session.outline(str(path.resolve()), None, OUTLINE_LIMIT)
        assert answer is not None, path
        symbols, total = answer.value
        lines = [f"=== {path.name}: {total} symbol(s)"]
        lines.extend(_symbol_lines(symbols, depth=0))
        parts.append(_relative("\n".join(lines), path.parent) + "\n")
    return "\n".join(parts)


def _symbol_lines(symbols: Iterable[Symbol], depth: int) -> list[str]:
    lines = []
    for symbol in symbols:
        detail = f" — {symbol.detail}" if symbol.detail else ""
        lines.append(f"{'  ' * depth}{symbol.kind} {symbol.name}{detail} — {_lines(symbol.range)}")
        lines.extend(_symbol_lines(symbol.children, depth + 1))
    return lines


def _lines(extent: Range) -> str:
    first, last = extent.start.line + 1, extent.end.line + 1
    return f"line {first}" if first == last else f"lines {first}-{last}"


def diagnostics_text(path: Path) -> str:
    """Every problem of the module of `path`, sorted: `file:line:col severity code message`, and below it
    each place it relates to. Empty for a clean module."""
    checked = Session().check(str(path.resolve()))
    assert checked is not None, path
    return "".join(_relative(_problem_lines(problem), path.parent)
                   for problem in sorted(checked.problems, key=Problem.sort_key))


def _problem_lines(problem: Problem) -> str:
    lines = [f"{_place(problem.source, problem.range.start)} {problem.severity.label} {problem.code} {problem.message}"]
    lines.extend(f"    related {_place(related.source, related.range.start)} {related.message}"
                 for related in problem.related)
    return "\n".join(lines) + "\n"


def _place(source: str, position: Position) -> str:
    return f"{os.path.basename(source)}:{position.line + 1}:{position.character + 1}"


def _relative(text: str, folder: Path) -> str:
    """`text` with the dump's folder left out of the paths it holds."""
    return text.replace(f"{folder.resolve()}{os.sep}", "")


def assert_golden(name: str, text: str) -> None:
    """`text` is tests/golden/`name`; with HLO_LSP_UPDATE_GOLDEN=1, `text` is written there instead."""
    golden = GOLDEN / name
    if os.environ.get(UPDATE) == "1":
        _update(golden, text)
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0] or "tests/session"
    if not golden.exists():
        pytest.fail(f"no golden file {_shown(golden)}: create it with {UPDATE}=1 .venv/bin/pytest {test}, "
                    f"then read it and commit it", pytrace=False)
    expected = golden.read_text(encoding="utf-8")
    if text != expected:
        diff = difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                    f"{_shown(golden)} (golden)", "now")
        pytest.fail(f"the output differs from {_shown(golden)}; if the change is meant, run {UPDATE}=1 "
                    f".venv/bin/pytest {test} and review the diff\n" + "".join(diff), pytrace=False)


def _update(golden: Path, text: str) -> None:
    if golden.exists() and golden.read_text(encoding="utf-8") == text:
        print(f"{_shown(golden)} unchanged")
        return
    golden.parent.mkdir(parents=True, exist_ok=True)
    golden.write_text(text, encoding="utf-8")
    print(f"updated {_shown(golden)}")


def _shown(golden: Path) -> str:
    return str(golden.relative_to(GOLDEN.parent.parent))

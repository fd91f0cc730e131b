"""Dumps on disk: copies of a module, one change planted in a copy, lines found in a file, and the
problems `hlo-lsp check` reports on files (as a user sees them in the list)."""

from __future__ import annotations

import shutil
from pathlib import Path

from hlo_lsp.analysis.run import check_module
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.session import Checked
from hlo_lsp.workspace.loader import load


def copy_module(stem: Path, destination: Path) -> Path:
    """Copies every file of the module `stem` into `destination`; returns the new stem."""
    for source in stem.parent.glob(stem.name + "*"):
        target = destination / source.name
        shutil.copyfile(source, target)
    return destination / stem.name


def plant(path: Path, old: str, new: str) -> int:
    """Replaces the one line of `path` containing `old` (which must occur once); returns its 0-based line."""
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path.name}"
    line = text[: text.index(old)].count("\n")
    path.write_text(text.replace(old, new))
    return line


def plant_in_copy(stem: Path, suffix: str, destination: Path, old: str, new: str) -> tuple[Path, int]:
    """Copies the module into `destination`, checks the copy is clean, then plants one change
    into its file `stem + suffix`; returns that file and the 0-based line changed."""
    copy = copy_module(stem, destination)
    assert problems_of(destination) == []
    path = Path(f"{copy}{suffix}")
    return path, plant(path, old, new)


def lines_of(path: Path) -> list[str]:
    return path.read_text().split("\n")


def line_with(path: Path, needle: str) -> int:
    """The 0-based line of the one line of `path` that contains `needle`."""
    found = [number for number, text in enumerate(lines_of(path)) if needle in text]
    assert len(found) == 1, (needle, len(found))
    return found[0]


def where(problems: list[Problem]) -> list[tuple[str, int, Severity, str]]:
    """Each problem as (file name, 0-based line, severity, code): what a user sees in the list."""
    return [(Path(p.source).name, p.range.start.line, p.severity, p.code) for p in problems]


def seen(checked: Checked | None) -> list[tuple[object, ...]]:
    """A session's check's problems as the editor shows them: file, place, severity, code, message, related places."""
    assert checked is not None
    return [(p.source, p.range, p.severity, p.code, p.message, p.related) for p in checked.problems]


def problems_of(*paths: Path) -> list[Problem]:
    """Every problem `hlo-lsp check` reports on these files or folders."""
    loaded = load([str(path) for path in paths])
    problems = list(loaded.problems)
    for module in loaded.modules:
        problems.extend(check_module(module))
    return problems


def module_of(path: Path) -> ModuleDump:
    """The module a file belongs to, companions included."""
    loaded = load([str(path)])
    assert len(loaded.modules) == 1, [m.stem for m in loaded.modules]
    return loaded.modules[0]

"""Finding a source file a dump names: at the printed path, beside the dump and its parents, or by name
under the workspace folders, with a bounded walk that only lists folders and never opens a file."""

from __future__ import annotations

import builtins
import io
import os
from pathlib import Path

import pytest

from hlo_lsp.workspace import sources
from hlo_lsp.workspace.sources import SourceFinder

PRINTED = "/home/dev/xla-examples/gen_dumps.py"


def touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    return path


def forbid_opening_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, any attempt to open a file fails the test (listing folders and stat stay allowed)."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a file was opened: {args[:1]}")

    monkeypatch.setattr(builtins, "open", refuse)
    monkeypatch.setattr(io, "open", refuse)
    monkeypatch.setattr(os, "open", refuse)


def test_the_printed_path_when_it_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = touch(tmp_path / "train.py")
    forbid_opening_files(monkeypatch)
    assert SourceFinder([]).find(str(program)) == str(program)


def test_beside_the_dump_and_in_its_parents_up_to_the_workspace_folder(tmp_path: Path) -> None:
    root = tmp_path / "project"
    dump = root / "runs" / "jax" / "module_0000.txt"
    program = touch(root / "runs" / "gen_dumps.py")
    assert SourceFinder([str(root)]).find(PRINTED, str(dump)) == str(program)
    # The printed path's trailing folders count too (xla-examples/gen_dumps.py), but nearer folders first.
    better = touch(root / "xla-examples" / "gen_dumps.py")
    assert SourceFinder([str(root)]).find(PRINTED, str(dump)) == str(program)
    os.remove(program)
    assert SourceFinder([str(root)]).find(PRINTED, str(dump)) == str(better)


def test_parents_stop_at_the_workspace_folder(tmp_path: Path) -> None:
    touch(tmp_path / "gen_dumps.py")  # above the workspace folder
    root = tmp_path / "project"
    dump = root / "runs" / "module_0000.txt"
    dump.parent.mkdir(parents=True)
    assert SourceFinder([str(root)]).find(PRINTED, str(dump)) is None
    # With no workspace folder holding the dump, a few levels up.
    assert SourceFinder([]).find(PRINTED, str(dump)) == str(tmp_path / "gen_dumps.py")


def test_by_name_under_the_workspace_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    dump = root / "runs" / "module_0000.txt"
    touch(root / "tools" / "gen_dumps.py")
    wanted = touch(root / "code" / "xla-examples" / "gen_dumps.py")
    touch(root / ".git" / "xla-examples" / "gen_dumps.py")
    touch(root / "node_modules" / "dev" / "xla-examples" / "gen_dumps.py")
    forbid_opening_files(monkeypatch)
    assert SourceFinder([str(root)]).find(PRINTED, str(dump)) == str(wanted)


def test_nothing_found(tmp_path: Path) -> None:
    root = tmp_path / "project"
    touch(root / "other.py")
    assert SourceFinder([str(root)]).find(PRINTED, str(root / "m.txt")) is None
    assert SourceFinder([str(root)]).find("", str(root / "m.txt")) is None
    assert SourceFinder([str(root)]).find("../..", str(root / "m.txt")) is None


def test_the_walk_is_bounded(tmp_path: Path) -> None:
    root = tmp_path / "project"
    for index in range(30):
        touch(root / f"a{index:02}" / "filler.py")
    touch(root / "zz" / "deep" / "gen_dumps.py")
    assert SourceFinder([str(root)], max_entries=10).find(PRINTED) is None
    assert SourceFinder([str(root)]).find(PRINTED) == str(root / "zz" / "deep" / "gen_dumps.py")


def test_a_walk_is_remembered_for_a_while(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    touch(root / "src" / "gen_dumps.py")
    finder = SourceFinder([str(root)])
    walks = []
    walk = finder._walk
    monkeypatch.setattr(finder, "_walk", lambda: walks.append(1) or walk())
    for _ in range(5):
        assert finder.find(PRINTED) is not None
    assert len(walks) == 1
    monkeypatch.setattr(sources, "REMEMBERED_SECONDS", -1.0)
    finder.find(PRINTED)
    assert len(walks) == 2

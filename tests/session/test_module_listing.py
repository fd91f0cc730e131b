"""A session lists a dump folder's modules again without reading what did not change: a compilation is read anew
when one of its files changes size or mtime, comes or goes; the list is the one a fresh reading gives. A large HLO
file is not read: its module's peak comes from the buffer-assignment files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import CORPUS, FOLDER_SMALL_EAGER, PRODUCERS
from hlo_lsp.features.module_list import ModuleRow, module_rows
from hlo_lsp.parsing.file_kinds import FileKind, kind_from_name
from hlo_lsp.session import Session, module_listing
from hlo_lsp.workspace import loader
from hlo_lsp.workspace.loader import LoadedDump, load


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    copy = tmp_path / "dump"
    shutil.copytree(FOLDER_SMALL_EAGER, copy)
    return copy


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The files of each compilation the listing reads."""
    read: list[list[str]] = []

    def counted(paths: list[str]) -> LoadedDump:
        read.append([os.path.basename(path) for path in paths])
        return module_listing.load_files.__wrapped__(paths)  # type: ignore[attr-defined]

    counted.__wrapped__ = module_listing.load_files  # type: ignore[attr-defined]
    monkeypatch.setattr(module_listing, "load_files", counted)
    return read


def peaks(rows: list[ModuleRow]) -> list[tuple[str, int | None]]:
    return [(os.path.basename(row.path), row.peak) for row in rows]


@pytest.mark.parametrize("dump", [FOLDER_SMALL_EAGER, PRODUCERS, CORPUS], ids=["folder_small_eager", "producers",
                                                                               "corpus"])
def test_the_list_is_the_one_a_whole_reading_of_the_folder_gives(dump: Path) -> None:
    if not dump.is_dir():
        pytest.skip(f"{dump} is not beside the project")
    for sort in ("peak", "name", "size"):
        assert Session().list_modules([str(dump)], sort).rows == module_rows(load([str(dump)]).modules, sort)


def test_listed_again_unchanged_nothing_is_read(folder: Path, reads: list[list[str]]) -> None:
    session = Session()
    first = session.list_modules([str(folder)]).rows
    assert len(reads) == 15  # 14 modules and MANIFEST.txt, which holds none
    reads.clear()
    assert session.list_modules([str(folder)]).rows == first
    assert reads == []


def test_a_changed_file_reads_its_compilation_again_and_the_list_shows_it(folder: Path,
                                                                          reads: list[list[str]]) -> None:
    session = Session()
    session.list_modules([str(folder)])
    reads.clear()
    hlo = folder / "module_0020.jit_step.cpu_after_optimizations.txt"
    hlo.write_text(hlo.read_text() + "\n")
    listed = session.list_modules([str(folder)])
    assert len(reads) == 1 and "module_0020.jit_step.cpu_after_optimizations.txt" in reads[0]
    row = next(row for row in listed.rows if row.path == str(hlo))
    assert row.hlo_bytes == hlo.stat().st_size and row.peak == 245_896


def test_a_module_gone_leaves_the_list_and_a_new_one_enters_it(folder: Path, reads: list[list[str]]) -> None:
    session = Session()
    before = session.list_modules([str(folder)]).rows
    for path in folder.glob("module_0016.*"):
        path.unlink()
    for path in FOLDER_SMALL_EAGER.glob("module_0020.*"):
        shutil.copy(path, folder / path.name.replace("module_0020", "module_0099"))
    reads.clear()
    after = session.list_modules([str(folder)]).rows
    assert len(reads) == 1 and all(name.startswith("module_0099.") for name in reads[0])
    assert peaks(after)[:2] == [("module_0020.jit_step.cpu_after_optimizations.txt", 245_896),
                                ("module_0099.jit_step.cpu_after_optimizations.txt", 245_896)]
    assert len(after) == len(before)
    assert not any(row.path.endswith("module_0016.jit__normal.cpu_after_optimizations.txt") for row in after)


def test_the_listing_tells_its_share_done_and_a_folder_that_is_not_there(tmp_path: Path) -> None:
    shares: list[float] = []
    listed = Session().list_modules([str(FOLDER_SMALL_EAGER), str(tmp_path / "gone")], report=shares.append)
    assert len(listed.rows) == 14 and shares[-1] == 1.0 and shares == sorted(shares)
    assert [(problem.code, problem.message) for problem in listed.problems] == [("missing", "no such file or folder")]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files the listing opens."""
    names: list[str] = []
    read_document = loader.read_document

    def recorded(path: str, kind: object = None) -> object:
        names.append(os.path.basename(path))
        return read_document(path)

    monkeypatch.setattr(loader, "read_document", recorded)
    return names


def test_an_hlo_file_past_the_bound_is_not_read_and_its_row_keeps_its_peak(folder: Path, opened: list[str],
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module_listing, "UNREAD_HLO_FROM", 20_000)  # the three jit__normal modules' (43 KiB)
    large = {path.name for path in folder.glob("*.txt") if path.stat().st_size >= 20_000
             and kind_from_name(path.name) is FileKind.HLO_MODULE}
    assert len(large) >= 3
    rows = Session().list_modules([str(folder)]).rows
    assert opened and not large & set(opened)
    whole = module_rows(load([str(folder)]).modules)
    assert [(row.path, row.files, row.hlo_bytes, row.peaks, row.allocated) for row in rows] == [
        (row.path, row.files, row.hlo_bytes, row.peaks, row.allocated) for row in whole]
    assert [row.instructions is None for row in rows] == [os.path.basename(row.path) in large for row in whole]


def test_a_peak_that_needs_the_unread_hlo_files_shapes_reads_it(folder: Path, opened: list[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module_listing, "UNREAD_HLO_FROM", 1_000)
    values = folder / "module_0020.jit_step.cpu_after_optimizations-buffer-assignment-values.txt"
    values.write_text(values.read_text().replace("from instruction:", "from somewhere:"))
    listed = Session().list_modules([str(folder)])
    row = next(row for row in listed.rows if row.name == "jit_step")
    assert row.peak == 245_896 and row.instructions == 57
    assert "module_0020.jit_step.cpu_after_optimizations.txt" in opened
    assert "module_0016.jit__normal.cpu_after_optimizations.txt" not in opened

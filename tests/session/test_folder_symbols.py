"""Workspace symbols over the HLO modules of the workspace folders, opened or not: indexed in the background, an
open buffer's symbols rather than its file's, a changed file read again, at most the memory budget kept, files
that are no HLO module skipped, and questions answered (and first) while indexing goes on."""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from helpers import FOLDER_SMALL_EAGER, SPLIT_HLO, SPLIT_MLP, copy_module
from helpers.questions import question_answered_meanwhile
from hlo_lsp.session import Session, WorkspaceSymbol, human_bytes
from hlo_lsp.session import folder_symbols as folder_symbols_module
from hlo_lsp.session.folder_symbols import FolderSymbols
from hlo_lsp.text import Range

YNN = "  %ynn_fusion.1 = "


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A dump folder of two modules (the MLP's and another), copied: its files may change."""
    copy = tmp_path / "dump"
    copy.mkdir()
    copy_module(SPLIT_MLP, copy)
    for path in FOLDER_SMALL_EAGER.glob("module_0006.jit_unstack.*"):
        shutil.copyfile(path, copy / path.name)
    return copy


def symbols(session: Session, query: str, roots: list[Path]) -> list[WorkspaceSymbol]:
    """What the session answers once the folders are indexed."""
    session.workspace_symbols(query, [str(root) for root in roots])
    assert session.folder_symbols.wait(60)
    return session.workspace_symbols(query, [str(root) for root in roots])


def place(path: Path, line_start: str, name: str) -> tuple[str, Range]:
    lines = path.read_text().split("\n")
    [line] = [number for number, text in enumerate(lines) if text.startswith(line_start)]
    start = lines[line].index(name)
    return str(path), Range.on_line(line, start, start + len(name))


def where(symbol: WorkspaceSymbol) -> tuple[str, Range]:
    return symbol.location.source, symbol.location.range


def test_an_instruction_of_a_module_never_opened_is_found() -> None:
    session = Session()
    found = symbols(session, "ynn_fusion.1", [SPLIT_HLO.parent])
    assert [(s.name, s.kind, where(s), s.container) for s in found if s.name == "ynn_fusion.1"] == [
        ("ynn_fusion.1", "variable", place(SPLIT_HLO, YNN, "ynn_fusion.1"), "main.5")]
    assert session.open_sources() == [] and session.store.open_modules() == []


def test_every_module_of_a_dump_folder_is_searched() -> None:
    session = Session()
    hlo_files = sorted(FOLDER_SMALL_EAGER.glob("module_*optimizations.txt"))
    assert len(hlo_files) == 28  # 14 compilations, before and after optimizations
    for path in hlo_files:
        [entry] = re.findall(r"\nENTRY %?([\w.\-]+) ", path.read_text())
        found = symbols(session, entry, [FOLDER_SMALL_EAGER])
        assert place(path, f"ENTRY %{entry} ", entry) in [where(s) for s in found if s.kind == "function"], path.name


def test_the_open_buffer_wins_over_its_file(folder: Path) -> None:
    session = Session()
    hlo = folder / SPLIT_HLO.name
    assert [where(s) for s in symbols(session, "ynn_fusion.1", [folder])] == [place(hlo, YNN, "ynn_fusion.1")]
    edited = hlo.read_text().replace("%ynn_fusion.1 = ", "%renamed_fusion.1 = ")
    session.open(str(hlo), edited, 1)
    assert symbols(session, "ynn_fusion.1", [folder]) == []
    line = place(hlo, YNN, "ynn_fusion.1")[1].start.line
    assert [where(s) for s in symbols(session, "renamed_fusion.1", [folder])] == [
        (str(hlo), Range.on_line(line, 3, 3 + len("renamed_fusion.1")))]
    session.close(str(hlo))
    assert [where(s) for s in symbols(session, "ynn_fusion.1", [folder])] == [place(hlo, YNN, "ynn_fusion.1")]


def test_a_changed_file_is_read_again(folder: Path) -> None:
    session = Session()
    hlo = folder / SPLIT_HLO.name
    assert symbols(session, "ynn_fusion.1", [folder])
    stamp = os.stat(hlo)
    hlo.write_text(hlo.read_text().replace("%ynn_fusion.1 = ", "%yyy_fusion.1 = "))
    os.utime(hlo, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # the same size and mtime: only the event tells
    session.file_changed(str(hlo))
    assert symbols(session, "ynn_fusion.1", [folder]) == []
    assert [s.name for s in symbols(session, "yyy_fusion.1", [folder])] == ["yyy_fusion.1"]


def test_a_file_made_or_removed_is_found_or_forgotten(folder: Path) -> None:
    session = Session()
    assert symbols(session, "ynn_fusion.1", [folder])
    copy = folder / "module_0100.jit_copy.cpu_after_optimizations.txt"
    shutil.copyfile(SPLIT_HLO, copy)
    session.file_changed(str(copy))
    assert {s.location.source for s in symbols(session, "ynn_fusion.1", [folder])} == {
        str(copy), str(folder / SPLIT_HLO.name)}
    copy.unlink()
    session.file_changed(str(copy))
    assert {s.location.source for s in symbols(session, "ynn_fusion.1", [folder])} == {str(folder / SPLIT_HLO.name)}


def test_files_beyond_the_budget_are_left_out_with_one_log_line(folder: Path, caplog: pytest.LogCaptureFixture
                                                                 ) -> None:
    everything = FolderSymbols()
    sizes = {index.source: index.nbytes for index in _indexed(everything, folder)}
    largest = max(sizes, key=lambda source: os.path.getsize(source))
    bounded_budget = sum(sizes.values()) - sizes[largest]
    bounded = FolderSymbols(budget=bounded_budget)
    with caplog.at_level(logging.INFO, logger="hlo_lsp"):
        kept = [index.source for index in _indexed(bounded, folder)]
    assert sorted(kept) == sorted(source for source in sizes if source != largest)
    assert bounded.nbytes <= bounded_budget
    told = [record.getMessage() for record in caplog.records if "left out" in record.getMessage()]
    assert told == [f"workspace symbols: 1 HLO module files ({human_bytes(os.path.getsize(largest))}, the largest) "
                    f"are left out: their symbols would pass the {human_bytes(bounded_budget)} the index may hold"]


def test_files_that_hold_no_module_are_skipped(folder: Path) -> None:
    (folder / "module_0200.binary.cpu_after_optimizations.txt").write_bytes(bytes(range(256)) * 64)
    (folder / "module_0201.garbled.cpu_after_optimizations.txt").write_bytes(b"HloModule g\n\xff\xfe %x = (((\n}")
    (folder / "module_0202.flags.cpu_after_optimizations.txt").write_text("xla_flag: true\nother {\n}\n")
    (folder / "notes.txt").write_text("%ynn_fusion.1 = f32[] abs(x)\n")
    os.mkfifo(folder / "module_0203.fifo.cpu_after_optimizations.txt")  # reading it would block: never opened
    indexes = _indexed(FolderSymbols(), folder)
    names = sorted(os.path.basename(index.source) for index in indexes)
    assert "module_0200.binary.cpu_after_optimizations.txt" not in names
    assert "notes.txt" not in names and "module_0203.fifo.cpu_after_optimizations.txt" not in names
    assert [where(s) for s in symbols(Session(), "ynn_fusion.1", [folder])] == [
        place(folder / SPLIT_HLO.name, YNN, "ynn_fusion.1")]


def test_a_large_text_not_as_xla_prints_it_is_left_out(folder: Path, caplog: pytest.LogCaptureFixture) -> None:
    hlo = folder / SPLIT_HLO.name
    hlo.write_text(hlo.read_text().replace("\n}\n", "\n}  \n// a comment\n\n}\n", 1))  # no longer as printed
    with caplog.at_level(logging.INFO, logger="hlo_lsp"):
        kept = [index.source for index in _indexed(FolderSymbols(scanned_at_most=1000), folder)]
    assert str(hlo) not in kept and kept
    assert any("is not laid out as XLA prints it" in record.getMessage() for record in caplog.records)
    assert str(hlo) in [index.source for index in _indexed(FolderSymbols(), folder)]


def test_questions_are_answered_while_indexing_waits_for_them(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A question being answered holds indexing back; a query then answers at once with what is indexed so far
    (nothing yet), and finds the module once indexing has gone on."""
    monkeypatch.setattr(folder_symbols_module, "FIRST_WAIT", 0.05)
    session = Session()
    with question_answered_meanwhile():
        start = time.monotonic()
        assert session.workspace_symbols("ynn_fusion.1", [str(folder)]) == []
        assert time.monotonic() - start < 1.0
    assert [s.name for s in symbols(session, "ynn_fusion.1", [folder])] == ["ynn_fusion.1"]


def test_no_folders_search_the_open_modules_alone() -> None:
    session = Session()
    assert session.workspace_symbols("ynn_fusion.1") == []
    session.open(str(SPLIT_HLO), SPLIT_HLO.read_text(), 1)
    assert [where(s) for s in session.workspace_symbols("ynn_fusion.1")] == [place(SPLIT_HLO, YNN, "ynn_fusion.1")]


def _indexed(symbols: FolderSymbols, folder: Path) -> list:  # type: ignore[type-arg]
    symbols.indexes([str(folder)])
    assert symbols.wait(60)
    return symbols.indexes([str(folder)])

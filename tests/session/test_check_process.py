"""The check process: a module checked there has the problems a check in the session's own process finds, after
edits too; a check is stale once an open file changes, cancelled when no longer wanted, and the process ends when it
holds no open file, or when it fails, without taking the session with it."""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import COMBINED_MLP, EDITS, HANDWRITTEN, SPLIT_CONTROL_FLOW, SPLIT_MLP, copy_module, plant, seen
from hlo_lsp.session import CheckCancelled, Checked, Cursor, Session
from hlo_lsp.session.check_process import CheckFailed
from hlo_lsp.text import Position, Range

LOGGER = "hlo_lsp.session.check_process"
MOVED = ("<69 reduce_log_fusion @0> (size=128,offset=128)", "<69 reduce_log_fusion @0> (size=128,offset=0)")


def opened(session: Session, *paths: Path) -> None:
    for path in paths:
        session.open(str(path), path.read_text(), 1)


def started_pids(caplog: pytest.LogCaptureFixture) -> list[int]:
    return [int(m.group(1)) for record in caplog.records
            if (m := re.match(r"check process (\d+) started", record.getMessage()))]


def ended(pid: int, seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def sessions(caplog: pytest.LogCaptureFixture) -> Iterator[tuple[Session, Session]]:
    """A session checking every module in the check process, and one checking every module itself."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    there, here = Session(check_process_from=0), Session()
    yield there, here
    for source in there.open_sources():
        there.close(source)


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """The split mlp3 module with reduce_log_fusion moved onto add_reduce_fusion: two overlap errors."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    plant(Path(f"{stem}-buffer-assignment.txt"), *MOVED)
    return Path(f"{stem}-buffer-assignment.txt")


@pytest.mark.parametrize("path", [
    Path(f"{SPLIT_MLP}.txt"), Path(f"{SPLIT_MLP}-buffer-assignment.txt"), Path(f"{COMBINED_MLP}.txt"),
    Path(f"{SPLIT_CONTROL_FLOW}.txt"), HANDWRITTEN])
def test_a_module_checked_in_the_process_has_the_problems_of_one_checked_here(
        sessions: tuple[Session, Session], path: Path) -> None:
    there, here = sessions
    opened(there, path)
    opened(here, path)
    assert seen(there.check(str(path))) == seen(here.check(str(path)))
    assert there.is_current(there.check(str(path)), str(path))  # type: ignore[arg-type]


def test_planted_errors_come_back_from_the_process_with_their_places(
        sessions: tuple[Session, Session], planted: Path) -> None:
    there, here = sessions
    opened(there, planted)
    opened(here, planted)
    found = seen(there.check(str(planted)))
    assert [(problem[3], problem[1].start.line) for problem in found if problem[3] == "overlapping-values"] == [
        ("overlapping-values", line) for line in sorted(
            number for number, text in enumerate(planted.read_text().split("\n"))
            if "<68 add_reduce_fusion @0>" in text or MOVED[1] in text)]
    assert found == seen(here.check(str(planted)))


def test_after_edits_the_process_checks_what_the_editor_shows(sessions: tuple[Session, Session]) -> None:
    """Each edit goes to the process as it is applied here; its check after them equals a fresh check of the
    edited text (the process checks the edited module from its previous check)."""
    there, _ = sessions
    path = Path(f"{SPLIT_CONTROL_FLOW}.txt")
    opened(there, path)
    there.check(str(path))
    version = 1
    for anchor, old, new in EDITS:
        lines = there.snapshot(str(path)).text.split("\n")  # type: ignore[union-attr]
        line = next((number for number, text in enumerate(lines) if anchor in text and old in text), None)
        if line is None:
            continue
        start, version = lines[line].index(old), version + 1
        there.change(str(path), version, Range(Position(line, start), Position(line, start + len(old))), new)
        fresh = Session()
        fresh.open(str(path), there.snapshot(str(path)).text, version)  # type: ignore[union-attr]
        assert seen(there.check(str(path))) == seen(fresh.check(str(path))), (anchor, old, new)
    assert version == 5  # (after the rename of %mul.19, the two edits anchored at it find no line)


def test_a_check_is_stale_once_an_open_file_changes_or_closes_or_a_file_changes_on_disk(
        sessions: tuple[Session, Session], planted: Path) -> None:
    there, _ = sessions
    hlo = planted.with_name(planted.name.replace("-buffer-assignment", ""))
    opened(there, planted, hlo)
    checked = there.check(str(planted))
    assert checked is not None and there.is_current(checked, str(planted))
    there.change(str(hlo), 2, Range(Position(0, 0), Position(0, 0)), "")
    assert not there.is_current(checked, str(planted))
    checked = there.check(str(planted))
    there.file_changed(str(planted.with_name(planted.name.replace("-buffer-assignment", "-live-range"))))
    assert checked is not None and not there.is_current(checked, str(planted))
    checked = there.check(str(planted))
    there.close(str(hlo))
    assert checked is not None and not there.is_current(checked, str(planted))


def test_a_cancelled_check_stops_and_the_next_one_is_answered(
        sessions: tuple[Session, Session], planted: Path) -> None:
    there, here = sessions
    opened(there, planted)
    opened(here, planted)

    def unwanted(done: float) -> None:
        raise CheckCancelled

    with pytest.raises(CheckCancelled):
        there.check(str(planted), unwanted)
    shares: list[float] = []
    assert seen(there.check(str(planted), shares.append)) == seen(here.check(str(planted)))
    assert shares and all(0 <= share <= 1 for share in shares)


def test_the_process_ends_when_its_last_open_file_closes(
        sessions: tuple[Session, Session], caplog: pytest.LogCaptureFixture) -> None:
    there, _ = sessions
    hlo, ba = Path(f"{SPLIT_MLP}.txt"), Path(f"{SPLIT_MLP}-buffer-assignment.txt")
    opened(there, hlo, ba)
    there.check(str(hlo))
    [pid] = started_pids(caplog)
    there.close(str(hlo))
    assert not ended(pid, 1)  # it still holds the buffer assignment
    there.close(str(ba))
    assert ended(pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_process_runs_under_cpythons_allocator_whichever_the_servers(
        sessions: tuple[Session, Session], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONMALLOC", "malloc")  # as the server runs (hlo_lsp.launch)
    monkeypatch.setenv("MALLOC_ARENA_MAX", "1")
    there, _ = sessions
    opened(there, Path(f"{SPLIT_MLP}.txt"))
    there.check(f"{SPLIT_MLP}.txt")
    [pid] = started_pids(caplog)
    environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert b"PYTHONMALLOC=malloc" not in environment and b"MALLOC_ARENA_MAX=1" not in environment
    assert any(entry.startswith(b"PATH=") for entry in environment)


def test_a_process_that_dies_fails_its_check_and_the_next_check_starts_another(
        sessions: tuple[Session, Session], caplog: pytest.LogCaptureFixture, planted: Path) -> None:
    there, here = sessions
    opened(there, planted)
    opened(here, planted)
    there.check(str(planted))
    [pid] = started_pids(caplog)
    os.kill(pid, signal.SIGKILL)
    try:  # (a check asked before the session saw the process end fails; one asked after starts another)
        checked = there.check(str(planted))
    except CheckFailed as failed:
        assert "ended" in str(failed)
        checked = there.check(str(planted))
    assert seen(checked) == seen(here.check(str(planted)))
    assert ended(pid) and len(started_pids(caplog)) == 2


def test_a_module_smaller_than_the_threshold_is_checked_here(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    session, path = Session(check_process_from=4_000_000), Path(f"{SPLIT_MLP}.txt")
    opened(session, path)
    assert seen(session.check(str(path))) == []
    assert started_pids(caplog) == []
    session.close(str(path))


def prepared(session: Session, folder: Path) -> None:
    """`session.prepare([folder])`, once the folder's files are listed (in a thread of its own)."""
    session.prepare([str(folder)])
    for thread in threading.enumerate():
        if thread.name == "checks-ahead":
            thread.join(30)


def test_a_folder_holding_a_module_to_check_there_starts_the_process_ahead_and_again_once_it_ended(
        caplog: pytest.LogCaptureFixture) -> None:
    """Started before the first check, which it then makes; after the last file closes, a fresh one is ready; none
    once the check process is turned off."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    path = Path(f"{SPLIT_MLP}.txt")
    session = Session(check_process_from=path.stat().st_size)
    prepared(session, path.parent)
    [ahead] = started_pids(caplog)
    opened(session, path)
    assert seen(session.check(str(path))) == []
    assert started_pids(caplog) == [ahead]  # the check was made there
    session.close(str(path))
    assert ended(ahead)
    [_, fresh] = started_pids(caplog)
    session.check_process_from = None
    assert ended(fresh)


def test_a_folder_of_smaller_modules_starts_no_process_ahead(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    path = Path(f"{SPLIT_MLP}.txt")
    prepared(Session(check_process_from=path.stat().st_size + 1), path.parent)
    prepared(Session(), path.parent)  # (no check process at all)
    assert started_pids(caplog) == []


def hover_spots(path: Path) -> list[Position]:
    """A cursor on names all over the file (120 of them at most)."""
    spots = [Position(number, match.start(1)) for number, text in enumerate(path.read_text().split("\n"))
             for match in re.finditer(r"(?<![\w.%\-])%?([A-Za-z_][\w.\-]*)", text)]
    return spots[:: max(1, len(spots) // 120)]


def hovers(session: Session, path: Path) -> list[object]:
    """The hover and the definitions at each of `hover_spots`, as values (the documents they refer to aside)."""
    found = []
    for spot in hover_spots(path):
        for ask in (session.hover, session.definition):
            answer = ask(str(path), session.snapshot(str(path)), Cursor.at(spot))  # type: ignore[operator]
            found.append(answer.value if answer is not None else None)
    return found


@pytest.mark.parametrize("path", [
    Path(f"{SPLIT_MLP}.txt"), Path(f"{SPLIT_CONTROL_FLOW}.txt"), Path(f"{COMBINED_MLP}.txt"),
    Path(f"{SPLIT_MLP}-buffer-assignment.txt"), HANDWRITTEN])
def test_hovers_and_definitions_of_a_module_checked_in_the_process_come_from_it_and_equal_those_made_here(
        sessions: tuple[Session, Session], path: Path) -> None:
    """Once the process has checked a module it answers its hovers and definitions from the module it built: this
    session builds none (its text stays unscanned) and answers what a session that built the module answers, after
    an edit too."""
    there, here = sessions
    opened(there, path)
    opened(here, path)
    there.check(str(path))
    assert there.snapshot(str(path)).unscanned_text() is not None  # type: ignore[union-attr]
    assert hovers(there, path) == hovers(here, path) != [None] * 2 * len(hover_spots(path))
    lines = path.read_text().split("\n")
    edited = next((number for number, text in enumerate(lines) if 'op_name="' in text), 0)
    column = lines[edited].index('op_name="') + len('op_name="') if 'op_name="' in lines[edited] else len(lines[0])
    for session in (there, here):
        session.change(str(path), 2, Range(Position(edited, column), Position(edited, column)), "x")
    assert hovers(there, path) == hovers(here, path)
    assert there.snapshot(str(path)).unscanned_text() == here.snapshot(str(path)).text  # type: ignore[union-attr]


def test_where_no_process_can_start_modules_are_checked_here(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A check process that cannot start (no interpreter to run, say) leaves the checks to the session itself."""
    caplog.set_level(logging.INFO, logger="hlo_lsp.session.checks")
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    session, path = Session(check_process_from=0), Path(f"{SPLIT_MLP}.txt")
    opened(session, path)
    assert seen(session.check(str(path))) == []
    assert session.check_process_from is None
    assert any("no check process" in record.getMessage() for record in caplog.records)
    session.close(str(path))


@pytest.fixture
def two_faults(planted: Path) -> Path:
    """The planted module, with an undefined stack frame in its HLO file too; its HLO file."""
    hlo = planted.with_name(planted.name.replace("-buffer-assignment", ""))
    lines = hlo.read_text().split("\n")
    lines[50] = lines[50].replace("stack_frame_id=4", "stack_frame_id=99")  # (the `%add.0 = ...` line)
    hlo.write_text("\n".join(lines))
    return hlo


@pytest.mark.parametrize("where", ["here", "in the process"])
def test_the_hlo_file_s_problems_are_told_first_and_are_those_of_the_whole_check(
        sessions: tuple[Session, Session], two_faults: Path, where: str) -> None:
    session = sessions[0] if where == "in the process" else sessions[1]
    values = Path(f"{two_faults.with_suffix('')}-buffer-assignment-values.txt")
    opened(session, two_faults)
    told: list[tuple[Checked, bool]] = []

    def first(part: Checked) -> None:  # (and whether the values file was read by then, in this process)
        document = session.store.document(str(values))
        told.append((part, document is not None and document.unscanned_text() is None))

    checked = session.check(str(two_faults), first=first)
    assert checked is not None and len(told) == 1
    part, values_read = told[0]
    assert part.sources == {str(two_faults)} and not values_read
    assert seen(part) == [problem for problem in seen(checked) if problem[0] == str(two_faults)]
    assert [(problem[3], problem[1].start.line) for problem in seen(part)] == [("undefined-stack-frame", 50)]
    assert {problem[3] for problem in seen(checked)} == {"undefined-stack-frame", "overlapping-values"}


@pytest.mark.parametrize("where", ["here", "in the process"])
def test_the_hlo_file_s_problems_are_not_told_once_it_changed(
        sessions: tuple[Session, Session], two_faults: Path, where: str) -> None:
    session = sessions[0] if where == "in the process" else sessions[1]
    opened(session, two_faults)
    told: list[Checked] = []

    def edit_at_once(done: float) -> None:  # the editor changes the file while it is checked
        if session.version_of(str(two_faults)) == 1:
            session.change(str(two_faults), 2, Range(Position(0, 0), Position(0, 0)), "")

    checked = session.check(str(two_faults), edit_at_once, told.append)
    assert told == []  # (here, the rest of the check reads the new version; the process's check is stale)
    assert checked is not None and session.is_current(checked, str(two_faults)) == (where == "here")
    assert {problem[3] for problem in seen(checked)} == {"undefined-stack-frame", "overlapping-values"}


@pytest.mark.parametrize("edited", [False, True])
def test_a_check_stopped_while_it_reads_the_buffer_assignment_stops_there_and_keeps_what_it_read(
        two_faults: Path, edited: bool) -> None:
    """Once the HLO file's problems are told, the check reads the buffer assignment: asked to stop then (the HLO file
    was edited, say), it stops inside that reading (not after it, at its next report), and the next check starts
    from what it read: the HLO file's structure is not read again."""
    session = Session()
    opened(session, two_faults)
    told: list[Checked] = []

    def stop_once_told(done: float) -> None:
        if told and len(told) == 1:
            told.append(told[0])  # (stop once)
            if edited:  # an op_name: the structure stays
                line = session.snapshot(str(two_faults)).line(50)  # type: ignore[union-attr]
                at = line.index("jit(mlp)/add")
                session.change(str(two_faults), 2, Range(Position(50, at), Position(50, at + 3)), "JIT")
            raise CheckCancelled

    with pytest.raises(CheckCancelled):
        session.check(str(two_faults), stop_once_told, told.append)
    stem = str(two_faults.with_suffix(""))
    assert len(told) == 2 and not session.store.has_module(stem)  # stopped before the module was built
    hlo = told[0].modules[0].__dict__["hlo"]  # the HLO file's structure, read for its problems
    checked = session.check(str(two_faults))
    assert checked is not None and checked.modules[0].hlo.structure_id is hlo.structure_id
    fresh = Session()
    fresh.open(str(two_faults), session.snapshot(str(two_faults)).text, 1)  # type: ignore[union-attr]
    assert seen(checked) == seen(fresh.check(str(two_faults)))

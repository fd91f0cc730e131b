"""A file read ahead in the check process: the open from disk takes the very document read and scanned, when the
digest it is given is that of the bytes read; otherwise the file is read as it is given, and nothing is kept."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from helpers import SPLIT_MLP, copy_module, seen
from hlo_lsp.session import Session
from hlo_lsp.session.check_worker import _Inbox, _Outbox
from hlo_lsp.session.read_ahead import ReadAhead
from hlo_lsp.session.same_text import digest_of


@pytest.fixture
def hlo(tmp_path: Path) -> Path:
    return Path(f"{copy_module(SPLIT_MLP, tmp_path)}.txt")


@pytest.fixture
def inbox() -> Iterator[tuple[Connection, _Inbox, Session]]:
    """The check process's reader of messages, over a pipe of this process: (the server's end, the inbox, its
    session)."""
    server_end, process_end = Pipe()
    answers, _ = Pipe()
    session = Session()
    yield server_end, _Inbox(process_end, session, _Outbox(answers), threading.Lock()), session
    server_end.close()


def opened(session: Session, source: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not session.is_open(source):
        assert time.monotonic() < deadline, f"{source} was never opened"
        time.sleep(0.01)


def test_a_file_read_ahead_is_the_document_its_open_from_disk_takes_scanned(
        inbox: tuple[Connection, _Inbox, Session], hlo: Path) -> None:
    server, reader, session = inbox
    hlo.write_text(hlo.read_text().replace("stack_frame_id=4}", "stack_frame_id=99}", 1))
    server.send(("read ahead", str(hlo)))
    assert reader.checks.get(timeout=10) == ("read ahead", str(hlo))  # (for the main thread)
    document = reader.read_ahead.read(str(hlo))
    assert document is not None and document.unscanned_text() is None  # scanned
    server.send(("open from disk", str(hlo), 1, digest_of(hlo.read_bytes())))
    opened(session, str(hlo))
    assert session.snapshot(str(hlo)) is document
    here = Session()
    here.open(str(hlo), hlo.read_text(), 1)
    problems = seen(session.check(str(hlo)))
    assert problems == seen(here.check(str(hlo))) and [problem[3] for problem in problems] == ["undefined-stack-frame"]


def test_a_file_changed_on_disk_since_it_was_read_ahead_is_read_again(
        inbox: tuple[Connection, _Inbox, Session], hlo: Path) -> None:
    server, reader, session = inbox
    document = reader.read_ahead.read(str(hlo))
    hlo.write_text(hlo.read_text().replace("stack_frame_id=4}", "stack_frame_id=99}", 1))
    server.send(("open from disk", str(hlo), 1, digest_of(hlo.read_bytes())))
    opened(session, str(hlo))
    taken = session.snapshot(str(hlo))
    assert taken is not document and taken is not None and "stack_frame_id=99}" in taken.text
    assert [problem[3] for problem in seen(session.check(str(hlo)))] == ["undefined-stack-frame"]


def test_an_editor_s_text_other_than_the_file_s_lets_the_document_read_ahead_go(
        inbox: tuple[Connection, _Inbox, Session], hlo: Path) -> None:
    server, reader, session = inbox
    assert reader.read_ahead.read(str(hlo)) is not None
    server.send(("open", str(hlo), hlo.read_text() + "\n", 1))
    opened(session, str(hlo))
    assert session.snapshot(str(hlo)).text == hlo.read_text() + "\n"  # type: ignore[union-attr]
    assert reader.read_ahead.take(str(hlo), digest_of(hlo.read_bytes())) is None  # (not kept)


def test_a_file_opened_before_it_is_read_ahead_is_not_read_nor_scanned(hlo: Path) -> None:
    ahead = ReadAhead()
    ahead.asked(str(hlo))
    assert ahead.take(str(hlo), digest_of(hlo.read_bytes())) is None  # the open came first
    assert ahead.read(str(hlo)) is None
    ahead.asked(str(hlo))  # opened again later, and read ahead then
    assert ahead.read(str(hlo)) is not None


def test_what_no_open_took_is_let_go_when_a_check_starts(hlo: Path) -> None:
    ahead = ReadAhead()
    ahead.read(str(hlo))
    ahead.let_go()
    assert ahead.take(str(hlo), digest_of(hlo.read_bytes())) is None


@pytest.mark.parametrize("content", [b"\xff\xfe not a text", None])
def test_a_file_not_ascii_or_not_there_is_not_read_ahead(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "module_0001.jit_f.cpu_after_optimizations.txt"
    if content is not None:
        path.write_bytes(content)
    assert ReadAhead().read(str(path)) is None

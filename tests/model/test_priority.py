"""Indexing loops step aside while another thread answers a question."""

from __future__ import annotations

import threading
import time

import pytest

from hlo_lsp.model.document import Document
from hlo_lsp.model.priority import answering, let_questions_first, stepping
from hlo_lsp.parsing.file_kinds import FileKind


def test_indexing_waits_while_another_thread_answers() -> None:
    order: list[str] = []
    started = threading.Event()

    def answer() -> None:
        with answering():
            started.set()
            time.sleep(0.3)
            order.append("answered")

    thread = threading.Thread(target=answer)
    thread.start()
    started.wait()
    let_questions_first()
    order.append("indexed")
    thread.join()
    assert order == ["answered", "indexed"]


def test_the_answering_thread_itself_never_waits() -> None:
    with answering():
        started = time.perf_counter()
        let_questions_first()
        assert time.perf_counter() - started < 0.1


def test_without_a_question_nothing_waits() -> None:
    started = time.perf_counter()
    let_questions_first()
    assert time.perf_counter() - started < 0.1


def test_a_question_waiting_for_a_scan_another_thread_runs_does_not_make_that_scan_wait() -> None:
    """The scan steps aside for questions; a question that waits for that very scan must not hold it up (each
    of its steps would wait for the question, up to two seconds, and the question for the scan)."""
    lines = [f"  %v{number} = f32[] constant({number})" for number in range(20 * 4096)]  # twenty scan steps
    document = Document("HloModule m\nENTRY e {\n" + "\n".join(lines) + "\n}\n", FileKind.HLO_MODULE)
    scanning = threading.Thread(target=lambda: document.chunks)
    scanning.start()
    while not document._scan_lock.locked():  # the scan has begun
        time.sleep(0.001)
    started = time.perf_counter()
    with answering():
        assert document.line_count == len(lines) + 4 and document.chunks  # waits for the scan
    scanning.join()
    assert time.perf_counter() - started < 10  # (twenty steps of two seconds each without it)


class Stop(Exception):
    pass


def test_a_thread_stepping_is_asked_at_each_step_and_stops_inside_a_scan() -> None:
    asked: list[str] = []
    with stepping(lambda: asked.append("outer")):
        with stepping(lambda: asked.append("inner")):
            let_questions_first()
        let_questions_first()
        other = threading.Thread(target=let_questions_first)  # another thread is not asked
        other.start()
        other.join()
    let_questions_first()
    assert asked == ["inner", "outer"]

    def stop() -> None:
        raise Stop

    document = Document("HloModule m\n" + "  %p = f32[] parameter(0)\n" * 3000, FileKind.HLO_MODULE)
    with stepping(stop), pytest.raises(Stop):
        document.chunks  # noqa: B018 - the scan steps aside every 512 lines: it stops at the first
    assert document.unscanned_text() is not None and len(document.chunks) == 6  # read again whole, later

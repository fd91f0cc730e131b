"""Indexing loops step aside while another thread answers a question."""

from __future__ import annotations

import threading
import time

from hlo_lsp.model.priority import answering, let_questions_first


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

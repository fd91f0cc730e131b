"""Questions first: indexing steps aside while a question is answered from a glance.

Python runs one thread at a time. A glance answers a hover in a few hundred milliseconds
of interpreter time; sharing it with a thread indexing a 40 MB module doubles that. The
loops that index call `let_questions_first()` between chunks of lines: while another
thread is answering a question (`answering()`), they wait. A thread may also have them ask
whether its work is still wanted (`stepping()`): a check stops there once it is not.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator

_WAIT_AT_MOST_SECONDS = 2.0  # a question that takes longer does not stall indexing for good
_condition = threading.Condition()
_answering: dict[int, int] = {}  # thread -> how many answers it is inside
_steps = threading.local()  # .step: what this thread's let_questions_first() calls first, if anything


def _forget_questions() -> None:
    """In a forked copy of the process, whose one thread is the one that forked: no question is answered there."""
    global _condition
    _condition = threading.Condition()
    _answering.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_questions)


@contextlib.contextmanager
def answering() -> Iterator[None]:
    thread = threading.get_ident()
    with _condition:
        _answering[thread] = _answering.get(thread, 0) + 1
    try:
        yield
    finally:
        with _condition:
            _answering[thread] -= 1
            if not _answering[thread]:
                del _answering[thread]
            _condition.notify_all()


@contextlib.contextmanager
def waiting() -> Iterator[None]:
    """While a question waits for another thread (for a lock it holds: the scan of a file both need), indexing
    does not step aside for it: that thread would wait for the question, and the question for it."""
    thread = threading.get_ident()
    with _condition:
        inside = _answering.pop(thread, 0)
        _condition.notify_all()
    try:
        yield
    finally:
        if inside:
            with _condition:
                _answering[thread] = _answering.get(thread, 0) + inside


@contextlib.contextmanager
def holding(lock: threading.Lock) -> Iterator[None]:
    """`with lock`, where a question may be the one asking: when another thread holds the lock (it scans
    a file, or builds a module, that the question needs), the question waits for it, `waiting()`."""
    if not lock.acquire(blocking=False):
        with waiting():
            lock.acquire()
    try:
        yield
    finally:
        lock.release()


@contextlib.contextmanager
def stepping(step: Callable[[], None]) -> Iterator[None]:
    """While inside, this thread's `let_questions_first()` calls `step` first, which may raise: a check passes one
    that raises once the check is no longer wanted, so that it stops within a chunk of lines, in whatever it reads
    (a file's scan, a buffer assignment's records), not at its next progress report, seconds later at 40 MB."""
    outer = getattr(_steps, "step", None)
    _steps.step = step
    try:
        yield
    finally:
        _steps.step = outer


def let_questions_first() -> None:
    step = getattr(_steps, "step", None)
    if step is not None:
        step()
    # read without the lock first: a stale value costs one chunk's delay at most
    if _answering and threading.get_ident() not in _answering:
        with _condition:
            _condition.wait_for(lambda: not _answering, timeout=_WAIT_AT_MOST_SECONDS)

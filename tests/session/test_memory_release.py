"""Closing a module frees it by reference counting alone: what the answers and checks derived from it holds
no cycle back to it. The server freezes what it builds out of the cyclic collector's reach (gc.freeze), so a
cycle among a closed module's objects would never be freed. They are freed in a thread of their own (a 40 MB
module's take a second), not in the one that closed the module."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import SPLIT_MLP, copy_module, line_with
from hlo_lsp.parsing.digit_templates import templates_kept
from hlo_lsp.parsing.hlo_syntax import parse_shape
from hlo_lsp.session import Cursor, Session, Span
from hlo_lsp.text import Position, Range


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_a_closed_module_goes_with_all_that_was_asked_of_it(tmp_path: Path, collector_off: None) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo, live = Path(f"{stem}.txt"), Path(f"{stem}-live-range.txt")
    session = Session()
    for path in (hlo, live):
        session.open(str(path), path.read_text(), 1)
    session.change(str(hlo), 2, Range(Position(0, 0), Position(0, 0)), "// edited\n")
    checked = session.check(str(hlo))
    assert checked is not None and checked.problems == []
    first_of_entry = line_with(hlo, "ENTRY") + 2  # below the line the edit added
    hovered = session.hover(str(hlo), None, Cursor.at(Position(first_of_entry, 4)))
    assert hovered is not None and "bytes" in hovered.value.markdown
    screen = Span.of(Range(Position(0, 0), Position(200, 0)))
    assert session.inlay_hints(str(hlo), None, screen) is not None
    assert session.code_lenses(str(hlo), None, with_places=True) is not None
    tokens = session.tokens(str(hlo), None, None)
    assert tokens is not None and list(tokens.value)
    module = checked.modules[0]
    kept = [weakref.ref(document) for document in module.all_documents()]
    kept += [weakref.ref(module.buffer_assignment), weakref.ref(module.hlo)]
    del checked, module, hovered, tokens
    for path in (hlo, live):
        session.close(str(path))
    assert session.store.wait_released(60)
    assert [ref() for ref in kept] == [None] * len(kept)


def test_a_closed_module_is_freed_by_another_thread_than_the_one_that_closed_it(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo = Path(f"{stem}.txt")
    session = Session()
    session.open(str(hlo), hlo.read_text(), 1)
    checked = session.check(str(hlo))
    assert checked is not None
    freed_by: dict[str, int] = {}  # the thread each was freed by

    def watched(name: str, view: object) -> weakref.ref[object]:
        return weakref.ref(view, lambda _: freed_by.setdefault(name, threading.get_ident()))

    module = checked.modules[0]
    kept = [watched("hlo", module.hlo), watched("buffer_assignment", module.buffer_assignment)]
    del checked, module
    session.close(str(hlo))
    assert session.store.wait_released(60)
    assert [ref() for ref in kept] == [None, None]
    assert set(freed_by) == {"hlo", "buffer_assignment"}
    assert threading.get_ident() not in freed_by.values()


def test_closing_the_last_open_file_forgets_the_memos_and_closing_another_keeps_them(tmp_path: Path) -> None:
    """What a memo keeps was made among a module's objects: kept, it would keep their memory from the system."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo, live = Path(f"{stem}.txt"), Path(f"{stem}-live-range.txt")
    session = Session()
    for path in (hlo, live):
        session.open(str(path), path.read_text(), 1)
    assert session.check(str(hlo)) is not None
    hovered = session.hover(str(hlo), None, Cursor.at(Position(line_with(hlo, "ENTRY") + 1, 4)))
    assert hovered is not None
    assert parse_shape.cache_info().currsize > 0
    assert templates_kept() > 0  # what was read of lines by their templates (digit_templates.py): memos too
    session.close(str(live))  # its module stays open: the memos stay
    assert session.store.wait_released(60)
    assert parse_shape.cache_info().currsize > 0
    assert templates_kept() > 0
    session.close(str(hlo))
    assert session.store.wait_released(60)
    assert parse_shape.cache_info().currsize == 0
    assert templates_kept() == 0

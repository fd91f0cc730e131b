"""Memos of pure functions of a short text (a shape, an instruction's text, an index): kept across modules
while the session holds any, forgotten when it holds none. What a memo keeps was made while a module was
read, among that module's objects: kept, each would keep a megabyte of the allocator's memory with it, so
closing the last module would not give its memory back."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
_MEMOS: list[functools._lru_cache_wrapper[object]] = []


def memo(maxsize: int | None) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """`functools.lru_cache(maxsize)`, forgotten with the others by `forget`."""
    def remembered(function: Callable[..., T]) -> functools._lru_cache_wrapper[T]:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _MEMOS.append(cached)
        return cached

    return remembered


_TABLES: list[Callable[[], None]] = []


def forgotten_with_memos(clear: Callable[[], None]) -> None:
    """Has `forget` call `clear` too: that of a table kept as a memo is (what was read of a line's template)."""
    _TABLES.append(clear)


def forget() -> None:
    """Clears every memo, and the patterns `re` compiled and keeps (one for each name or time a glance
    searched a text for)."""
    for cached in _MEMOS:
        cached.cache_clear()
    for clear in _TABLES:
        clear()
    re.purge()

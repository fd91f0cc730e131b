"""Memos are functools' lru caches that `forget` clears, all at once, with the patterns `re` keeps."""

from __future__ import annotations

import re

from hlo_lsp import memos


def test_a_memo_remembers_until_forgotten() -> None:
    calls: list[str] = []

    @memos.memo(maxsize=8)
    def upper(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert upper("a") == upper("a") == "A" and calls == ["a"]
    pattern = re.compile(r"memo-[0-9]+")
    assert re.compile(r"memo-[0-9]+") is pattern  # (re's own cache)
    memos.forget()
    assert upper("a") == "A" and calls == ["a", "a"]
    assert re.compile(r"memo-[0-9]+") is not pattern

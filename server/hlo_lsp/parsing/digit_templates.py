"""Lines that differ only in their digits read alike.

`%fusion.95 = f32[8]{0} fusion(%p.3), calls=%fused.95` and `%fusion.96 = f32[8]{0} fusion(%p.4), ...` are
the same item with its names in the same places. XLA's lexer, and every form the scanners read, takes any
digit where it takes one, so a line's template (its digits mapped to 0, one for one: the places stay)
stands for how the line reads. A large module's lines are a few thousand templates (a model's layers
repeat): what was read of a template is kept, and a line of a known template is not read again.
"""

from __future__ import annotations

from typing import Any, TypeVar

from hlo_lsp.memos import forgotten_with_memos

_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")

# A text of few repeats costs a key per line, never memory: a cache that fills up starts again.
TEMPLATES_KEPT = 8192

Value = TypeVar("Value")


def digits_as_zero(text: str) -> bytes:
    """`text` with every digit replaced by 0, one for one. Done on its UTF-8 bytes because a byte
    table translates in C: a regex substitution over a 40 MB module's lines takes eight times as
    long. (UTF-8 is one-to-one and never puts an ASCII digit inside a multi-byte character.)"""
    return text.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZERO)


_CACHES: list[dict[Any, Any]] = []


def template_cache() -> dict[Any, Any]:
    """A new cache of what was read of lines, by template: emptied by `forget_templates`, and with the memos
    when the session holds no module (hlo_lsp.memos: entries made among a module's objects would keep a
    megabyte of the allocator's memory each)."""
    cache: dict[Any, Any] = {}
    _CACHES.append(cache)
    forgotten_with_memos(cache.clear)
    return cache


def forget_templates() -> None:
    """Empties every template cache: the next line of each template is read itself."""
    for cache in _CACHES:
        cache.clear()


def templates_kept() -> int:
    """How many templates the caches hold, all together."""
    return sum(len(cache) for cache in _CACHES)


def remember(known: dict[bytes, Value], template: bytes, value: Value) -> None:
    """Keeps what was read of a template, at most TEMPLATES_KEPT of them."""
    if len(known) >= TEMPLATES_KEPT:
        known.clear()
    known[template] = value

"""What the layers above derive from an engine object, kept on the object itself.

The one caching rule of the engine: data derived from a `Document`, a `Chunk`, an `HloModule`'s
structure or a `BufferAssignment` is kept in that object's `derived`, under a key the deriving module
owns. It lives and dies with the object (a closed module takes everything derived from it along), and an
edit that shares an object (a chunk, a structure) shares what was derived from it, and a check that
starts from the previous version's result finds it on `document.edited_from.previous`. Nothing else
keeps state between calls, except memos of pure functions of a short text (`hlo_lsp.memos.memo`, or a
dict keyed by the text where the function is on a hot path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class DerivedKey(Generic[T]):
    """The key of one kind of derived data, typed with what it holds."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"DerivedKey({self.name!r})"


class Derived:
    """Derived data by key. Threads may derive the same data at once: the last one stored wins, and both
    are equal, so no lock is needed."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[object, object] = {}

    def get(self, key: DerivedKey[T]) -> T | None:
        return cast("T | None", self._values.get(key))

    def put(self, key: DerivedKey[T], value: T) -> T:
        self._values[key] = value
        return value

    def memo(self, key: DerivedKey[T], derive: Callable[[], T]) -> T:
        """The data under `key`, derived on first use."""
        found = self.get(key)
        return found if found is not None else self.put(key, derive())

    def clear(self) -> None:
        self._values.clear()

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
from typing import Any, ClassVar, Generic, TypeVar, cast

T = TypeVar("T")


class DerivedKey(Generic[T]):
    """The key of one kind of derived data, typed with what it holds. Keys are numbered as they are made (at
    import): a forked copy of the process has the same keys under the same numbers, so what it derives can be
    carried back (`numbered`)."""

    __slots__ = ("name", "number")
    _made: ClassVar[list[DerivedKey[Any]]] = []

    def __init__(self, name: str) -> None:
        self.name = name
        self.number = len(DerivedKey._made)
        DerivedKey._made.append(self)

    @staticmethod
    def numbered(number: int, name: str) -> DerivedKey[Any] | None:
        """The key made `number`th, if it has `name` (else one made since in one process only)."""
        made = DerivedKey._made
        key = made[number] if 0 <= number < len(made) else None
        return key if key is not None and key.name == name else None

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

    def keys(self) -> frozenset[object]:
        return frozenset(self._values)

    def added_since(self, keys: frozenset[object]) -> dict[object, object]:
        """What was derived under keys not among `keys` (those this held before)."""
        return {key: value for key, value in self._values.items() if key not in keys}

    def put_missing(self, values: dict[object, object]) -> None:
        """`values`, under the keys that hold nothing yet (what this process derived meanwhile is as good)."""
        for key, value in values.items():
            self._values.setdefault(key, value)

"""`lazy`: an attribute computed on first access and kept on the instance.

Like `functools.cached_property`, without its lock: before Python 3.12 that lock is one per
attribute for every instance of the class, so a thread reading a 40 MB module's `hlo` made
every other thread wait for any module's `hlo`, even a glance's of a few lines. Two threads
that ask one instance at once may both compute it; the values are equal and one is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class lazy(Generic[T]):  # noqa: N801 - used like the decorator it replaces
    def __init__(self, compute: Callable[[Any], T]) -> None:
        self._compute = compute
        self._name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> lazy[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | lazy[T]:
        if instance is None:
            return self
        value = self._compute(instance)
        instance.__dict__[self._name] = value
        return value

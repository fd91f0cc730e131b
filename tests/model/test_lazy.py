"""`lazy` keeps a computed attribute per instance, and one instance's computation holds up no other."""

from __future__ import annotations

import threading

from hlo_lsp.model.lazy import lazy


class Slow:
    def __init__(self, release: threading.Event | None = None) -> None:
        self.release = release
        self.computed = 0

    @lazy
    def value(self) -> int:
        self.computed += 1
        if self.release is not None:
            assert self.release.wait(10)
        return 42


def test_the_value_is_computed_once_and_kept() -> None:
    slow = Slow()
    assert (slow.value, slow.value, slow.computed) == (42, 42, 1)


def test_another_instance_is_not_held_up_by_one_being_computed() -> None:
    release = threading.Event()
    blocked = Slow(release)
    thread = threading.Thread(target=lambda: blocked.value)
    thread.start()
    try:
        assert Slow().value == 42  # functools.cached_property (Python 3.11) would wait for `blocked`
    finally:
        release.set()
        thread.join()
    assert blocked.value == 42

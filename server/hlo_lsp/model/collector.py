"""Building an index without Python's cyclic garbage collector walking it."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_collector() -> Iterator[None]:
    """Pauses the cyclic garbage collector while an index or model is built.

    Indexing creates millions of small acyclic objects (freed by reference
    counting alone, frozen or not); each burst of allocations would otherwise
    trigger full collections that walk every object already built, which more
    than doubles the time to index a large file.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            # What was built lives as long as its document: moved out of the collector's
            # generations, later collections do not walk it again (each full walk of a
            # 40 MB module's objects paused every request for half a second).
            gc.freeze()
            gc.enable()

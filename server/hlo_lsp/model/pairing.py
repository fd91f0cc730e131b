"""Whether an HLO module and a buffer assignment come from the same compilation.

XLA numbers modules per process, so a folder can hold files of two compilations under
one name. The buffer assignment's schedule names the module's instructions: when most
of a sample of them are instructions of the HLO module, the two belong together.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from hlo_lsp.model.buffer_assignment import BufferAssignment
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.hlo_module import HloModule

PAIRING_SAMPLE = 512
T = TypeVar("T")


def pairing_sample(schedule: Sequence[T]) -> Sequence[T]:
    """The entries of the schedule that vote (a majority vote needs no full count)."""
    return schedule[:: max(1, len(schedule) // PAIRING_SAMPLE)]


def is_majority(known: int, sample_size: int) -> bool:
    return known * 2 >= sample_size


def paired_module(hlo: HloModule | None, buffers: BufferAssignment | None) -> HloModule | None:
    """`hlo` when it is the module the buffer assignment was made for, else None."""
    if hlo is None or buffers is None or buffers.live_range is None or not buffers.live_range.schedule:
        return hlo
    voted = buffers.derived.get(_VOTE)
    if voted is None or voted[0] is not hlo.structure_id:
        sample = pairing_sample(buffers.live_range.schedule)
        known = sum(1 for entry in sample if hlo.line_of(entry.name) is not None)
        voted = buffers.derived.put(_VOTE, (hlo.structure_id, is_majority(known, len(sample))))
    return hlo if voted[1] else None


# Every hover asks: the vote is kept with the buffer assignment, for the structure of the module it counted the names
# of (shared by the versions of an edited module whose names are the same).
_VOTE: DerivedKey[tuple[object, bool]] = DerivedKey("pairing vote")

"""Whether an HLO module and a buffer assignment come from the same compilation.

XLA numbers modules per process, so a folder can hold files of two compilations under
one name. The buffer assignment's schedule names the module's instructions: when most
of a sample of them are instructions of the HLO module, the two belong together.
"""

from __future__ import annotations

from collections.abc import Sequence

from hlo_lsp.model.buffer_assignment import BufferAssignment
from hlo_lsp.model.hlo_module import HloModule

PAIRING_SAMPLE = 512


def pairing_sample(scheduled: Sequence[str]) -> Sequence[str]:
    """The names of the schedule that vote (a majority vote needs no full count)."""
    return scheduled[:: max(1, len(scheduled) // PAIRING_SAMPLE)]


def is_majority(known: int, sample_size: int) -> bool:
    return known * 2 >= sample_size


def paired_module(hlo: HloModule | None, buffers: BufferAssignment | None) -> HloModule | None:
    """`hlo` when it is the module the buffer assignment was made for, else None."""
    if hlo is None or buffers is None or buffers.live_range is None or not buffers.live_range.schedule:
        return hlo
    sample = pairing_sample([entry.name for entry in buffers.live_range.schedule])
    known = sum(1 for name in sample if hlo.line_of(name) is not None)
    return hlo if is_majority(known, len(sample)) else None

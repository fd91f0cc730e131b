"""Total bytes used (dump-format.md §3.2: T1, T2)."""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.analysis.context import CheckContext, problem
from hlo_lsp.model.sizes import human_bytes
from hlo_lsp.problems import Problem, Severity


def check(context: CheckContext) -> Iterator[Problem]:
    buffers = context.buffers
    if buffers is None or buffers.totals is None:
        return
    totals = buffers.totals
    if buffers.has_allocations_section:
        allocated = sum(allocation.size for allocation in buffers.allocations)
        if allocated != totals.size:
            yield problem(totals.place, Severity.ERROR, "total-bytes",
                          f"Total bytes used is {totals.size} but the {len(buffers.allocations)} allocations "
                          f"add up to {allocated} ({human_bytes(allocated)})")
    if human_bytes(totals.size) != totals.human:
        yield problem(totals.place, Severity.WARNING, "total-bytes-human",
                      f"{totals.size} bytes print as {human_bytes(totals.size)}, not {totals.human}")

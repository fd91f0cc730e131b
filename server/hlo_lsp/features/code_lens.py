"""Code lenses (textDocument/codeLens): the module's peak memory, where the source shows it.

- On the ENTRY computation of the HLO module: `peak 476.0 KiB at time 9 (ynn_fusion.1)`
  and `9 buffers live at peak`, which lists the instructions of those buffers.
- On the instruction scheduled at the peak (and its `InstructionSequence` entry):
  `peak here: 476.0 KiB, 9 buffers live`, which lists them too.
- On each allocation header of a buffer-assignment file: what the allocation holds at the
  peak, `32.0 KiB at peak (time 9)` and `1 buffer live at peak` (listing its value lines),
  or `no buffer live at peak (time 9)`.

The peak is the one XLA printed (`Live ranges at T (peak)`), or XLA's algorithm run
over the live ranges when no peak list was printed; the bytes are XLA's accounting.
A lens that lists places carries them (`with_places`) or says that it would; the server turns
it into a command when the editor resolves it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hlo_lsp.features.memory_index import MemoryIndex, ModulePeak, module_memory, size_text
from hlo_lsp.features.types import Location
from hlo_lsp.model.buffer_assignment import LiveRange
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Range, utf16_column


@dataclass(frozen=True, slots=True)
class Lens:
    range: Range
    title: str
    locations: tuple[Location, ...] = ()  # what choosing the lens lists (when asked `with_places`)
    lists_places: bool = False


def code_lenses(module: ModuleDump, document: Document, with_places: bool = True) -> list[Lens]:
    """The document's lenses; without their places unless `with_places` (at 40 MB the peak's
    lenses list 12,000 buffers, found again for each)."""
    hlo, index = module_memory(module)
    if index is None:
        return []
    peak = index.peak(hlo)
    if peak is None:
        return []
    # a module of several memory spaces: the peak of each (the default space first), then XLA's of them all
    peaks = index.space_peaks(hlo, module.memory_spaces) if index.buffers.colors - {DEFAULT_COLOR} else []
    if document.kind is FileKind.HLO_MODULE:
        if hlo is None or hlo.document is not document:
            return []
        return _module_lenses(hlo, index, peaks or [peak], peak if peaks else None, with_places)
    if document.kind.is_buffer_assignment_family:
        return (_allocation_lenses(document, index, peaks or [peak], with_places)
                + [lens for each in peaks or [peak] for lens in _schedule_lenses(document, index, each, with_places)])
    return []


def _buffers(count: int) -> str:
    return f"{count} buffer{'' if count == 1 else 's'}"


def _moment(peak: ModulePeak) -> str:
    return f"time {peak.time}" + (f" ({peak.instruction})" if peak.instruction else "")


def _of_space(peak: ModulePeak) -> str:
    """` of vmem`, ` of the default space`: the space whose peak it is, when the module has several."""
    if peak.space is None:
        return ""
    return " of the default space" if peak.space.is_default else f" of {peak.space.name}"


def _total(peak: ModulePeak, index: MemoryIndex) -> int:
    if peak.total is not None:
        return peak.total
    return sum(peak.counted_size(live, index.value(live.name, live.index)) for live in peak.live)


# ---- the HLO module -------------------------------------------------------------------------


def _module_lenses(hlo: HloModule, index: MemoryIndex, peaks: list[ModulePeak], combined: ModulePeak | None,
                   with_places: bool) -> list[Lens]:
    """`peaks`: the module's, or each memory space's (then `combined` is the one XLA prints, of them all)."""
    lenses = []
    entry = hlo.entry
    header = _line_range(hlo.document, entry.line) if entry is not None else None
    for peak in peaks:
        if header is not None:
            lenses.append(Lens(header, f"peak{_of_space(peak)} {size_text(_total(peak, index))} at {_moment(peak)}"))
    if header is not None and combined is not None:
        lenses.append(Lens(header, f"every space counted, as XLA prints its peak: "
                                   f"{size_text(_total(combined, index))} at {_moment(combined)}"))
    if header is not None:
        places = tuple(_instruction_places(hlo, peaks[0].live)) if with_places else ()
        lenses.append(Lens(header, f"{_buffers(len(peaks[0].live))} live at peak{_of_space(peaks[0])}", places, True))
    for peak in peaks:
        line = hlo.line_of(peak.instruction) if peak.instruction else None
        if line is not None:
            places = tuple(_instruction_places(hlo, peak.live)) if with_places else ()
            lenses.append(Lens(_line_range(hlo.document, line), f"peak{_of_space(peak)} here: "
                               f"{size_text(_total(peak, index))}, {_buffers(len(peak.live))} live", places, True))
    return lenses


def _instruction_places(hlo: HloModule, live: tuple[LiveRange, ...]) -> list[Location]:
    """The defining line of each live buffer's instruction, largest first as XLA lists them."""
    places: dict[str, Location] = {}
    for entry in live:
        if entry.name in places:
            continue
        line = hlo.line_of(entry.name)
        site = hlo.site_at_line(line) if line is not None else None
        if site is not None:
            places[entry.name] = Location(hlo.document.source, site.name_range)
    return list(places.values())


# ---- buffer-assignment files ----------------------------------------------------------------


def _allocation_lenses(document: Document, index: MemoryIndex, peaks: list[ModulePeak],
                       with_places: bool) -> list[Lens]:
    """What each allocation holds at the peak (of its memory space, when the module has several)."""
    by_color = {peak.space.color: peak for peak in peaks if peak.space is not None}
    lenses = []
    for allocation in index.buffers.allocations:
        if allocation.place.source != document.source or allocation.is_thread_local:
            continue
        peak = by_color.get(allocation.color) if by_color else peaks[0]
        if peak is None:
            continue
        live_by_key = {(live.name, live.index): live for live in peak.live}
        header = _line_range(document, allocation.place.line)
        held = [(value, live_by_key[key]) for value in allocation.values
                if (key := (value.name, value.index or ())) in live_by_key]
        if not held:
            lenses.append(Lens(header, f"no buffer live at peak{_of_space(peak)} (time {peak.time})"))
            continue
        size = sum(peak.counted_size(live, value) for value, live in held)
        lenses.append(Lens(header, f"{size_text(size)} at peak{_of_space(peak)} (time {peak.time})"))
        places = tuple(Location(value.place.source, value.place.range) for value, _ in held) if with_places else ()
        lenses.append(Lens(header, f"{_buffers(len(held))} live at peak", places, True))
    return lenses


def _schedule_lenses(document: Document, index: MemoryIndex, peak: ModulePeak, with_places: bool) -> list[Lens]:
    section = index.section
    if section is None or section.place.source != document.source:
        return []
    entry = next((entry for entry in section.schedule if entry.time == peak.time), None)
    if entry is None:
        return []
    places = tuple(Location(live.place.source, live.place.range) for live in peak.live) if with_places else ()
    title = f"peak{_of_space(peak)} here: {size_text(_total(peak, index))}, {_buffers(len(peak.live))} live"
    return [Lens(_line_range(document, entry.place.line), title, places, True)]


def _line_range(document: Document, line: int) -> Range:
    """The line's text without its indentation."""
    text = document.line(line).rstrip("\r")
    start = len(text) - len(text.lstrip())
    return Range.on_line(line, utf16_column(text, start), utf16_column(text, len(text.rstrip())))

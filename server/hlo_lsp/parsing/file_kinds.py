"""Which kind of dump a file is: from XLA's file naming first, then from its first line."""

from __future__ import annotations

from enum import Enum


class FileKind(Enum):
    HLO_MODULE = "hlo-module"
    BUFFER_ASSIGNMENT = "buffer-assignment"  # combined (older XLA) or allocations only (newer)
    BUFFER_ASSIGNMENT_VALUES = "buffer-assignment-values"
    LIVE_RANGE = "live-range"
    MEMORY_USAGE_REPORT = "memory-usage-report"
    UNKNOWN = "unknown"

    @property
    def is_buffer_assignment_family(self) -> bool:
        return self in _BA_FAMILY


_BA_FAMILY = frozenset(
    (FileKind.BUFFER_ASSIGNMENT, FileKind.BUFFER_ASSIGNMENT_VALUES, FileKind.LIVE_RANGE)
)

# Longest first: "-buffer-assignment-values.txt" also ends like "-values.txt".
COMPANION_SUFFIXES: tuple[tuple[str, FileKind], ...] = (
    ("-buffer-assignment-values.txt", FileKind.BUFFER_ASSIGNMENT_VALUES),
    ("-buffer-assignment.txt", FileKind.BUFFER_ASSIGNMENT),
    ("-memory-usage-report.txt", FileKind.MEMORY_USAGE_REPORT),
    ("-live-range.txt", FileKind.LIVE_RANGE),
    # Spellings of hand-collected dumps ("name.buffer-assignment.txt").
    (".buffer-assignment.txt", FileKind.BUFFER_ASSIGNMENT),
)

_FIRST_LINE_KINDS: tuple[tuple[str, FileKind], ...] = (
    ("HloModule", FileKind.HLO_MODULE),
    ("BufferAssignment:", FileKind.BUFFER_ASSIGNMENT),
    ("Total bytes used:", FileKind.BUFFER_ASSIGNMENT_VALUES),
    ("Used values:", FileKind.BUFFER_ASSIGNMENT_VALUES),
    ("HloLiveRange", FileKind.LIVE_RANGE),
    ("Memory Space:", FileKind.MEMORY_USAGE_REPORT),
    ("memory_space_allocation_entries", FileKind.MEMORY_USAGE_REPORT),
)


def kind_from_name(file_name: str) -> FileKind:
    """The kind XLA's dump naming gives `file_name` (a base name), or UNKNOWN."""
    for suffix, kind in COMPANION_SUFFIXES:
        if file_name.endswith(suffix):
            return kind
    if file_name.endswith(".hlo") or file_name.endswith(".hlo.txt"):
        return FileKind.HLO_MODULE
    if file_name.endswith(".txt") and ("optimizations" in file_name or file_name.startswith("module_")):
        return FileKind.HLO_MODULE
    return FileKind.UNKNOWN


def kind_from_text(text: str) -> FileKind:
    """The kind the first non-blank line of `text` announces, or UNKNOWN."""
    for line in text[:4096].splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        for prefix, kind in _FIRST_LINE_KINDS:
            if stripped.startswith(prefix):
                if kind is FileKind.BUFFER_ASSIGNMENT_VALUES and "Allocations sorted" in text[:4096]:
                    return FileKind.MEMORY_USAGE_REPORT
                return kind
        return FileKind.UNKNOWN
    return FileKind.UNKNOWN


def detect_kind(file_name: str, text: str) -> FileKind:
    """Kind by name when XLA's naming tells it, else by content."""
    by_name = kind_from_name(file_name)
    return by_name if by_name is not FileKind.UNKNOWN else kind_from_text(text)

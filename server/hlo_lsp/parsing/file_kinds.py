"""Which kind of dump a file is: from XLA's file naming, else from its first lines.

XLA names every file of a compilation `[<timestamp>.]module_<NNNN>[.<name>][.cl_<N>].<stage>…`
(xla/service/dump.cc). The stage says what the file holds: an HLO module at some point of the
pipeline (`before_optimizations`, `cpu_after_optimizations`, TPU's `after_codegen`, a pass dump
`0001.pipeline.after_x.before_y`), the buffer-assignment companions of the stage it was made for
(`…-buffer-assignment.txt`, …), or a side file that is no dump at all (TPU's `tpu_comp_env` flag
lines, `hlo_module_config` and other protobuf text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class FileKind(Enum):
    HLO_MODULE = "hlo-module"
    BUFFER_ASSIGNMENT = "buffer-assignment"  # combined (older XLA) or allocations only (newer)
    BUFFER_ASSIGNMENT_VALUES = "buffer-assignment-values"
    LIVE_RANGE = "live-range"
    MEMORY_USAGE_REPORT = "memory-usage-report"
    SIDE_FILE = "side-file"  # written by XLA beside a dump, but no dump: flags, protobuf text
    UNKNOWN = "unknown"

    @property
    def is_buffer_assignment_family(self) -> bool:
        return self in _BA_FAMILY

    @property
    def is_dump(self) -> bool:
        return self not in (FileKind.SIDE_FILE, FileKind.UNKNOWN)


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

# The side files TPU compilations write beside their HLO (and the debug options of any backend).
SIDE_FILE_STAGES = frozenset((
    "tpu_comp_env", "hlo_module_config", "execution_options", "target_arguments", "transfer_stats",
    "basic_compiler_metadata", "debug_options", "compile_options", "topology", "flagfile",
))

# A stage that holds HLO text: `before_optimizations`, `[cpu_|gpu_…]after_optimizations`, the TPU
# stages around buffer assignment, `after_codegen`, and the pass dumps of --xla_dump_hlo_pass_re.
_HLO_STAGE = re.compile(
    r"(?:[a-z0-9]+_)?(?:before|after)_optimizations(?:_(?:before|after)_buffer_assignment)?"
    r"|after_codegen|\d{4}\.[^.]+\.(?:before|after)_.*"
)
# The stages whose instructions are the ones buffer assignment named (their memory is the module's).
_AFTER_BUFFER_ASSIGNMENT = re.compile(
    r"(?:[a-z0-9]+_)?after_optimizations(?:_after_buffer_assignment)?|after_codegen"
)
_MODULE_PREFIX = re.compile(r"(?:[0-9]+\.)?module_[0-9]+")
_COMPILATION_ID = re.compile(r"\.cl_[0-9]+$")  # TPU's, after the module's name


@dataclass(frozen=True, slots=True)
class DumpName:
    """A file name read by XLA's dump naming."""

    compilation: str  # `[<timestamp>.]module_NNNN[.<name>][.cl_N]`: the same for every file of one compilation
    stage: str  # what follows it, without a companion suffix or `.txt` (may be empty)

    @property
    def program_name(self) -> str:
        """The name the program gave the module (`jit_step`): the compilation's name without its
        `[<timestamp>.]module_NNNN` and TPU's `.cl_N` (empty where it has none)."""
        name = self.compilation[_MODULE_PREFIX.match(self.compilation).end() + 1 :]  # type: ignore[union-attr]
        return _COMPILATION_ID.sub("", name)

    @property
    def is_hlo_stage(self) -> bool:
        return _HLO_STAGE.fullmatch(self.stage) is not None

    @property
    def is_after_buffer_assignment(self) -> bool:
        """True for the stages whose instruction names are those the buffer assignment prints."""
        return _AFTER_BUFFER_ASSIGNMENT.fullmatch(self.stage) is not None

    @property
    def is_side_file(self) -> bool:
        return self.stage in SIDE_FILE_STAGES


def dump_name(file_name: str) -> DumpName | None:
    """`file_name` (a base name) read as XLA names dump files; None when it is not named so."""
    stem = without_suffix(file_name)
    prefix = _MODULE_PREFIX.match(stem)
    if prefix is None or (prefix.end() < len(stem) and stem[prefix.end()] != "."):
        return None
    rest = stem[prefix.end() + 1 :]
    for start in _component_starts(rest):
        if _HLO_STAGE.fullmatch(rest[start:]) or rest[start:] in SIDE_FILE_STAGES:
            return DumpName(stem[: prefix.end() + start], rest[start:])
    last = rest.rfind(".")
    return DumpName(stem[: prefix.end() + 1 + last] if last >= 0 else stem[: prefix.end()], rest[last + 1 :])


def _component_starts(rest: str) -> list[int]:
    """Where each dot-separated part of `rest` starts, the first part (the module's name) left out."""
    return [index + 1 for index, char in enumerate(rest) if char == "."]


def without_suffix(file_name: str) -> str:
    """The name (or path) without its companion suffix, `.txt` or `.hlo`: the stem its module's files share."""
    for suffix, _ in COMPANION_SUFFIXES:
        if file_name.endswith(suffix):
            return file_name[: -len(suffix)]
    for suffix in (".hlo.txt", ".txt", ".hlo"):
        if file_name.endswith(suffix):
            return file_name[: -len(suffix)]
    return file_name


_FIRST_LINE_KINDS: tuple[tuple[str, FileKind], ...] = (
    ("HloModule", FileKind.HLO_MODULE),
    ("BufferAssignment:", FileKind.BUFFER_ASSIGNMENT),
    ("Total bytes used:", FileKind.BUFFER_ASSIGNMENT_VALUES),
    ("Used values:", FileKind.BUFFER_ASSIGNMENT_VALUES),
    ("HloLiveRange", FileKind.LIVE_RANGE),
    ("Memory Space:", FileKind.MEMORY_USAGE_REPORT),
    ("memory_space_allocation_entries", FileKind.MEMORY_USAGE_REPORT),
)
# Protobuf text (`field {`, `field: value`) and flag lists (`xla_flag: value`): what side files hold.
_PROTOBUF_TEXT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*:\s*\S|\s*\{\s*$)")


def kind_from_name(file_name: str) -> FileKind:
    """The kind XLA's dump naming gives `file_name` (a base name), or UNKNOWN."""
    for suffix, kind in COMPANION_SUFFIXES:
        if file_name.endswith(suffix):
            return kind
    if file_name.endswith(".hlo") or file_name.endswith(".hlo.txt"):
        return FileKind.HLO_MODULE
    if not file_name.endswith(".txt"):
        return FileKind.UNKNOWN
    name = dump_name(file_name)
    if name is not None and name.is_side_file:
        return FileKind.SIDE_FILE
    if name is not None and name.is_hlo_stage or "optimizations" in file_name:
        return FileKind.HLO_MODULE
    return FileKind.UNKNOWN


def kind_from_text(text: str) -> FileKind:
    """The kind the first non-blank line of `text` announces: a dump's kind, SIDE_FILE for protobuf
    text or flag lines, else UNKNOWN."""
    head = text[:4096]
    for line in head.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        for prefix, kind in _FIRST_LINE_KINDS:
            if stripped.startswith(prefix):
                if kind is FileKind.BUFFER_ASSIGNMENT_VALUES and "Allocations sorted" in head:
                    return FileKind.MEMORY_USAGE_REPORT
                return kind
        return FileKind.SIDE_FILE if _PROTOBUF_TEXT.match(stripped) else FileKind.UNKNOWN
    return FileKind.UNKNOWN


def detect_kind(file_name: str, text: str) -> FileKind:
    """The kind XLA's naming gives (a companion's suffix, an HLO stage, a side file: a file being
    written, or broken at its top, keeps its kind); else the kind its first lines announce. A file
    named like a module's but holding protobuf text or flags is a side file."""
    by_name = kind_from_name(file_name)
    if by_name is not FileKind.UNKNOWN:
        return by_name
    by_text = kind_from_text(text)
    if by_text.is_dump:
        return by_text
    if by_text is FileKind.SIDE_FILE and dump_name(file_name) is not None:
        return FileKind.SIDE_FILE
    return FileKind.HLO_MODULE if file_name.startswith("module_") and not text.strip() else FileKind.UNKNOWN

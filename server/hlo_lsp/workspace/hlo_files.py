"""The HLO module files of folders (a workspace's), listed with their sizes and mtimes, and read one at a time.

A file is one by XLA's naming (`module_NNNN.<name>.<stage>.txt`, `.hlo`): buffer-assignment files and the
side files beside them are not opened, nor anything that is not a regular file (a FIFO would block the
reader). Hidden folders and those of Python environments are not walked. Read-only.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import NamedTuple

from hlo_lsp.parsing.decode import decode_dump, looks_binary
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind, kind_from_name

_SKIPPED_FOLDERS = frozenset(("node_modules", "__pycache__", "site-packages", "venv", "env"))
MAX_ENTRIES = 200_000  # folder entries one listing may look at (a workspace opened at `/` is not walked whole)


@dataclass(frozen=True, slots=True)
class HloFile:
    path: str
    size: int
    mtime_ns: int

    @property
    def stamp(self) -> tuple[int, int]:
        """What changes when the file does."""
        return self.size, self.mtime_ns


class Listing(NamedTuple):
    files: list[HloFile]  # in path order, each once
    cut: bool  # MAX_ENTRIES were looked at: more files may be there


def hlo_files(folders: list[str], max_entries: int = MAX_ENTRIES) -> Listing:
    """The HLO module files under `folders`."""
    found: dict[str, HloFile] = {}
    seen = 0
    for folder in folders:
        for directory, subfolders, names in os.walk(os.path.normpath(folder)):
            subfolders[:] = sorted(name for name in subfolders
                                   if not name.startswith(".") and name not in _SKIPPED_FOLDERS)
            seen += len(names) + len(subfolders)
            if seen > max_entries:
                return Listing(sorted(found.values(), key=lambda file: file.path), True)
            for name in names:
                if kind_from_name(name) is FileKind.HLO_MODULE:
                    path = os.path.join(directory, name)
                    listed = _regular_file(path)
                    if listed is not None:
                        found.setdefault(path, listed)
    return Listing(sorted(found.values(), key=lambda file: file.path), False)


def _regular_file(path: str) -> HloFile | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return HloFile(path, status.st_size, status.st_mtime_ns) if stat.S_ISREG(status.st_mode) else None


def read_hlo_text(path: str) -> str | None:
    """The text of an HLO module file, decoded as `loader.read_document` decodes it; None when it cannot be
    read, is binary or holds no HLO module (a side file named like one), or is no longer a regular file."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # (a FIFO put there since: no wait)
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None
            data = file.read()
    except OSError:
        return None
    if looks_binary(data):
        return None
    text, _ = decode_dump(data, path)
    return text if detect_kind(os.path.basename(path), text) is FileKind.HLO_MODULE else None

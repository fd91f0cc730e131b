"""The symbols of the HLO module files of the workspace folders, for workspace/symbol over modules no one opened.

Indexed lazily: the first question that names the folders starts a daemon thread that lists their HLO module
files and indexes them one at a time, smallest first (`SymbolIndex`: a module's names in one string and its
places in arrays; the file's text is let go of once indexed). It steps aside for questions between files and
between blocks of a file's lines (`let_questions_first`). A file's index is kept while the file keeps its size
and mtime, and forgotten when the client says it changed (`file_changed`: the next pass reads it again).

Memory is bounded: the indexes together hold at most `budget` bytes (256 MB by default: about 32 bytes a
symbol, 45 where names have capitals; a 40 MB module's 365,000 symbols take 12 MB, so some 800 MB of dumps
as XLA writes them fit). The files beyond it, the largest ones, are left out, said in one log line per pass.
A text not laid out as XLA prints it is scanned line by line as an open file is, which costs a module's
memory meanwhile: above `SCANNED_AT_MOST` such a file is left out too.

A question is answered from what is indexed so far: it waits for a pass that has just started at most
`FIRST_WAIT` seconds (the small files of a dump folder are indexed by then), never for the whole folder.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from hlo_lsp.features.symbol_index import SymbolIndex
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.model.sizes import human_bytes
from hlo_lsp.workspace.hlo_files import HloFile, hlo_files, read_hlo_text

log = logging.getLogger("hlo_lsp")

BUDGET = 256 << 20
SCANNED_AT_MOST = 8 << 20
FIRST_WAIT = 1.5  # seconds a question waits for a pass under way, counted from the pass's start
# An index takes at least about this share of its file's bytes (a 40 MB module's: 0.29; less where large
# constants fill the lines): a file whose share would pass the budget is not read at all.
_LEAST_SHARE = 1 / 16

Stamp = tuple[int, int]


class FolderSymbols:
    """The indexes of the HLO module files under the workspace folders, kept up to date in the background."""

    def __init__(self, budget: int = BUDGET, scanned_at_most: int = SCANNED_AT_MOST) -> None:
        self._budget, self._scanned_at_most = budget, scanned_at_most
        self._state = threading.Condition()
        self._roots: tuple[str, ...] = ()
        self._indexes: dict[str, tuple[Stamp, SymbolIndex]] = {}  # by path
        self._unindexed: dict[str, Stamp] = {}  # files read that hold no module, or were left out as too large
        self._stale = False  # the folders are to be listed again
        self._pass_started: float | None = None  # (monotonic) while a pass runs
        self._told_left_out: set[str] = set()  # the files the log last said were left out

    def indexes(self, roots: list[str], leave_out: set[str] | frozenset[str] = frozenset()) -> list[SymbolIndex]:
        """The indexes of the HLO module files under `roots` (but `leave_out`), in path order: as many as are
        ready after waiting a little for a pass that has just started (started here if the folders changed)."""
        folders = tuple(dict.fromkeys(os.path.normpath(root) for root in roots))
        if not folders:
            return []
        with self._state:
            if folders != self._roots:
                self._roots, self._stale = folders, True
            self._start_pass()
            if self._pass_started is not None:
                self._state.wait_for(lambda: self._pass_started is None,
                                     timeout=max(0.0, self._pass_started + FIRST_WAIT - time.monotonic()))
            return [index for path, (_, index) in sorted(self._indexes.items())
                    if path not in leave_out and _under(path, folders)]

    def file_changed(self, path: str) -> None:
        """`path` changed on disk (or was made, or removed): read again in the next pass, which starts now when
        the folders that hold it were indexed before."""
        with self._state:
            self._indexes.pop(path, None)
            self._unindexed.pop(path, None)
            if _under(path, self._roots):
                self._stale = True
                self._start_pass()

    def wait(self, timeout: float | None = None) -> bool:
        """Waits until no pass runs; whether none does (False: `timeout` seconds passed)."""
        with self._state:
            return self._state.wait_for(lambda: self._pass_started is None, timeout=timeout)

    @property
    def nbytes(self) -> int:
        """What the indexes hold in memory."""
        with self._state:
            return sum(index.nbytes for _, index in self._indexes.values())

    # ---- the passes, in a thread of their own --------------------------------------------------------

    def _start_pass(self) -> None:
        """(Holding the state.) A pass over the folders when they are to be listed again and none runs."""
        if self._stale and self._pass_started is None:
            self._pass_started = time.monotonic()
            threading.Thread(target=self._passes, name="workspace-symbols", daemon=True).start()

    def _passes(self) -> None:
        while True:
            with self._state:
                if not self._stale:
                    self._pass_started = None
                    self._state.notify_all()
                    return
                self._stale, roots = False, self._roots
            try:
                self._index(roots)
            except Exception:
                log.exception("workspace symbols: indexing %s failed", ", ".join(roots))

    def _index(self, roots: tuple[str, ...]) -> None:
        listing = hlo_files(list(roots))
        if listing.cut:
            log.info("workspace symbols: the folders %s hold too many files to list them all; the HLO modules "
                     "among the first ones are searched", ", ".join(roots))
        used = self._keep_current(listing.files)
        left_out: list[HloFile] = []
        for file in sorted(listing.files, key=lambda file: file.size):
            if self._stale:  # a file changed, or the folders: the next pass starts over
                return
            if self._is_current(file):
                continue
            if used + file.size * _LEAST_SHARE > self._budget:
                left_out.append(file)
                continue
            let_questions_first()
            index = self._read(file)
            with self._state:
                if index is None:
                    self._unindexed[file.path] = file.stamp
                elif used + index.nbytes > self._budget:
                    left_out.append(file)
                else:
                    self._indexes[file.path] = (file.stamp, index)
                    used += index.nbytes
                    self._state.notify_all()
        if left_out and {file.path for file in left_out} != self._told_left_out:
            self._told_left_out = {file.path for file in left_out}
            log.info("workspace symbols: %d HLO module files (%s, the largest) are left out: their symbols would "
                     "pass the %s the index may hold", len(left_out), human_bytes(sum(file.size for file in left_out)),
                     human_bytes(self._budget))

    def _keep_current(self, files: list[HloFile]) -> int:
        """Lets go of the indexes of files no longer listed or changed; the bytes of those kept."""
        stamps = {file.path: file.stamp for file in files}
        with self._state:
            for path in [path for path, (stamp, _) in self._indexes.items() if stamps.get(path) != stamp]:
                del self._indexes[path]
            for path in [path for path, stamp in self._unindexed.items() if stamps.get(path) != stamp]:
                del self._unindexed[path]
            return sum(index.nbytes for _, index in self._indexes.values())

    def _is_current(self, file: HloFile) -> bool:
        with self._state:
            return file.path in self._indexes or self._unindexed.get(file.path) == file.stamp

    def _read(self, file: HloFile) -> SymbolIndex | None:
        text = read_hlo_text(file.path)
        if text is None:
            return None
        index = SymbolIndex.as_printed(file.path, text)
        if index is not None:
            return index
        if len(text) > self._scanned_at_most:
            log.info("workspace symbols: %s is not laid out as XLA prints it and is larger than %s: its symbols "
                     "are searched once it is open", file.path, human_bytes(self._scanned_at_most))
            return None
        return SymbolIndex.scanned(file.path, text)


def _under(path: str, folders: tuple[str, ...]) -> bool:
    return any(path.startswith(folder.rstrip(os.sep) + os.sep) for folder in folders)

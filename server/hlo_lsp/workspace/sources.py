"""Finding the user's source files that a dump names (`source_file=`, the `FileNames` table).

A dump records paths on the machine that ran the program (`/home/dev/xla-examples/gen_dumps.py`);
the file is often somewhere else here. `SourceFinder.find` answers, in order:

1. the path as printed, if a file is there;
2. the printed path's trailing parts (`xla-examples/gen_dumps.py`, then `gen_dumps.py`) under the
   dump's folder and each of its parents, up to the workspace folder that holds the dump (or a
   few levels when none does);
3. a file of that name anywhere under the workspace folders, the one sharing most trailing path
   parts with the printed path (then the shortest path), found by a bounded walk that skips
   hidden folders and `node_modules`/`__pycache__`.

It only asks whether files exist and lists folders; it never opens a file. Walks are remembered
for a short while, so that a document's many links cost one walk.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

_SKIPPED_FOLDERS = frozenset(("node_modules", "__pycache__", "site-packages", "venv", "env"))
_PARENT_LEVELS = 3  # parents of a dump's folder looked at when no workspace folder holds it
_TRAILING_PARTS = 4  # trailing parts of a printed path tried below each folder
MAX_ENTRIES = 50_000  # folder entries one walk of the workspace folders may look at
MAX_DEPTH = 12
REMEMBERED_SECONDS = 30.0


class SourceFinder:
    def __init__(self, roots: Sequence[str], max_entries: int = MAX_ENTRIES) -> None:
        self.roots = tuple(os.path.abspath(root) for root in roots if root and os.path.isabs(root))
        self.max_entries = max_entries
        self._names: dict[str, list[str]] | None = None  # base name -> files, from one walk
        self._walked_at = 0.0

    def find(self, printed: str, near: str | None = None) -> str | None:
        """The file `printed` means, or None. `near`: the dump's path (its folder is searched first)."""
        if not printed or "\0" in printed:
            return None
        if os.path.isabs(printed) and _is_file(printed):
            return os.path.normpath(printed)
        parts = [part for part in printed.replace("\\", "/").split("/") if part not in ("", ".", "..")]
        if not parts:
            return None
        for folder in self._folders_near(near):
            for count in range(min(len(parts), _TRAILING_PARTS), 0, -1):
                candidate = os.path.join(folder, *parts[-count:])
                if _is_file(candidate):
                    return os.path.normpath(candidate)
        matches = self._files_named(parts[-1])
        if not matches:
            return None
        return min(matches, key=lambda path: (-_shared_tail(path, parts), len(path), path))

    def _folders_near(self, near: str | None) -> list[str]:
        if near is None or not os.path.isabs(near):
            return list(self.roots)
        folder = os.path.dirname(os.path.abspath(near))
        holding = [root for root in self.roots if folder == root or folder.startswith(root.rstrip(os.sep) + os.sep)]
        stop = max(holding, key=len) if holding else None
        folders = [folder]
        while folder != stop and (stop is not None or len(folders) <= _PARENT_LEVELS):
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
            folders.append(folder)
        return folders + [root for root in self.roots if root not in folders]

    def _files_named(self, name: str) -> list[str]:
        now = time.monotonic()
        if self._names is None or now - self._walked_at > REMEMBERED_SECONDS:
            self._names = self._walk()
            self._walked_at = now
        return self._names.get(name, [])

    def _walk(self) -> dict[str, list[str]]:
        """Base name -> paths of the files under the roots (breadth first, bounded)."""
        names: dict[str, list[str]] = {}
        budget = self.max_entries
        queue = [(root, 0) for root in self.roots]
        seen: set[str] = set()
        while queue and budget > 0:
            folder, depth = queue.pop(0)
            if folder in seen:
                continue
            seen.add(folder)
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        budget -= 1
                        if budget <= 0:
                            break
                        if entry.name.startswith("."):
                            continue
                        try:
                            if entry.is_dir(follow_symlinks=False):
                                if depth < MAX_DEPTH and entry.name not in _SKIPPED_FOLDERS:
                                    queue.append((entry.path, depth + 1))
                            elif entry.is_file():
                                names.setdefault(entry.name, []).append(entry.path)
                        except OSError:
                            continue
            except OSError:
                continue
        return names


def _is_file(path: str) -> bool:
    try:
        return os.path.isfile(path)
    except (OSError, ValueError):
        return False


def _shared_tail(path: str, parts: list[str]) -> int:
    found = path.replace("\\", "/").split("/")
    count = 0
    while count < min(len(found), len(parts)) and found[-1 - count] == parts[-1 - count]:
        count += 1
    return count

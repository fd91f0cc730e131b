"""The modules of dump folders as `Session.list_modules` lists them: a compilation is read again only when one of
its files changed size or mtime, or came or went; listing a folder of thousands of modules a second time reads
only the directory. An HLO file of UNREAD_HLO_FROM bytes or more is not read at all (its size is the file's, its
instructions are not counted): a module's peak comes from its buffer-assignment files."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from hlo_lsp.features.module_list import ModuleList, ModuleRow, NeedsHlo, compilations, module_row, sorted_rows
from hlo_lsp.model.dump_module import ModuleDump, compilation_key, module_stem
from hlo_lsp.parsing.file_kinds import FileKind, kind_from_name
from hlo_lsp.problems import Problem
from hlo_lsp.workspace.loader import FileStamp, dump_file_stamps, load_files

UNREAD_HLO_FROM = 8_000_000  # bytes: a larger HLO file would take longer to read and count than its row


@dataclass(frozen=True, slots=True)
class _Listed:
    stamps: tuple[FileStamp, ...]  # its files as they were when it was read
    rows: tuple[ModuleRow, ...]  # () for files that hold no module (a side file)
    problems: tuple[Problem, ...]  # of its files that could not be read


class ListedModules:
    def __init__(self) -> None:
        self._listed: dict[str, _Listed] = {}  # by compilation key
        self._lock = threading.Lock()

    def rows(self, paths: list[str], sort: str, report: Callable[[float], None]) -> ModuleList:
        """The rows of every compilation under `paths`, sorted by `sort`; `report` is told the share done."""
        stamps, problems = dump_file_stamps(paths)
        groups = _by_compilation(stamps)
        rows: list[ModuleRow] = []
        for done, (key, files) in enumerate(groups.items()):
            listed = self._kept(key, files) or self._read(key, files)
            rows.extend(listed.rows)
            problems.extend(listed.problems)
            report((done + 1) / len(groups))
        self._forget_gone(paths, groups)
        return ModuleList(sorted_rows(rows, sort), problems)

    def _kept(self, key: str, files: tuple[FileStamp, ...]) -> _Listed | None:
        with self._lock:
            listed = self._listed.get(key)
        return listed if listed is not None and listed.stamps == files else None

    def _read(self, key: str, files: tuple[FileStamp, ...]) -> _Listed:
        """The compilation's rows, its HLO files of UNREAD_HLO_FROM bytes or more left unread unless a peak needs
        their shapes."""
        unread = {path: size for path, size, _ in files if size >= UNREAD_HLO_FROM and _is_hlo(path)}
        try:
            rows, problems = _rows([path for path, _, _ in files if path not in unread], unread)
        except NeedsHlo:
            rows, problems = _rows([path for path, _, _ in files], {})
        listed = _Listed(files, rows, problems)
        with self._lock:
            self._listed[key] = listed
        return listed

    def _forget_gone(self, paths: list[str], groups: dict[str, tuple[FileStamp, ...]]) -> None:
        """Forgets the compilations under `paths` that are no longer there."""
        folders = tuple(os.path.join(path, "") for path in paths if os.path.isdir(path))
        with self._lock:
            for key in [key for key in self._listed if key not in groups and key.startswith(folders)]:
                del self._listed[key]


def _rows(paths: list[str], unread: dict[str, int]) -> tuple[tuple[ModuleRow, ...], tuple[Problem, ...]]:
    dump = load_files(paths)
    stems = {module.stem for module in dump.modules}
    modules = dump.modules + [ModuleDump(stem) for stem in dict.fromkeys(map(module_stem, unread)) if stem not in stems]
    return tuple(module_row(stages, unread) for stages in compilations(modules).values()), tuple(dump.problems)


def _is_hlo(path: str) -> bool:
    return kind_from_name(os.path.basename(path)) is FileKind.HLO_MODULE


def _by_compilation(stamps: list[FileStamp]) -> dict[str, tuple[FileStamp, ...]]:
    groups: dict[str, list[FileStamp]] = {}
    for stamp in stamps:
        groups.setdefault(compilation_key(stamp[0]), []).append(stamp)
    return {key: tuple(files) for key, files in groups.items()}

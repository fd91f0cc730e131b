"""Reads dump files and folders from disk and groups them into modules. The only disk access.

Files are opened read-only; nothing here writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hlo_lsp.analysis.syntax import side_file_problem
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump, companion_paths, compilation_key, module_stem
from hlo_lsp.parsing.decode import decode_dump
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind, dump_name, kind_from_name
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range

# Files XLA writes next to the text dumps that are not ours to read.
_SKIPPED_SUFFIXES = (".pb", ".pb.gz", ".ll", ".o", ".dot", ".html", ".url", ".textproto", ".mlir", ".json")


@dataclass
class LoadedDump:
    modules: list[ModuleDump] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # file-level: unreadable, binary, encoding

    @property
    def compilations(self) -> int:
        """How many compilations the modules come from (a TPU compilation writes five HLO stages)."""
        return len({compilation_key(module.stem) for module in self.modules})


def read_document(path: str, kind: FileKind | None = None) -> tuple[Document | None, list[Problem]]:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        message = f"cannot read file: {error.strerror or error}"
        return None, [Problem(path, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "unreadable", message)]
    text, problems = decode_dump(data, path)
    detected = kind or detect_kind(os.path.basename(path), text)
    return Document(text, detected, path), problems


def _dump_files(path: str) -> list[str]:
    if os.path.isdir(path):
        found = []
        for folder, _, names in sorted(os.walk(path)):
            for name in sorted(names):
                if name.endswith(".txt") or name.endswith(".hlo"):
                    found.append(os.path.join(folder, name))
        return found
    return [path]


def load(paths: list[str]) -> LoadedDump:
    """Every dump file under `paths` (files or folders), grouped by module.

    A file named on its own brings its companions from the same folder, so that
    checks needing the other files of a split dump can run.
    """
    loaded = LoadedDump()
    by_stem: dict[str, ModuleDump] = {}
    for path in paths:
        if not os.path.exists(path):
            loaded.problems.append(_missing(path))
            continue
        named = os.path.isfile(path)
        for file_path in _dump_files(path) + (_companions(path) if named else []):
            skipped = file_path != path and file_path.endswith(_SKIPPED_SUFFIXES)
            if skipped or _already_loaded(by_stem, file_path):
                continue
            _add_file(file_path, by_stem, loaded, report_unknown=named and file_path == path)
    loaded.modules = list(by_stem.values())
    return loaded


# A file's identity on disk while it is not rewritten: (path, size, mtime in ns).
FileStamp = tuple[str, int, int]


def dump_file_stamps(paths: list[str]) -> tuple[list[FileStamp], list[Problem]]:
    """Every dump file under `paths` (folders, or files: each with its companions) with its size and mtime, as
    `load` would read them, without reading them; the problems of paths that do not exist."""
    stamps: list[FileStamp] = []
    problems: list[Problem] = []
    for path in paths:
        if not os.path.exists(path):
            problems.append(_missing(path))
            continue
        for file_path in _dump_files(path) + (_companions(path) if os.path.isfile(path) else []):
            if file_path != path and file_path.endswith(_SKIPPED_SUFFIXES):
                continue
            try:
                status = os.stat(file_path)
            except OSError:  # gone since it was listed: the next listing will not see it either
                continue
            stamps.append((file_path, status.st_size, status.st_mtime_ns))
    return stamps, problems


def load_files(paths: list[str]) -> LoadedDump:
    """These dump files, grouped by module, as a folder's listing reads them: no companions brought, a file
    that is not a dump left out without a word."""
    loaded = LoadedDump()
    by_stem: dict[str, ModuleDump] = {}
    for path in paths:
        _add_file(path, by_stem, loaded, report_unknown=False)
    loaded.modules = list(by_stem.values())
    return loaded


def _missing(path: str) -> Problem:
    return Problem(path, Range(Position(0, 0), Position(0, 0)), Severity.ERROR, "missing", "no such file or folder")


def _companions(path: str) -> list[str]:
    """The other files of the module of `path` (not those another stage of its compilation lends it)."""
    stem = module_stem(path)
    return [candidate for candidate in module_files(path).values()
            if candidate != path and (module_stem(candidate) == stem or not _is_stage_file(path))]


def _is_stage_file(path: str) -> bool:
    return kind_from_name(os.path.basename(path)) is FileKind.HLO_MODULE


def _already_loaded(by_stem: dict[str, ModuleDump], path: str) -> bool:
    module = by_stem.get(module_stem(path))
    return module is not None and any(document.source == path for document in module.documents.values())


def _add_file(path: str, by_stem: dict[str, ModuleDump], loaded: LoadedDump, report_unknown: bool) -> None:
    document, problems = read_document(path)
    loaded.problems.extend(problems)
    if document is None:
        return
    if not document.kind.is_dump:
        if report_unknown and not problems:
            side_file = document.kind is FileKind.SIDE_FILE
            loaded.problems.append(side_file_problem(path) if side_file else _not_a_dump(path))
        return
    stem = module_stem(path)
    module = by_stem.setdefault(stem, ModuleDump(stem))
    module.documents.setdefault(document.kind, document)


def module_files(path: str) -> dict[FileKind, str]:
    """The files on disk of the module `path` belongs to, by kind (XLA's naming).

    When `<stem>.txt` is missing, a buffer assignment pairs with the one
    after-optimizations module of the same `module_NNNN` id in its folder. An HLO stage
    written after buffer assignment without companions of its own (TPU's `after_codegen`)
    has those of its compilation's after-optimizations stage.
    """
    stem = module_stem(path)
    found = _existing(companion_paths(stem))
    if FileKind.HLO_MODULE not in found and found:
        fallback = _same_module_id(stem)
        if fallback is not None:
            found[FileKind.HLO_MODULE] = fallback
    if list(found) == [FileKind.HLO_MODULE]:
        found.update(_stage_companions(path))
    return found


def _existing(candidates_by_kind: dict[FileKind, list[str]]) -> dict[FileKind, str]:
    found: dict[FileKind, str] = {}
    for kind, candidates in candidates_by_kind.items():
        existing = next((candidate for candidate in candidates if os.path.isfile(candidate)), None)
        if existing is not None:
            found[kind] = existing
    return found


def _stage_companions(path: str) -> dict[FileKind, str]:
    """The buffer-assignment files of the compilation of `path`, an HLO stage written after buffer
    assignment (none for a stage before it: its instructions are not the ones they name)."""
    folder, file_name = os.path.split(path)
    name = dump_name(file_name)
    if name is None or not name.is_after_buffer_assignment:
        return {}
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return {}
    stems = sorted({module_stem(other) for other in names if other.startswith(name.compilation + ".")
                    and kind_from_name(other).is_buffer_assignment_family})
    for stem in stems:
        stage = dump_name(os.path.basename(stem))
        if stage is not None and stage.compilation == name.compilation and stage.is_after_buffer_assignment:
            companions = _existing(companion_paths(os.path.join(folder, stem)))
            companions.pop(FileKind.HLO_MODULE, None)
            return companions
    return {}


def _same_module_id(stem: str) -> str | None:
    folder, name = os.path.split(stem)
    module_id = name.split(".", 1)[0]
    if not module_id.startswith("module_"):
        return None
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return None
    candidates = [n for n in names if n.startswith(module_id + ".") and "after_optimizations" in n
                  and n.endswith(".txt") and kind_from_name(n) is FileKind.HLO_MODULE]
    return os.path.join(folder, candidates[0]) if len(candidates) == 1 else None


def _not_a_dump(path: str) -> Problem:
    return Problem(path, Range(Position(0, 0), Position(0, 1)), Severity.ERROR, "unknown-file",
                   "not an XLA dump: expected an HLO module, buffer assignment, live range or memory report")

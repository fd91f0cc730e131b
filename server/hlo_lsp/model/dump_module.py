"""The files of one compiled module, paired by XLA's dump naming (xla/service/dump.cc).

`module_0001.jit_f.cpu_after_optimizations.txt` is the HLO module; its companions
append `-buffer-assignment.txt`, `-buffer-assignment-values.txt`, `-live-range.txt`
and `-memory-usage-report.txt` to the same stem. The other HLO stages of one compilation
(`before_optimizations`; on TPU also `after_optimizations_after_buffer_assignment` and
`after_codegen`) share the compilation's name (`compilation_key`); a stage written after buffer
assignment names the same instructions, so its module borrows the companions for their memory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from hlo_lsp.model.buffer_assignment import BufferAssignment, read_buffer_assignment
from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.lazy import lazy
from hlo_lsp.model.memory_spaces import MemorySpaces, memory_spaces
from hlo_lsp.parsing.file_kinds import COMPANION_SUFFIXES, FileKind, dump_name, without_suffix


def module_stem(path: str) -> str:
    """The path with its companion suffix (or `.txt` / `.hlo`) removed."""
    return without_suffix(path)


def compilation_key(path: str) -> str:
    """What every file of one compilation shares: its folder and `[ts.]module_NNNN.<name>[.cl_N]`
    (XLA's naming), else the file's own stem."""
    folder, file_name = os.path.split(path)
    name = dump_name(file_name)
    return os.path.join(folder, name.compilation) if name is not None else module_stem(path)


def companion_paths(stem: str) -> dict[FileKind, list[str]]:
    """Every path a file of this module may have, by kind (the HLO spellings first)."""
    paths: dict[FileKind, list[str]] = {FileKind.HLO_MODULE: [stem + ".txt", stem + ".hlo", stem + ".hlo.txt"]}
    for suffix, kind in COMPANION_SUFFIXES:
        paths.setdefault(kind, []).append(stem + suffix)
    return paths


@dataclass(eq=False)
class ModuleDump:
    """The documents of one module; any of them may be missing. `borrowed`: the kinds whose documents
    belong to another stage of the compilation (an `after_codegen` module reads the buffer assignment
    made for `after_optimizations`); they give this module memory, and are checked with their own."""

    stem: str
    documents: dict[FileKind, Document] = field(default_factory=dict)
    borrowed: frozenset[FileKind] = frozenset()

    @property
    def hlo_document(self) -> Document | None:
        return self.documents.get(FileKind.HLO_MODULE)

    @property
    def buffer_assignment_documents(self) -> list[Document]:
        order = (FileKind.BUFFER_ASSIGNMENT, FileKind.BUFFER_ASSIGNMENT_VALUES, FileKind.LIVE_RANGE)
        return [self.documents[kind] for kind in order if kind in self.documents]

    @lazy
    def hlo(self) -> HloModule | None:
        document = self.hlo_document
        return HloModule(document) if document is not None else None

    @lazy
    def buffer_assignment(self) -> BufferAssignment | None:
        documents = self.buffer_assignment_documents
        return read_buffer_assignment(documents) if documents else None

    @lazy
    def memory_spaces(self) -> MemorySpaces:
        """The memory spaces its allocations use, named by the memory-usage report (read when first
        asked: hovers ask only when an allocation is outside the default space)."""
        buffers = self.buffer_assignment
        colors = buffers.colors if buffers is not None else frozenset()
        return memory_spaces(self.documents.get(FileKind.MEMORY_USAGE_REPORT), colors)

    def all_documents(self) -> list[Document]:
        return list(self.documents.values())

    def own_documents(self) -> list[Document]:
        """The documents whose problems this module reports (not the borrowed ones)."""
        return [document for kind, document in self.documents.items() if kind not in self.borrowed]

    def checked_part(self) -> ModuleDump:
        """The module of the documents it checks: itself, or without what it borrows."""
        if not self.borrowed:
            return self
        part = ModuleDump(self.stem, {kind: self.documents[kind] for kind in self.documents
                                      if kind not in self.borrowed})
        if "hlo" in self.__dict__ and part.hlo_document is self.hlo_document:
            part.__dict__["hlo"] = self.__dict__["hlo"]
        return part

    def updated(self, documents: dict[FileKind, Document], borrowed: frozenset[FileKind] = frozenset()) -> ModuleDump:
        """The module of `documents`, keeping what was already read from the documents it shares
        with this one: an edit of the HLO file does not re-read the buffer assignment."""
        module = ModuleDump(self.stem, documents, borrowed)
        read = self.__dict__  # `lazy` keeps its values here
        if "buffer_assignment" in read and module.buffer_assignment_documents == self.buffer_assignment_documents:
            module.__dict__["buffer_assignment"] = read["buffer_assignment"]
        hlo, document = read.get("hlo"), module.hlo_document
        if hlo is not None and document is not None:
            module.__dict__["hlo"] = hlo if document is self.hlo_document else hlo.edited(document)
        return module

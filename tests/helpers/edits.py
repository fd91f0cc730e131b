"""Edits of documents, for what is derived from a document's previous version: a few fixed edits of a
real module, and random edits (hypothesis) whose result must equal a fresh document of the same text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from hlo_lsp.model import document as document_module
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Position, Range

# Edits of a real module, for what is derived from a document's previous version: (a line holding
# `anchor`, the text on that line to replace, what replaces it).
EDITS = [
    ("%mul.19 = ", 'op_name="', 'op_name="x'),  # text in a string: every line keeps its kind
    ("%mul.19 = ", "%mul.19", "%mul.91"),  # an instruction renamed
    ("%region_8.10 (", "%region_8.10", "%region_8.99"),  # a computation header renamed
    ("%mul.19 = ", "  %mul.19", "//  %mul.19"),  # an instruction made a comment
    ("%mul.19 = ", "  %mul.19", "  %extra = f32[] constant(0)\n  %mul.19"),  # a line added
    ("ROOT %add.23 = ", "ROOT ", ""),  # no longer the root
]


def edited_copies(path: Path) -> list[tuple[Document, Document]]:
    """(document, edited version) for each of EDITS on the module at `path`."""
    text = path.read_text()
    lines = text.split("\n")
    found = []
    for anchor, old, new in EDITS:
        line = next(number for number, line_text in enumerate(lines) if anchor in line_text)
        start = lines[line].index(old)
        document = Document(text, FileKind.HLO_MODULE, str(path))
        document.chunks  # noqa: B018 - scanned: an edit starts from a scanned version's chunks (`edited_from`)
        found.append((document, document.apply_edit(Range(Position(line, start), Position(line, start + len(old))),
                                                     new)))
    return found


# Pieces of HLO text random edits insert: some keep every line's kind, some change the structure.
HLO_PIECES = ["x", "(", ")", "{", "}", "\n", "%a.1", "// note", ' op_name="', "ROOT ", "\n}\n",
              "\n  %c.1 = f32[] constant(0)\n", "ENTRY %e () -> f32[] {\n"]


# How many random edits, drawn the same way on every run.
RANDOM_EDITS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                        suppress_health_check=[HealthCheck.too_slow])


def random_edit(data: st.DataObject, document: Document, pieces: list[str], most_removed: int,
                most_pieces: int) -> Document:
    """`document` edited on one of its lines: up to `most_removed` characters replaced by up to
    `most_pieces` of `pieces`."""
    line = data.draw(st.integers(0, document.line_count - 1), label="line")
    column = data.draw(st.integers(0, 60), label="column")
    removed = data.draw(st.integers(0, most_removed), label="removed")
    piece = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=most_pieces), label="text"))
    return document.apply_edit(Range(Position(line, column), Position(line, column + removed)), piece)


def after_random_edits_like_a_fresh_document(data: st.DataObject, text: str,
                                             answer: Callable[[Document], object], edits: int = 5) -> None:
    """Random edits of an HLO module (in chunks of 4 lines); after each, `answer` of the edited document
    is `answer` of a fresh document of its text (what a version keeps from the one before holds)."""
    with mock.patch.object(document_module, "CHUNK_LINES", 4):
        document = Document(text, FileKind.HLO_MODULE, "module.txt")
        answer(document)
        for _ in range(data.draw(st.integers(1, edits), label="edits")):
            document = random_edit(data, document, HLO_PIECES, most_removed=4, most_pieces=3)
            assert answer(document) == answer(Document(document.text, FileKind.HLO_MODULE, "module.txt"))


def after_random_module_edits_like_a_fresh_check(data: st.DataObject, text: str, pieces: list[str],
                                                 check: Callable[[ModuleDump], object]) -> None:
    """Random edits of a one-file module (in chunks of 4 lines) typing `pieces`; after each, `check` of
    the edited module, which may start from its last run, is `check` of a fresh module of the same text."""
    with mock.patch.object(document_module, "CHUNK_LINES", 4):
        document = Document(text, FileKind.HLO_MODULE, "module.hlo")
        module = ModuleDump("module", {FileKind.HLO_MODULE: document})
        check(module)
        for _ in range(data.draw(st.integers(1, 6), label="edits")):
            document = random_edit(data, document, pieces, most_removed=3, most_pieces=2)
            module = module.updated({FileKind.HLO_MODULE: document})
            fresh = Document(document.text, FileKind.HLO_MODULE, "module.hlo")
            assert check(module) == check(ModuleDump("module", {FileKind.HLO_MODULE: fresh}))

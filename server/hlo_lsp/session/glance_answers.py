"""Hover and definition answered from a glance at a module's text, before the module is built: the one
place that decides whether a glance may answer. Each answer is None where the glance cannot tell (the
module answers then), NOTHING where there is surely nothing to say, or the answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Final, Generic, TypeVar

from hlo_lsp.features.definition import DEFINED_KINDS, definition
from hlo_lsp.features.hover import HOVERED_KINDS, hover, module_free_hover
from hlo_lsp.features.targets import target_at
from hlo_lsp.features.types import HoverInfo, Location, Target
from hlo_lsp.model.document import Document
from hlo_lsp.model.glance import ModuleGlance
from hlo_lsp.session.cursor import Cursor

T = TypeVar("T")


@dataclass(frozen=True)
class Answer(Generic[T]):
    """An answer and the documents its positions refer to: `document`, that of the file asked about (at a
    glance, a document of the cursor's line alone), and `documents`, other files' read at a glance."""

    value: T
    document: Document
    documents: dict[str, Document] = field(default_factory=dict)


class _Nothing(Enum):
    """An early answer that there is nothing to say (None says the glance cannot tell). An enum's one
    member: `answer is NOTHING` then tells the type checker that the answer is not NOTHING past it."""

    NOTHING = "nothing"


NOTHING: Final = _Nothing.NOTHING


def _glanced_line(glance: ModuleGlance, document: Document, cursor: Cursor) -> tuple[Document, Target | None] | None:
    """The cursor's line alone, as a document, and what the cursor is on (None: nothing)."""
    line = glance.line_document(cursor.line, document.source)
    return (line, target_at(line, cursor.position(line))) if line is not None else None


def glance_hover(glance: ModuleGlance, document: Document, cursor: Cursor) -> Answer[HoverInfo] | _Nothing | None:
    with glance.question():
        return _glance_hover(glance, document, cursor)


def glance_definition(glance: ModuleGlance, document: Document,
                      cursor: Cursor) -> Answer[list[Location]] | _Nothing | None:
    with glance.question():
        return _glance_definition(glance, document, cursor)


def _glance_hover(glance: ModuleGlance, document: Document, cursor: Cursor) -> Answer[HoverInfo] | _Nothing | None:
    found = _glanced_line(glance, document, cursor)
    if found is None:
        return None
    line, target = found
    surely = glance.reads_as_whole(line, cursor.line)
    if target is None or target.kind not in HOVERED_KINDS:  # blank space, punctuation, a table's name
        return NOTHING if surely else None
    if target.kind in glance.HOVER_KINDS:
        module = glance.module_at(line, cursor.line, target.kind, target.name)
        info = hover(module, target) if module is not None else None
    else:  # a shape says all about itself; a label of the peak's breakdown waits for the module
        info = module_free_hover(target) if surely else None
    return Answer(info, line) if info is not None else None


def _glance_definition(glance: ModuleGlance, document: Document,
                       cursor: Cursor) -> Answer[list[Location]] | _Nothing | None:
    found = _glanced_line(glance, document, cursor)
    if found is None:
        return None
    line, target = found
    if target is None or target.kind not in DEFINED_KINDS:  # blank space, punctuation, a shape
        if not glance.reads_as_whole(line, cursor.line):
            return None
        return NOTHING if target is None else Answer([], line)
    module = glance.module_about(target.kind, target.name, whole=False)
    if module is None:
        return None
    places = definition(module, target)
    if not places:
        return None
    return Answer(places, line, {document.source: document for document in module.all_documents()})

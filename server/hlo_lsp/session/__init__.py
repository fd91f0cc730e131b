"""The engine's facade, and its Python API: open or read dump files, ask what an editor asks, get the
engine's records back. The language server uses nothing else of the engine.

    from hlo_lsp.session import Cursor, Session
    from hlo_lsp.text import Position

    session = Session()
    source = "dump/module_0000.jit_step.cpu_after_optimizations.txt"
    answer = session.hover(source, None, Cursor.at(Position(12, 4)))   # None: read the file from disk
    print(answer.value.markdown if answer else "nothing there")
    checked = session.check(source)                                    # every problem of the module
    timeline = session.memory_timeline(source, None, lambda place: {"source": place.source})
"""

from hlo_lsp.analysis.run import CheckCancelled
from hlo_lsp.features.call_hierarchy import Call, CallItem
from hlo_lsp.features.code_lens import Lens
from hlo_lsp.features.inlay_hints import InlayHint
from hlo_lsp.features.links import Link
from hlo_lsp.features.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, Token
from hlo_lsp.features.types import Fold, Highlight, HoverInfo, Location, Symbol, WorkspaceSymbol
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import module_stem
from hlo_lsp.session.cursor import Cursor, Span
from hlo_lsp.session.glance_answers import Answer
from hlo_lsp.session.session import Checked, Session

__all__ = [
    "TOKEN_MODIFIERS", "TOKEN_TYPES", "Answer", "Call", "CallItem", "CheckCancelled", "Checked", "Cursor",
    "Document", "Fold", "Highlight", "HoverInfo", "InlayHint", "Lens", "Link", "Location", "Session", "Span",
    "Symbol", "Token", "WorkspaceSymbol", "module_stem",
]

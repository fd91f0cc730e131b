"""The engine's facade, and its Python API: open or read dump files, ask what an editor asks, get the
engine's records back. The language server and the CLI use nothing else of the engine.

    from hlo_lsp.session import Cursor, Session
    from hlo_lsp.text import Position

    session = Session()
    for module in session.read(["dump"]).modules:                      # an --xla_dump_to folder
        memory = session.memory(module)                                # None: no buffer assignment
        print(memory.name, memory.summary.peak_bytes) if memory else None
    source = "dump/module_0000.jit_step.cpu_after_optimizations.txt"
    answer = session.hover(source, None, Cursor.at(Position(12, 4)))   # None: read the file from disk
    print(answer.value.markdown if answer else "nothing there")
    checked = session.check(source)                                    # every problem of the module
    timeline = session.memory_timeline(source)                         # the report and its SVG picture
"""

from hlo_lsp.analysis.memory import MemorySummary, Origin, PeakBuffer, SpaceMemory
from hlo_lsp.analysis.run import CheckCancelled
from hlo_lsp.analysis.timeline import AllocationUse, TimelineBuffer
from hlo_lsp.features.call_hierarchy import Call, CallItem
from hlo_lsp.features.code_lens import Lens
from hlo_lsp.features.compared_modules import Unpaired
from hlo_lsp.features.hover_memory import byte_text
from hlo_lsp.features.inlay_hints import InlayHint
from hlo_lsp.features.links import Link
from hlo_lsp.features.memory_compare import BufferChange, Comparison, ModuleChange, PeakSide, SpaceChange, percent
from hlo_lsp.features.memory_timeline import PLURALS, MemoryReport
from hlo_lsp.features.module_list import SORTS, ModuleList, ModuleRow, SpacePeak
from hlo_lsp.features.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, Token
from hlo_lsp.features.types import Fold, Highlight, HoverInfo, Location, Symbol, WorkspaceSymbol
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.model.memory_spaces import MemorySpace
from hlo_lsp.model.sizes import human_bytes
from hlo_lsp.session.cursor import Cursor, Span
from hlo_lsp.session.forked_part import ForkedPart
from hlo_lsp.session.glance_answers import Answer
from hlo_lsp.session.memory import Memory, MemoryTimeline
from hlo_lsp.session.session import Checked, Session
from hlo_lsp.workspace.loader import LoadedDump

__all__ = [
    "PLURALS", "SORTS", "TOKEN_MODIFIERS", "TOKEN_TYPES", "AllocationUse", "Answer", "BufferChange", "Call",
    "CallItem", "CheckCancelled", "Checked", "Comparison", "Cursor", "Document", "Fold", "ForkedPart", "Highlight",
    "HoverInfo", "InlayHint", "Lens", "Link", "LoadedDump", "Location", "Memory", "MemoryReport", "MemorySpace",
    "MemorySummary", "MemoryTimeline", "ModuleChange", "ModuleDump", "ModuleList", "ModuleRow", "Origin",
    "PeakBuffer", "PeakSide", "Session", "Span", "SpaceChange", "SpaceMemory", "SpacePeak", "Symbol",
    "TimelineBuffer", "Token", "Unpaired", "WorkspaceSymbol", "byte_text", "human_bytes", "module_stem", "percent",
]

"""Conversions between the engine's records and lsprotocol types; the only place that builds them.

The engine counts columns in UTF-16 code units. When the client negotiated
another position encoding, columns go through pygls' position codec.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec

from hlo_lsp.problems import Problem, Severity
from hlo_lsp.session import (
    Call,
    CallItem,
    Document,
    Fold,
    Highlight,
    HoverInfo,
    InlayHint,
    Lens,
    Link,
    Location,
    Symbol,
    Token,
    WorkspaceSymbol,
)
from hlo_lsp.text import Position, Range, python_index, utf16_column

SOURCE = "hlo-lsp"

_SYMBOL_KINDS = {
    "module": types.SymbolKind.Module,
    "namespace": types.SymbolKind.Namespace,
    "function": types.SymbolKind.Function,
    "variable": types.SymbolKind.Variable,
    "field": types.SymbolKind.Field,
    "struct": types.SymbolKind.Struct,
    "array": types.SymbolKind.Array,
    "event": types.SymbolKind.Event,
    "object": types.SymbolKind.Object,
    "number": types.SymbolKind.Number,
}
_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


class DocumentLines(Sequence[str]):
    """A Document's lines as the sequence pygls' codec expects."""

    def __init__(self, document: Document) -> None:
        self._document = document

    def __len__(self) -> int:
        return self._document.line_count

    # Untyped: pygls reads single lines, and `(int) -> str` alone would not match Sequence's slice overload.
    def __getitem__(self, index):
        return self._document.line(index)


class Positions:
    """Position conversion for one negotiated encoding."""

    def __init__(self, encoding: str | None, codec: PositionCodec) -> None:  # None: pygls' default, UTF-16
        self._utf16 = encoding == types.PositionEncodingKind.Utf16
        self._codec = codec

    def from_client(self, position: types.Position, document: Document) -> Position:
        if self._utf16 or not 0 <= position.line < document.line_count:
            return Position(position.line, position.character)
        lines = DocumentLines(document)
        line = lines[position.line]
        if position.character >= self._codec.client_num_units(line):
            return Position(position.line, utf16_column(line, len(line)) + position.character
                            - self._codec.client_num_units(line))  # past the end stays past the end
        code_points = self._codec.position_from_client_units(lines, types.Position(position.line, position.character))
        return Position(position.line, utf16_column(line, code_points.character))

    def range_from_client(self, client_range: types.Range, document: Document) -> Range:
        return Range(self.from_client(client_range.start, document), self.from_client(client_range.end, document))

    def to_client(self, position: Position, document: Document | None) -> types.Position:
        if self._utf16 or document is None or not 0 <= position.line < document.line_count:
            return types.Position(position.line, position.character)
        lines = DocumentLines(document)
        index = python_index(lines[position.line], position.character)
        return self._codec.position_to_client_units(lines, types.Position(position.line, index))

    def range_to_client(self, engine_range: Range, document: Document | None) -> types.Range:
        if self._utf16:  # the engine's own columns: no line is read (an answer may hold 14,000 ranges)
            start, end = engine_range.start, engine_range.end
            return types.Range(types.Position(start.line, start.character), types.Position(end.line, end.character))
        return types.Range(self.to_client(engine_range.start, document), self.to_client(engine_range.end, document))


# A function from an engine source (a path or URI) to its URI and Document (for column conversion).
Resolver = Callable[[str], tuple[str, Document | None]]


_JSON = get_converter()


def location(found: Location, resolve: Resolver, positions: Positions) -> types.Location:
    uri, document = resolve(found.source)
    return types.Location(uri, positions.range_to_client(found.range, document))


def locations(found: Iterable[Location], resolve: Resolver, positions: Positions) -> list[types.Location]:
    """Many places at once (at 40 MB: 14,000 references of a much used instruction, 12,000 buffers
    a lens lists), each file resolved once."""
    resolved: dict[str, tuple[str, Document | None]] = {}
    answer = []
    for place in found:
        target = resolved.get(place.source)
        if target is None:
            target = resolved[place.source] = resolve(place.source)
        answer.append(types.Location(target[0], positions.range_to_client(place.range, target[1])))
    return answer


def location_json(found: Location, resolve: Resolver, positions: Positions) -> dict[str, object]:
    """A Location as JSON, for answers of commands (whose results are plain JSON)."""
    return _JSON.unstructure(location(found, resolve, positions))


def diagnostic(problem: Problem, resolve: Resolver, positions: Positions,
               document: Document | None) -> types.Diagnostic:
    related = [
        types.DiagnosticRelatedInformation(
            location(Location(item.source, item.range), resolve, positions), item.message)
        for item in problem.related
    ]
    return types.Diagnostic(
        range=positions.range_to_client(problem.range, document),
        message=problem.message,
        severity=_SEVERITIES[problem.severity],
        code=problem.code,
        source=SOURCE,
        related_information=related or None,
    )


def hover(info: HoverInfo, positions: Positions, document: Document, markdown: bool) -> types.Hover:
    content = (types.MarkupContent(types.MarkupKind.Markdown, info.markdown) if markdown
               else types.MarkupContent(types.MarkupKind.PlainText, plain_text(info.markdown)))
    return types.Hover(content, positions.range_to_client(info.range, document))


def plain_text(markdown: str) -> str:
    """The hover for clients that show plain text: no emphasis, code marks or table rules."""
    lines = []
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith("|") and set(stripped) <= set("|-: "):
            continue  # a table's header rule
        if stripped.startswith("|"):
            line = "  ".join(cell.strip() for cell in stripped.strip("|").split("|"))
        lines.append(line.replace("**", "").replace("`", ""))
    return "\n".join(lines)


def highlight(found: Highlight, positions: Positions, document: Document) -> types.DocumentHighlight:
    kind = types.DocumentHighlightKind.Write if found.is_definition else types.DocumentHighlightKind.Read
    return types.DocumentHighlight(positions.range_to_client(found.range, document), kind)


def document_symbol(symbol: Symbol, positions: Positions, document: Document) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=symbol.name,
        kind=_SYMBOL_KINDS.get(symbol.kind, types.SymbolKind.Object),
        range=positions.range_to_client(symbol.range, document),
        selection_range=positions.range_to_client(symbol.selection_range, document),
        detail=symbol.detail or None,
        children=[document_symbol(child, positions, document) for child in symbol.children] or None,
    )


def outline(symbols: list[Symbol], uri: str, positions: Positions, document: Document,
            hierarchical: bool) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
    """The outline as the client takes it: a tree, or a flat list with each symbol's container."""
    if hierarchical:
        return [document_symbol(symbol, positions, document) for symbol in symbols]
    return flat_symbols(symbols, uri, positions, document)


def flat_symbols(symbols: list[Symbol], uri: str, positions: Positions, document: Document,
                 container: str | None = None) -> list[types.SymbolInformation]:
    """SymbolInformation for clients without hierarchical document symbols."""
    flat = []
    for symbol in symbols:
        flat.append(types.SymbolInformation(
            name=symbol.name, kind=_SYMBOL_KINDS.get(symbol.kind, types.SymbolKind.Object),
            location=types.Location(uri, positions.range_to_client(symbol.range, document)),
            container_name=container))
        flat.extend(flat_symbols(list(symbol.children), uri, positions, document, symbol.name))
    return flat


def workspace_symbol(symbol: WorkspaceSymbol, resolve: Resolver, positions: Positions) -> types.SymbolInformation:
    return types.SymbolInformation(
        name=symbol.name,
        kind=_SYMBOL_KINDS.get(symbol.kind, types.SymbolKind.Object),
        location=location(symbol.location, resolve, positions),
        container_name=symbol.container or None,
    )


def folding_range(fold: Fold) -> types.FoldingRange:
    kind = types.FoldingRangeKind.Comment if fold.kind == "comment" else types.FoldingRangeKind.Region
    return types.FoldingRange(start_line=fold.start_line, end_line=fold.end_line, kind=kind)


# ---- memory insight: inlay hints, code lenses, links, call hierarchy, semantic tokens --------

SHOW_PEAK_BUFFERS = "hlo.showPeakBuffers"
_INLAY_HINT_KINDS = {"type": types.InlayHintKind.Type, "parameter": types.InlayHintKind.Parameter}


def inlay_hint(hint: InlayHint, positions: Positions, document: Document) -> types.InlayHint:
    return types.InlayHint(position=positions.to_client(hint.position, document), label=hint.label,
                           kind=_INLAY_HINT_KINDS.get(hint.kind), tooltip=hint.tooltip or None, padding_left=True)


def code_lens(lens: Lens, uri: str, positions: Positions, document: Document) -> types.CodeLens:
    """A lens that lists places is sent without its command, which codeLens/resolve gives
    (`resolved_code_lens`): at 40 MB the peak's two lenses list 12,000 buffers each, 4 MB that
    an editor needs only when it shows the lens. The others run no command."""
    where = positions.range_to_client(lens.range, document)
    if not lens.lists_places:
        return types.CodeLens(range=where, command=types.Command(title=lens.title, command=""))
    return types.CodeLens(range=where, data={"uri": uri, "title": lens.title})


def lens_data(lens: types.CodeLens) -> tuple[str | None, str | None]:
    """The URI and title a lens sent without its command carries (`code_lens`), None where malformed."""
    data = lens.data if isinstance(lens.data, dict) else {}
    uri, title = data.get("uri"), data.get("title")
    return (uri if isinstance(uri, str) else None), (title if isinstance(title, str) else None)


def timeline_arguments(arguments: Sequence[object]) -> tuple[str | None, object]:
    """The URI and memory space of `hlo.memoryTimeline`'s arguments: `[uri]` or `[{"uri": ..., "space": ...}]`."""
    first = arguments[0] if arguments else None
    uri = first.get("uri") if isinstance(first, dict) else first
    space = first.get("space") if isinstance(first, dict) else None
    return (uri if isinstance(uri, str) else None), space


def resolved_code_lens(lens: Lens, uri: str, resolve: Resolver, positions: Positions,
                       document: Document) -> types.CodeLens:
    """A lens that lists places runs `hlo.showPeakBuffers` with the arguments of VS Code's
    `editor.action.showReferences` (uri, position, locations)."""
    where = positions.range_to_client(lens.range, document)
    return types.CodeLens(range=where, command=types.Command(
        title=lens.title, command=SHOW_PEAK_BUFFERS,
        arguments=[uri, where.start, locations(lens.locations, resolve, positions)]))


def document_link(link: Link, positions: Positions, document: Document, tooltip: bool) -> types.DocumentLink:
    """`file:///…/gen_dumps.py#L169`: VS Code opens the file at that line. (`tooltip`: the client shows them.)"""
    target = (from_fs_path(link.path) or link.path) + (f"#L{link.line}" if link.line else "")
    return types.DocumentLink(range=positions.range_to_client(link.range, document), target=target,
                              tooltip=link.tooltip or None if tooltip else None)


def call_hierarchy_item(item: CallItem, resolve: Resolver, positions: Positions) -> types.CallHierarchyItem:
    uri, document = resolve(item.source)
    return types.CallHierarchyItem(
        name=item.name, kind=types.SymbolKind.Function, uri=uri, detail=item.detail or None,
        range=positions.range_to_client(item.range, document),
        selection_range=positions.range_to_client(item.selection_range, document),
        data={"computation": item.name})


def incoming_call(call: Call, resolve: Resolver, positions: Positions) -> types.CallHierarchyIncomingCall:
    _, document = resolve(call.item.source)
    return types.CallHierarchyIncomingCall(
        from_=call_hierarchy_item(call.item, resolve, positions),
        from_ranges=[positions.range_to_client(found, document) for found in call.from_ranges])


def outgoing_call(call: Call, caller_source: str, resolve: Resolver,
                  positions: Positions) -> types.CallHierarchyOutgoingCall:
    _, document = resolve(caller_source)
    return types.CallHierarchyOutgoingCall(
        to=call_hierarchy_item(call.item, resolve, positions),
        from_ranges=[positions.range_to_client(found, document) for found in call.from_ranges])


def semantic_tokens(tokens: Iterable[Token], positions: Positions, document: Document) -> types.SemanticTokens:
    """LSP's relative encoding (delta line, delta start, length, type, modifiers), in the client's
    position encoding: columns of a line that is not ASCII go through the codec."""
    data: list[int] = []
    append = data.extend
    previous_line = previous_start = 0
    ascii_line = -1
    line_is_ascii = True
    for line, start, length, token_type, modifiers in tokens:
        if line != ascii_line:
            ascii_line, line_is_ascii = line, document.line(line).isascii()
        if not line_is_ascii:
            first = positions.to_client(Position(line, start), document).character
            length = positions.to_client(Position(line, start + length), document).character - first
            start = first
        append((line - previous_line, start - previous_start if line == previous_line else start,
                length, token_type, modifiers))
        previous_line, previous_start = line, start
    return types.SemanticTokens(data=data)


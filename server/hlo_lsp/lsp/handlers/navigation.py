"""Where a name is defined and used, what it is: definition, declaration, references, highlights, hover,
and the call hierarchy of computations."""

from __future__ import annotations

import functools

from lsprotocol import types

from hlo_lsp.lsp import convert
from hlo_lsp.lsp.language_server import HloLanguageServer
from hlo_lsp.session import Answer, CallItem, Highlight, Location


async def definition(ls: HloLanguageServer, params: types.DefinitionParams) -> list[types.Location] | None:
    return await ls.ask(ls.session.definition, params.text_document.uri, ls.cursor(params.position),
                        then=functools.partial(_locations, ls))


async def declaration(ls: HloLanguageServer, params: types.DeclarationParams) -> list[types.Location] | None:
    return await ls.ask(ls.session.definition, params.text_document.uri, ls.cursor(params.position), False,
                        then=functools.partial(_locations, ls))


async def references(ls: HloLanguageServer, params: types.ReferenceParams) -> list[types.Location] | None:
    return await ls.ask(ls.session.references, params.text_document.uri, ls.cursor(params.position),
                        params.context.include_declaration, then=functools.partial(_locations, ls))


def _locations(ls: HloLanguageServer, found: Answer[list[Location]]) -> list[types.Location]:
    return convert.locations(found.value, ls.resolver(found), ls.positions)


async def highlight(ls: HloLanguageServer,
                    params: types.DocumentHighlightParams) -> list[types.DocumentHighlight] | None:
    def converted(found: Answer[list[Highlight]]) -> list[types.DocumentHighlight]:
        return [convert.highlight(place, ls.positions, found.document) for place in found.value]

    return await ls.ask(ls.session.highlights, params.text_document.uri, ls.cursor(params.position), then=converted)


async def hover(ls: HloLanguageServer, params: types.HoverParams) -> types.Hover | None:
    return await ls.ask(ls.session.hover, params.text_document.uri, ls.cursor(params.position),
                        then=lambda found: convert.hover(found.value, ls.positions, found.document, markdown(ls)))


def markdown(ls: HloLanguageServer) -> bool:
    text_document = ls.client_capabilities.text_document
    formats = text_document.hover.content_format if text_document and text_document.hover else None
    return formats is None or types.MarkupKind.Markdown in formats


async def prepare_call_hierarchy(ls: HloLanguageServer, params: types.CallHierarchyPrepareParams
                                 ) -> list[types.CallHierarchyItem] | None:
    def converted(found: Answer[list[CallItem]]) -> list[types.CallHierarchyItem] | None:
        return [convert.call_hierarchy_item(item, ls.resolver(found), ls.positions) for item in found.value] or None

    return await ls.ask(ls.session.call_items, params.text_document.uri, ls.cursor(params.position), then=converted)


async def incoming_calls(ls: HloLanguageServer, params: types.CallHierarchyIncomingCallsParams
                         ) -> list[types.CallHierarchyIncomingCall] | None:
    return await ls.answered(
        lambda found: [convert.incoming_call(call, ls.resolver(found), ls.positions) for call in found.value],
        ls.session.calls, ls.uris.source_of(params.item.uri), params.item.name, True)


async def outgoing_calls(ls: HloLanguageServer, params: types.CallHierarchyOutgoingCallsParams
                         ) -> list[types.CallHierarchyOutgoingCall] | None:
    return await ls.answered(
        lambda found: [convert.outgoing_call(call, found.document.source, ls.resolver(found), ls.positions)
                       for call in found.value],
        ls.session.calls, ls.uris.source_of(params.item.uri), params.item.name, False)


HANDLERS = {
    types.TEXT_DOCUMENT_DEFINITION: definition,
    types.TEXT_DOCUMENT_DECLARATION: declaration,
    types.TEXT_DOCUMENT_REFERENCES: references,
    types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT: highlight,
    types.TEXT_DOCUMENT_HOVER: hover,
    types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY: prepare_call_hierarchy,
    types.CALL_HIERARCHY_INCOMING_CALLS: incoming_calls,
    types.CALL_HIERARCHY_OUTGOING_CALLS: outgoing_calls,
}

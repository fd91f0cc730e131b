"""What a file holds, read from its text alone: the outline, workspace symbols, folds, semantic tokens.
An answer cut to a bound says so once per file (`tell_once`)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from lsprotocol import types

from hlo_lsp.lsp import convert
from hlo_lsp.lsp.language_server import HloLanguageServer
from hlo_lsp.session import TOKEN_MODIFIERS, TOKEN_TYPES, Answer, Document, Token, WorkspaceSymbol, module_stem

SEMANTIC_TOKENS_LEGEND = types.SemanticTokensLegend(list(TOKEN_TYPES), list(TOKEN_MODIFIERS))


async def document_symbol(ls: HloLanguageServer, params: types.DocumentSymbolParams) -> list[Any] | None:
    uri, limit = params.text_document.uri, ls.settings.outline_max_symbols
    found = await ls.ask(ls.session.outline, uri, limit, then=lambda found: (
        convert.outline(found.value[0], uri, ls.positions, found.document, hierarchical(ls)), found.value[1]))
    if found is None:
        return None
    tell_once(ls, "outline", uri, limit, found[1], "The outline of {name} lists {bound:,} of its {total:,} "
              "symbols (an HLO module's ENTRY computation first). The setting hlo.outline.maxSymbols sets how many.")
    return found[0]


def hierarchical(ls: HloLanguageServer) -> bool:
    text_document = ls.client_capabilities.text_document
    symbols = text_document.document_symbol if text_document else None
    return bool(symbols and symbols.hierarchical_document_symbol_support)


async def workspace_symbol(ls: HloLanguageServer, params: types.WorkspaceSymbolParams
                           ) -> list[types.SymbolInformation]:
    found = await ls.answered(lambda symbols: _workspace_symbols(ls, symbols), ls.session.workspace_symbols,
                              params.query, ls.workspace_roots())
    return found or []


def _workspace_symbols(ls: HloLanguageServer, symbols: list[WorkspaceSymbol]) -> list[types.SymbolInformation]:
    """The symbols with their files' URIs. The columns of a file of an open module are converted with its text;
    a file no one opened is not read for it: a name's columns are the same in every encoding where the text
    before it on its line is ASCII, as in every dump XLA writes."""
    open_modules = {module_stem(source) for source in ls.session.open_sources()}

    def resolve(source: str) -> tuple[str, Document | None]:
        document = ls.session.document(source) if module_stem(source) in open_modules else None
        return ls.uris.uri_of(source), document

    return [convert.workspace_symbol(symbol, resolve, ls.positions) for symbol in symbols]


async def folding_range(ls: HloLanguageServer, params: types.FoldingRangeParams) -> list[types.FoldingRange] | None:
    text_document = ls.client_capabilities.text_document
    limit = text_document.folding_range.range_limit if text_document and text_document.folding_range else None
    found = await ls.ask(ls.session.folds, params.text_document.uri, limit,
                         then=lambda found: ([convert.folding_range(fold) for fold in found.value[0]], found.value[1]))
    if found is None:
        return None
    tell_once(ls, "folds", params.text_document.uri, limit, found[1], "{name} has {total:,} folding regions; the "
              "editor takes {bound:,}, the outermost are given (in VS Code: the setting editor.foldingMaximumRegions).")
    return found[0]


def tell_once(ls: HloLanguageServer, answer: str, uri: str, bound: int | None, total: int, message: str) -> None:
    """Says once per answer, file and bound that the answer gives only part of what the file has
    (`message`, with the file's {name}, the {bound} and the {total})."""
    if bound is None or total <= bound or (answer, uri, bound) in ls.cuts_told:
        return
    ls.cuts_told.add((answer, uri, bound))
    told = message.format(name=uri.rsplit("/", 1)[-1], bound=bound, total=total)
    ls.window_show_message(types.ShowMessageParams(types.MessageType.Info, told))


async def semantic_tokens_full(ls: HloLanguageServer, params: types.SemanticTokensParams
                               ) -> types.SemanticTokens | None:
    return await ls.ask(ls.session.tokens, params.text_document.uri, then=functools.partial(_tokens, ls))


async def semantic_tokens_range(ls: HloLanguageServer, params: types.SemanticTokensRangeParams
                                ) -> types.SemanticTokens | None:
    return await ls.ask(ls.session.tokens, params.text_document.uri, ls.span(params.range),
                        then=functools.partial(_tokens, ls))


def _tokens(ls: HloLanguageServer, found: Answer[Iterable[Token]]) -> types.SemanticTokens:
    return convert.semantic_tokens(found.value, ls.positions, found.document)


HANDLERS = {
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: document_symbol,
    types.WORKSPACE_SYMBOL: workspace_symbol,
    types.TEXT_DOCUMENT_FOLDING_RANGE: folding_range,
    types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL: (semantic_tokens_full, SEMANTIC_TOKENS_LEGEND),
    types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE: (semantic_tokens_range, SEMANTIC_TOKENS_LEGEND),
}

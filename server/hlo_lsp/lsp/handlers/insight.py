"""Memory insight in the editor: inlay hints, code lenses (and the command of those that list buffers),
links to the Python source, the memory timeline command (`hlo.memoryTimeline`), the comparison of two dumps
(`hlo.compare`) and the modules of a dump folder (`hlo.listModules`)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from hlo_lsp.lsp import compare_json, convert, memory_json, modules_json
from hlo_lsp.lsp.language_server import HloLanguageServer
from hlo_lsp.lsp.progress import shown_while

MEMORY_TIMELINE = "hlo.memoryTimeline"
COMPARE = "hlo.compare"
LIST_MODULES = "hlo.listModules"


async def inlay_hint(ls: HloLanguageServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
    if not ls.settings.inlay_hints:
        return []
    return await ls.ask(ls.session.inlay_hints, params.text_document.uri, ls.span(params.range), then=lambda found: [
        convert.inlay_hint(hint, ls.positions, found.document) for hint in found.value])


async def code_lens(ls: HloLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    uri = params.text_document.uri
    return await ls.ask(ls.session.code_lenses, uri, False, then=lambda found: [
        convert.code_lens(lens, uri, ls.positions, found.document) for lens in found.value])


async def code_lens_resolve(ls: HloLanguageServer, params: types.CodeLens) -> types.CodeLens:
    """The command of a lens that lists places (its data: the document's URI and the lens' title), from the
    lenses of the document as it is now; a lens no longer there keeps its title alone."""
    uri, title = convert.lens_data(params)
    if uri is None or title is None:
        return params
    resolved = await ls.answered(
        lambda found: convert.resolved_code_lens(found.value, uri, ls.resolver(found), ls.positions, found.document),
        ls.session.lens, ls.uris.source_of(uri), title, ls.span(params.range))
    return resolved or types.CodeLens(range=params.range, command=types.Command(title=title, command=""))


def show_peak_buffers(ls: HloLanguageServer, *arguments: Any) -> Any:
    """The lens `N buffers live at peak` runs this with (uri, position, locations). Editors map it to their
    references list (VS Code: editor.action.showReferences); run here, it answers the locations it was given."""
    return arguments[2] if len(arguments) > 2 else []


async def document_link(ls: HloLanguageServer, params: types.DocumentLinkParams) -> list[types.DocumentLink] | None:
    text_document = ls.client_capabilities.text_document
    tooltips = bool(text_document and text_document.document_link and text_document.document_link.tooltip_support)
    return await ls.ask(ls.session.links, params.text_document.uri, ls.workspace_roots(), then=lambda found: [
        convert.document_link(link, ls.positions, found.document, tooltips) for link in found.value])


async def memory_timeline(ls: HloLanguageServer, *arguments: Any) -> dict[str, object] | None:
    """Argument: the URI of any file of a module (or `{"uri": ..., "space": "vmem"}`: a memory space by
    name or color, default the default space). Answer: the peak, the buffers live at it with the URI and
    range of their instruction, usage over the schedule, fragmentation, every space's figures and the SVG
    picture (lsp/memory_json.py); null when the module has no live ranges or no such space."""
    uri, space = convert.timeline_arguments(arguments)
    if uri is None:
        first = arguments[0] if arguments else None
        raise JsonRpcInvalidParams(f"{MEMORY_TIMELINE} takes the URI of a dump file, not {first!r}")
    return await ls.answered(lambda found: memory_json.timeline_json(
        found, lambda place: convert.location_json(place, ls.resolve, ls.positions)),
        ls.session.memory_timeline, ls.uris.source_of(uri), space)


async def compare(ls: HloLanguageServer, *arguments: Any) -> dict[str, object] | None:
    """Arguments: the URIs of A and B, each a dump folder or any file of a module. Answer: what `hlo-lsp diff
    --format json` prints (lsp/compare_json.py), with each pair's picture; read from disk."""
    if len(arguments) != 2 or not all(isinstance(uri, str) for uri in arguments):
        raise JsonRpcInvalidParams(f"{COMPARE} takes two URIs (a dump folder or a file of each), not {arguments!r}")
    return await ls.answered(lambda found: compare_json.comparison_json(
        found, lambda place: convert.location_json(place, ls.resolve, ls.positions), ls.session.compare_svg),
        ls.session.compare, [ls.uris.source_of(arguments[0])], [ls.uris.source_of(arguments[1])])


async def list_modules(ls: HloLanguageServer, *arguments: Any) -> dict[str, object] | None:
    """Argument: a folder's URI (none: every workspace folder). Answer: its modules, one per compilation, the
    largest peak first (lsp/modules_json.py: what `hlo-lsp modules --format json` prints); read from disk, with a
    progress bar when it lasts. The client hears `hlo/modulesChanged` when dump files change on disk."""
    if arguments and not isinstance(arguments[0], str):
        raise JsonRpcInvalidParams(f"{LIST_MODULES} takes a folder's URI, or nothing, not {arguments[0]!r}")
    folders = [ls.uris.source_of(arguments[0])] if arguments else list(ls.workspace_roots())
    return await shown_while(ls, "Listing modules", lambda report: ls.answered(
        lambda listed: modules_json.modules_json(listed.rows), ls.session.list_modules, folders, "peak", report),
        _listed)


def _listed(answer: dict[str, object] | None) -> str:
    modules = answer.get("modules") if answer is not None else None
    return f"{len(modules)} module(s)" if isinstance(modules, list) else "listed"


HANDLERS = {
    types.TEXT_DOCUMENT_INLAY_HINT: inlay_hint,
    types.TEXT_DOCUMENT_CODE_LENS: (code_lens, types.CodeLensOptions(resolve_provider=True)),
    types.CODE_LENS_RESOLVE: code_lens_resolve,
    types.TEXT_DOCUMENT_DOCUMENT_LINK: document_link,
}
COMMANDS = {convert.SHOW_PEAK_BUFFERS: show_peak_buffers, MEMORY_TIMELINE: memory_timeline, COMPARE: compare,
            LIST_MODULES: list_modules}

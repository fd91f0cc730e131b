"""The client's settings: applied as they come, pulled where the client only says they changed."""

from __future__ import annotations

import logging
from collections.abc import Callable

from lsprotocol import types

from hlo_lsp.lsp.language_server import HloLanguageServer

log = logging.getLogger("hlo_lsp")


def did_change_configuration(ls: HloLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    """Applied before the next message is read (so the next request sees it); refreshing and pulling
    the section (VS Code's pull model sends no settings) wait for the client in the background."""
    if isinstance(params.settings, dict) and "hlo" in params.settings:
        if _changes_inlay_hints(ls, lambda: ls.settings.apply_settings(params.settings)):
            ls.in_background(_refresh_inlay_hints(ls))
    else:
        ls.in_background(pull_settings(ls))


async def pull_settings(ls: HloLanguageServer) -> None:
    """Reads the client's `hlo` configuration section, if the client offers workspace/configuration."""
    workspace = ls.client_capabilities.workspace
    if not (workspace and workspace.configuration):
        return
    try:
        sections = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="hlo")]))
    except Exception as error:  # the client could not answer: keep the settings as they are
        log.info("workspace/configuration: %s", error)
        return
    if sections and _changes_inlay_hints(ls, lambda: ls.settings.apply_section(sections[0])):
        await _refresh_inlay_hints(ls)


def _changes_inlay_hints(ls: HloLanguageServer, apply: Callable[[], object]) -> bool:
    """Applies settings; whether the inlay hints' own setting changed (other settings need no refresh)."""
    hints = ls.settings.inlay_hints
    apply()
    ls.session.check_process_from = ls.settings.check_process_from
    return ls.settings.inlay_hints != hints


async def _refresh_inlay_hints(ls: HloLanguageServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace and workspace.inlay_hint and workspace.inlay_hint.refresh_support:
        try:
            await ls.workspace_inlay_hint_refresh_async(None)
        except Exception as error:
            log.info("workspace/inlayHint/refresh: %s", error)


HANDLERS = {types.WORKSPACE_DID_CHANGE_CONFIGURATION: did_change_configuration}

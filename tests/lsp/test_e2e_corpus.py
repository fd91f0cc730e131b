"""The shared corpus and the other producers' dumps over stdio, as VS Code and as Neovim: open one file
of each module and the server publishes empty diagnostics for every file of that module (these are
untouched real dumps)."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from helpers.lsp import all_diagnostics, close_file, forget_diagnostics, open_file
from hlo_lsp.model.dump_module import module_stem
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind, kind_from_name
from hlo_lsp.workspace.loader import load

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

PER_MODULE_SECONDS = 60  # the largest module (6 MB in three files) takes a few seconds
WHOLE_CORPUS_SECONDS = 100  # per client profile: the sweep must stay cheap enough to run every time


def corpus_modules(corpus: Path) -> dict[str, list[Path]]:
    """The corpus's dump files grouped by module, as hlo_lsp.model.dump_module.module_stem groups them."""
    modules: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(corpus.rglob("*.txt")):
        if path.name != "MANIFEST.txt" and detect_kind(path.name, path.read_text()).is_dump:
            modules[module_stem(str(path))].append(path)
    return dict(modules)


def file_to_open(paths: list[Path]) -> Path:
    """The module's HLO file when it has one (what a user opens first), else its only file."""
    return next((path for path in paths if kind_from_name(path.name) is FileKind.HLO_MODULE), paths[0])


@pytest.mark.parametrize("folder", ["corpus", "producers"])
async def test_every_module_of_the_corpus_has_no_diagnostics(client: LanguageClient, corpus: Path, folder: str) -> None:
    corpus = corpus.parent / folder
    if not corpus.is_dir():
        pytest.skip(f"the shared {folder} are not beside the project ({corpus})")
    modules = corpus_modules(corpus)
    assert len(modules) == len(load([str(corpus)]).modules)  # the same modules `hlo-lsp check` finds
    started = time.monotonic()
    problems: dict[str, list[str]] = {}
    for paths in modules.values():
        uris = [path.as_uri() for path in paths]
        opened = file_to_open(paths)
        forget_diagnostics(client, uris)
        open_file(client, opened)
        published = await all_diagnostics(client, uris, timeout=PER_MODULE_SECONDS)
        for path, uri in zip(paths, uris):
            if published[uri]:
                problems[str(path.relative_to(corpus))] = [
                    f"{d.range.start.line + 1}:{d.range.start.character + 1} {d.code}: {d.message}"
                    for d in published[uri]]
        close_file(client, opened)  # keeps the server's open modules (and workspace symbols) small
    assert problems == {}
    assert time.monotonic() - started < WHOLE_CORPUS_SECONDS

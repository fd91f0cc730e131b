"""Diagnostics over stdio: a planted overlap is reported on both values and cleared by the fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import DATA, SPLIT_CONTROL_FLOW, SPLIT_MLP, copy_module
from helpers.lsp import all_diagnostics, close_file, edit_and_check, open_and_check, open_file, position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT = SPLIT_MLP
MOVED = "<69 reduce_log_fusion @0> (size=128,offset=0)"
ORIGINAL = "<69 reduce_log_fusion @0> (size=128,offset=128)"


def planted_copy(tmp_path: Path) -> Path:
    """The split mlp3 module copied, with reduce_log_fusion moved onto add_reduce_fusion."""
    for source in SPLIT.parent.glob(SPLIT.name + "*"):
        shutil.copyfile(source, tmp_path / source.name)
    ba = tmp_path / (SPLIT.name + "-buffer-assignment.txt")
    ba.write_text(ba.read_text().replace(ORIGINAL, MOVED))
    return ba


async def test_planted_overlap_is_an_error_on_both_values_and_the_fix_clears_it(
        client: LanguageClient, tmp_path: Path) -> None:
    ba = planted_copy(tmp_path)
    diagnostics = await open_and_check(client, ba)
    errors = sorted((d for d in diagnostics if d.code == "overlapping-values"), key=lambda d: d.range.start.line)
    add_line = position_of(ba, "<68 add_reduce_fusion @0>", "<").line
    log_line = position_of(ba, MOVED, "<").line
    assert [(d.range.start.line, d.severity, d.source) for d in errors] == [
        (add_line, types.DiagnosticSeverity.Error, "hlo-lsp"), (log_line, types.DiagnosticSeverity.Error, "hlo-lsp")]
    assert errors[0].message.startswith("add_reduce_fusion overlaps reduce_log_fusion in allocation 14")
    related = errors[0].related_information
    assert related is not None and related[0].location.uri == ba.as_uri()
    assert related[0].location.range.start.line == log_line
    assert related[1].location.uri == ba.with_name(SPLIT.name + "-live-range.txt").as_uri()

    offset = position_of(ba, MOVED, "offset=0")
    fix = types.Range(types.Position(offset.line, offset.character + len("offset=")),
                      types.Position(offset.line, offset.character + len("offset=0")))
    assert await edit_and_check(client, ba.as_uri(), 2, fix, "128") == []


async def test_companion_files_get_diagnostics_too(client: LanguageClient, tmp_path: Path) -> None:
    ba = planted_copy(tmp_path)
    live = ba.with_name(SPLIT.name + "-live-range.txt")
    live.write_text(live.read_text().replace("    ynn_fusion.1{}:9-10", "    ynn_fusion.77{}:9-10"))
    diagnostics = await open_and_check(client, ba, watch=live)
    assert ("unknown-live-range-name", types.DiagnosticSeverity.Error) in {(d.code, d.severity) for d in diagnostics}


@pytest.mark.parametrize("module", [
    DATA / "jax-0.10.2" / "control_flow" / "module_0000.jit_f.cpu_after_optimizations",
    DATA / "jax-0.4.38" / "control_flow" / "module_0001.jit_f.cpu_after_optimizations",
])
async def test_no_diagnostics_on_untouched_real_dumps(client: LanguageClient, module: Path) -> None:
    for path in sorted(module.parent.glob(module.name + "*")):
        assert await open_and_check(client, path) == [], path.name


async def test_no_diagnostics_on_the_seeds(client: LanguageClient) -> None:
    for path in sorted((DATA / "seeds").glob("*.txt")):
        assert await open_and_check(client, path) == [], path.name


async def test_a_module_that_stops_pairing_keeps_its_problems_when_its_buffer_assignment_opens(
        client: LanguageClient, tmp_path: Path) -> None:
    """An HLO file whose names are no longer those its buffer assignment names (here: another module's
    text, with a mis-typed `}`) does not pair with it: each side is checked on its own, and the HLO
    file's problems stay published (they vanished when the buffer assignment was opened)."""
    stem = copy_module(SPLIT, tmp_path)
    hlo = Path(f"{stem}.txt")
    lines = Path(f"{SPLIT_CONTROL_FLOW}.txt").read_text().split("\n")
    closing = next(number for number, text in enumerate(lines) if text == "}")
    lines[closing] = "]"
    hlo.write_text("\n".join(lines[1:]))  # and the HloModule line deleted
    alone = await open_and_check(client, hlo)
    assert alone and all(d.severity == types.DiagnosticSeverity.Error for d in alone)
    ba = Path(f"{stem}-buffer-assignment.txt")
    client.diagnostics.pop(hlo.as_uri(), None)
    open_file(client, ba)
    both = await all_diagnostics(client, [hlo.as_uri(), ba.as_uri()])
    assert sorted(key(d) for d in both[hlo.as_uri()]) == sorted(key(d) for d in alone)
    assert [d.code for d in both[ba.as_uri()]] == []  # its names are its own module's: nothing to say
    close_file(client, hlo)
    close_file(client, ba)


def key(diagnostic: types.Diagnostic) -> tuple[int, int, str, str]:
    return diagnostic.range.start.line, diagnostic.range.start.character, str(diagnostic.code), diagnostic.message

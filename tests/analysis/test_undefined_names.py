"""hlo-structure's names that resolve nowhere, read at a template's places: a line of a template read before has its
names read where its template has them, without a Ref each; what it finds is what reading each line finds."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import COMBINED_MLP, SPLIT_MLP
from helpers.paths import DATA
from hlo_lsp.analysis.checks import hlo_structure
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing import scanners
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import KnownUses

CONTROL_FLOW = DATA / "jax-0.10.2" / "control_flow" / "module_0000.jit_f.cpu_after_optimizations"
DUMPS = [Path(f"{SPLIT_MLP}.txt"), Path(f"{COMBINED_MLP}.txt"), Path(f"{CONTROL_FLOW}.txt")]
# A name a line uses (an operand, a called computation) and a stack frame's id: a digit of it changed keeps the
# line's template (digits read alike), so the line is read at its template's places.
_USED_NAME = re.compile(r"(?:[(,{ ]%|calls=%?|to_apply=%?|stack_frame_id=)[A-Za-z_.\-0-9]*?([0-9])")


def undefined(text: str) -> list[tuple[object, ...]]:
    """What the check says of the text: each problem's place, severity, code and message."""
    document = Document(text, FileKind.HLO_MODULE, "m.cpu_after_optimizations.txt")
    module = ModuleDump("m", {FileKind.HLO_MODULE: document})
    return [(p.range, p.severity, p.code, p.message) for p in hlo_structure.check(CheckContext(module))]


def read_line_by_line(text: str) -> list[tuple[object, ...]]:
    """The same, every line's uses read as Refs (no template's places)."""
    with mock.patch.object(scanners, "HLO", dataclasses.replace(scanners.HLO, lines_uses=None)):
        return undefined(text)


def known_lines(text: str) -> set[int]:
    """The lines whose uses are read at their template's places."""
    document = Document(text, FileKind.HLO_MODULE, "m.cpu_after_optimizations.txt")
    return {start + local for start, chunk in document.chunks_with_starts()
            for local, uses in enumerate(chunk.uses_in_passing()) if isinstance(uses, KnownUses)}


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_name_read_at_its_template_s_place_resolves_as_read_from_its_line(data: st.DataObject) -> None:
    """Real dumps with a digit of a used name changed (now undefined, defined below, in another computation, or
    another name defined above) or two lines swapped (a use above its definition): the same problems either way."""
    text = data.draw(st.sampled_from(DUMPS), label="dump").read_text()
    assert undefined(text) == []  # (and their templates read)
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        number = data.draw(st.sampled_from([n for n, line in enumerate(lines) if _USED_NAME.search(line)]),
                           label="line")
        if data.draw(st.booleans(), label="swap with the line above"):
            lines[number - 1], lines[number] = lines[number], lines[number - 1]
            continue
        digits = [match.start(1) for match in _USED_NAME.finditer(lines[number])]
        at = data.draw(st.sampled_from(digits), label="digit")
        digit = data.draw(st.sampled_from("0123456789"), label="new digit")
        lines[number] = lines[number][:at] + digit + lines[number][at + 1 :]
    changed = "\n".join(lines)
    assert undefined(changed) == read_line_by_line(changed)


def test_an_operand_undefined_on_a_line_of_a_known_template_is_found_there() -> None:
    """An operand's digit changed so that it names nothing: its line is read at its template's places, and the
    problem is on that line, at that operand."""
    text = Path(f"{SPLIT_MLP}.txt").read_text()
    undefined(text)
    lines = text.split("\n")
    number, match, name = next((number, match, match[1][:-1] + digit) for number, line in enumerate(lines)
                               for match in [re.search(r"\((%[A-Za-z_.\-0-9]*[0-9])[,)]", line)] if match
                               for digit in "0123456789" if f"{match[1][:-1] + digit} = " not in text)
    lines[number] = lines[number][: match.start(1)] + name + lines[number][match.end(1) :]
    changed = "\n".join(lines)
    assert number in known_lines(changed)
    problems = undefined(changed)
    assert [(where.start.line, where.start.character, code) for where, _, code, _ in problems] == \
        [(number, match.start(1) + 1, "undefined-instruction")]
    assert problems == read_line_by_line(changed)

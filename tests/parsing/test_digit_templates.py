"""A line read through its template (a line like it, digits aside, read before) reads as the line read
itself: its scan, and the names it uses with their places."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.paths import CORPUS, DUMP_FILES
from hlo_lsp.parsing.digit_templates import digits_as_zero, forget_templates, templates_kept
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from hlo_lsp.parsing.hlo_scanner import COMP, TOP, hlo_line_uses, scan_hlo_line
from hlo_lsp.parsing.line_scan import State

# Lines a dump seldom holds, in a module: comments, strings, an opcode with a digit, several items on a
# line, a line end of \r, names in strings, a name outside ASCII.
TRICKY = """HloModule tricky_1, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY %main.12 (p.1: f32[4]) -> f32[4] {
  %p.1 = f32[4]{0} parameter(0)
  %a.2 = f32[4]{0} atan2(f32[4]{0} %p.1, f32[4]{0} %p.1)
  %c.3 = s32[2]{0} constant({1, 23})
  %b.4 = f32[4]{0} abs(%p.1 /* 12 */), metadata={op_name="jit(f)/calls=x.5" stack_frame_id=12}
  %d.5 = f32[4]{0} add(%p.1, %a.2), control-predecessors={%b.4}, // note 7
  q.6 = f32[4] negate(p.1)\r
  e.7 = f32[4] multiply(q.6, negate(p.1)), sharding={devices=[2,1]0,1}
  r.8 = f32[] parameter(1) s.9 = f32[] abs(r.8)
  f.10 = f32[4]{0} fusion(p.1), kind=kLoop, calls=fused.11, backend_config={"a": 1, "b": "x2"}
  g.11 = f32[4]{0} abs(p.1), metadata={op_name="\u00e91"}
  ROOT %t.12 = f32[4]{0} add(f32[4]{0} %d.5, f32[4]{0} %e.7)
}
"""


def _hlo_texts() -> Iterator[tuple[str, str]]:
    yield "tricky", TRICKY
    paths = [*DUMP_FILES, *(sorted(CORPUS.rglob("*.txt")) if CORPUS.is_dir() else [])]
    for path in paths:
        text = path.read_text(errors="replace")
        if detect_kind(path.name, text) is FileKind.HLO_MODULE:
            yield str(path), text


def _lines_by_template() -> list[tuple[str, State, str]]:
    """One line of each (entering state, template) of every HLO text, with the state the line is read in."""
    seen: set[tuple[State, bytes]] = set()
    found = []
    for source, text in _hlo_texts():
        state: State = TOP
        for line in text.split("\n"):
            key = (state, digits_as_zero(line))
            if key not in seen:
                seen.add(key)
                found.append((source, state, line))
            state = scan_hlo_line(state, line).end_state
    return found


def _other_digits(line: str) -> str:
    """The line with each digit another: the same template."""
    return "".join(str((int(char) + 7) % 10) if char in "0123456789" else char for char in line)


def test_a_line_reads_through_its_template_as_it_reads_itself() -> None:
    through_template = 0
    for source, state, line in _lines_by_template():
        forget_templates()
        itself = scan_hlo_line(state, line)
        uses = hlo_line_uses(line, itself)
        forget_templates()
        sibling = _other_digits(line)
        hlo_line_uses(sibling, scan_hlo_line(state, sibling))
        through_template += templates_kept() > 0
        again = scan_hlo_line(state, line)
        assert again == itself, (source, line)
        assert hlo_line_uses(line, again) == uses, (source, line)
    assert through_template >= 20, f"{through_template} lines read through a template: the test reads little"


@pytest.mark.parametrize("line", ["  %a.2 = f32[4]{0} atan2(f32[4]{0} %p.1, f32[4]{0} %p.1)",
                                  "  %a.2 = f32[4]{0} atan3(f32[4]{0} %p.1, f32[4]{0} %p.1)"])
def test_an_opcode_with_a_digit_is_read_from_the_line_not_the_template(line: str) -> None:
    forget_templates()
    scan_hlo_line(COMP, _other_digits(line))
    assert templates_kept() == 1
    assert scan_hlo_line(COMP, line).data[3] == line.split("(")[0].split()[-1]


def test_a_full_cache_starts_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from hlo_lsp.parsing import digit_templates

    monkeypatch.setattr(digit_templates, "TEMPLATES_KEPT", 3)
    forget_templates()
    for number in range(3):
        scan_hlo_line(COMP, f"  v{'x' * number} = f32[] abs(p)")
    assert templates_kept() == 3
    scan_hlo_line(COMP, "  w = f32[] abs(p)")
    assert templates_kept() == 1


def test_what_a_line_uses_follows_where_its_scan_puts_the_opcode() -> None:
    line = "  v.1 = f32[4]{0} add(p.2, q.3), to_apply=f.4"
    forget_templates()
    scan = scan_hlo_line(COMP, _other_digits(line))
    hlo_line_uses(_other_digits(line), scan)
    elsewhere = scan._replace(data=(*scan.data[:2], line.index("f.4") - 4, "add", False))  # `(` read after `f.4`
    forget_templates()
    assert hlo_line_uses(line, elsewhere) != hlo_line_uses(line, scan)
    hlo_line_uses(_other_digits(line), scan)  # the template learned with the opcode where the line's scan puts it
    known = hlo_line_uses(line, elsewhere)
    forget_templates()
    assert known == hlo_line_uses(line, elsewhere)

"""Element types: XLA's parser rejects a shape whose element type it does not know (`s3[]`, `F32[4]`,
`tuple[]`), wherever the shape is, and the check says so on the type, whatever lines were read before."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.dumps import problems_of
from helpers.paths import TPU_STEP
from hlo_lsp.model.sizes import element_bits
from hlo_lsp.parsing.element_types import ELEMENT_TYPES, element_type_spans
from hlo_lsp.problems import Severity

_MESSAGE = ("`{}` is not an element type: XLA's are pred, s1-s64, u1-u64, f16, bf16, f32, f64, c64, c128, "
            "the f8 and f4 types (f8e4m3fn, f8e5m2, ...), token and opaque")


def _check(tmp_path: Path, text: str) -> list[tuple[int, int, int, Severity, str, str]]:
    path = tmp_path / "m.hlo"
    path.write_text(text)
    return [(p.range.start.line, p.range.start.character, p.range.end.character, p.severity, p.code, p.message)
            for p in problems_of(path)]


def test_every_type_a_size_is_known_for_is_an_element_type() -> None:
    assert {name for name in ELEMENT_TYPES if element_bits(name) is not None} == ELEMENT_TYPES - {"token", "opaque"}


def test_an_unknown_element_type_is_an_error_on_its_name(tmp_path: Path) -> None:
    text = "HloModule m\n\nENTRY e {\n  ROOT q = s3[] parameter(0)\n}\n"
    assert _check(tmp_path, text) == [(3, 11, 13, Severity.ERROR, "syntax", _MESSAGE.format("s3"))]


def test_a_line_of_a_known_template_with_an_unknown_type_gets_its_error(tmp_path: Path) -> None:
    # s4 and s3 lines read alike with their digits as 0: the first one's verdict must not stand for the second's
    text = "HloModule m\n\nENTRY e {\n  p = s4[] parameter(0)\n  q = s3[] parameter(1)\n  ROOT t = (s4[]) tuple(p)\n}\n"
    assert _check(tmp_path, text) == [(4, 6, 8, Severity.ERROR, "syntax", _MESSAGE.format("s3"))]


@pytest.mark.parametrize(("line", "name"), [
    ("ROOT t = (f32[4], F32[4]) tuple(p, p)", "F32"),
    ("ROOT q = f32[4] add(u3[4] p, f32[4] p)", "u3"),
    ("%v=F32[4] abs(p)", "F32"),
    ('ROOT c = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={f3[4]{0}}', "f3"),
])
def test_an_unknown_element_type_inside_an_instruction_is_an_error(tmp_path: Path, line: str, name: str) -> None:
    text = f"HloModule m\n\nENTRY e {{\n  p = f32[4] parameter(0)\n  {line}\n}}\n"
    found = [problem for problem in _check(tmp_path, text) if problem[4] == "syntax"]
    start = line.index(f"{name}[") + 2
    assert found == [(4, start, start + len(name), Severity.ERROR, "syntax", _MESSAGE.format(name))]


def test_tuple_is_no_element_type(tmp_path: Path) -> None:
    text = "HloModule m\n\nENTRY e {\n  ROOT q = tuple[] parameter(0)\n}\n"
    message = "`tuple[...]` is no shape: a tuple is written `(shape, ...)`"
    assert _check(tmp_path, text) == [(3, 11, 16, Severity.ERROR, "syntax", message)]


def test_brackets_in_strings_comments_raw_braces_and_replica_group_meshes_name_no_type() -> None:
    line = ("  r = f32[4] all-reduce(p), replica_groups=mesh['a'=2] {'a'}, backend_config={x[1] \"y[2]\"}, "
            'metadata={op_name="s3[1]"} /* u3[1] */ // f3[1]')
    assert [line[start:end] for start, end in element_type_spans(line)] == ["f32"]


def test_a_real_tpu_dump_with_replica_group_meshes_reads_clean() -> None:
    assert "mesh[" in Path(f"{TPU_STEP}.txt").read_text()
    assert [p for p in problems_of(Path(f"{TPU_STEP}.txt")) if p.code == "syntax"] == []

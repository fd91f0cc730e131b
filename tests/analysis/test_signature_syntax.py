"""A computation's signature as XLA's lexer reads it: a parameter's name takes its colon glued (`p:`),
or none (`p f32[4]`); in `p : f32[4]` the colon is a stray token (XLA: expected primitive type, saw
kColon), and so is the colon of `%p:` (the `%` name ends before it). Each text was run through XLA's parser."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import problems_of
from hlo_lsp.problems import Severity


def _module(signature: str) -> str:
    return (f"HloModule m\n\nENTRY e {signature} -> f32[4] {{\n  p = f32[4] parameter(0)\n"
            "  q = f32[] parameter(1)\n  ROOT v = f32[4] abs(p)\n}\n")


@pytest.mark.parametrize("signature", ["(p : f32[4], q: f32[])", "(p: f32[4], %q:f32[])"])
def test_a_stray_colon_in_a_signature_is_a_syntax_error_at_the_colon(tmp_path: Path, signature: str) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(_module(signature))
    found = [problem for problem in problems_of(path) if problem.code == "syntax"]
    assert len(found) == 1 and found[0].severity is Severity.ERROR
    start = found[0].range.start
    assert (start.line, _module(signature).split("\n")[2][start.character]) == (2, ":")


@pytest.mark.parametrize("signature", ["(p: f32[4], q: f32[])", "(p f32[4], %q f32[])", "(p:f32[4], q:f32[])"])
def test_the_signatures_xla_accepts(tmp_path: Path, signature: str) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(_module(signature))
    assert [problem.message for problem in problems_of(path) if problem.severity is Severity.ERROR] == []

"""hlo-opcodes on async chains: each -update and -done takes one async op of its chain and agrees with its
start (see opcode_cases.py for what was run through XLA's parser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opcode_cases import NEGATE, module, one, opcode_problems

from helpers import problems_of

# ---- async chains ----------------------------------------------------------------------------------------------
START = "s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w"


@pytest.mark.parametrize(("body", "message", "underlined"), [
    (("ROOT d = f32[4] async-done(p)",), "AsyncUpdate and AsyncDone expect a single async op as their operand", "(p)"),
    ((START, "d = f32[4] async-done(s)", "ROOT e = f32[4] async-done(d)"),
     "AsyncUpdate and AsyncDone expect a single async op as their operand", "(d)"),
    ((START, "u = ((f32[4]), f32[4], u32[]) async-update(s)", "ROOT d = f32[4] async-done(u)"),
     "AsyncUpdate expects the op shape to be the same as the operand shape", "async-update"),
    ((START + ', async_execution_thread="a"', 'ROOT d = f32[4] async-done(s), async_execution_thread="b"'),
     "Expect async_execution_thread to be a, but got b", '"b"'),
    ((START, "ROOT d = f32[4] async-done(s), calls=v"), "Expect async_wrapped_computation to be w, but got v", "v"),
    (("s = ((f32[4]), f32[4], s32[]) negate-start(p)", "ROOT d = f32[4] abs-done(s)"),
     "Expect async wrapped opcode to be negate, but got abs", "abs-done"),
    ((START, "d = f32[4] async-done(s)", START.replace("s =", "t ="), "ROOT e = f32[4] async-done(t)"),
     "Computation w is called by more than one async op (first on line 15)", "w"),
    (("s = (f32[4], f32[4]) async-start(p), calls=w", "ROOT d = f32[4] async-done(s)"),
     "AsyncStart expects the op shape to be in the form of ((async-operands), async-outputs, state)", "async-start"),
])
def test_async_chains(tmp_path: Path, body: tuple[str, ...], message: str, underlined: str) -> None:
    found = one(tmp_path, module(*body, before=NEGATE + NEGATE.replace("w {", "v {")))
    assert found[1:] == ("async-chain", message, underlined)


def test_async_chains_xla_accepts(tmp_path: Path) -> None:
    text = module(START, "u = ((f32[4]{0}), f32[4], s32[]) async-update(s)", "d = f32[4] async-done(u), calls=w",
                  "n = ((f32[4]), f32[4], s32[]) negate-start(p)", "e = f32[4] negate-done(n)",
                  "t = ((f32[4]), f32[4], s32[]) async-start(p), calls=v", "f = f32[4] negate-done(t)",
                  "c = (f32[4], f32[4], u32[]) copy-start(p)", "ROOT g = f32[4] copy-done(c)",
                  before=NEGATE + NEGATE.replace("w {", "v {"))
    assert opcode_problems(tmp_path, text) == []


def test_an_async_start_shape_over_lines_reads_as_one(tmp_path: Path) -> None:
    # XLA accepts a block comment over lines inside the state's layout (as a TPU dump writes `s32[]{:S(2)}`)
    start = "s = ((f32[4]), f32[4], s32[]{/* a\n b */:S(2)}) async-start(p), calls=w"
    text = module(start, "ROOT d = f32[4] async-done(s)", before=NEGATE)
    assert opcode_problems(tmp_path, text) == []


@pytest.mark.parametrize(("body", "message", "underlined"), [
    (("a = f32[4] abs(p) ROOT d = f32[4] async-done(a)",),
     "AsyncUpdate and AsyncDone expect a single async op as their operand", "(a)"),
    ((START + " ROOT d = f32[4] async-done(s), calls=v",), "Expect async_wrapped_computation to be w, but got v", "v"),
    ((START + " d = f32[4] async-done(s)", "ROOT e = f32[4] async-done(d)"),
     "AsyncUpdate and AsyncDone expect a single async op as their operand", "(d)"),
])
def test_async_chains_on_lines_of_several_items(tmp_path: Path, body: tuple[str, ...], message: str,
                                                 underlined: str) -> None:
    """Each instruction of a line is one of the chain (XLA reads by name, not by line)."""
    found = one(tmp_path, module(*body, before=NEGATE + NEGATE.replace("w {", "v {")))
    assert found[1:] == ("async-chain", message, underlined)


def test_an_async_chain_on_lines_of_several_items_xla_accepts(tmp_path: Path) -> None:
    text = module("q = f32[4] negate(p) " + START, "ROOT d = f32[4] async-done(s), calls=w", before=NEGATE)
    assert opcode_problems(tmp_path, text) == []
    text = module(START + " ROOT d = f32[4] async-done(s), calls=w", before=NEGATE)
    assert opcode_problems(tmp_path, text) == []


def test_two_async_starts_without_calls_are_not_the_same_callers(tmp_path: Path) -> None:
    """Two `async-start`s that name no computation: the check looked for the value of `calls` they lack
    (StopIteration: an internal error)."""
    text = module("a = ((f32[4]), f32[4], u32[]) async-start(p)", "b = ((f32[4]), f32[4], u32[]) async-start(p)",
                  "ROOT t = (((f32[4]), f32[4], u32[]), ((f32[4]), f32[4], u32[])) tuple(a, b)")
    path = tmp_path / "m.hlo"
    path.write_text(text)
    assert [p.message for p in problems_of(path) if p.code == "internal-error"] == []


def test_an_async_start_without_calls(tmp_path: Path) -> None:
    # XLA: attribute calls is expected but not seen
    found = one(tmp_path, module("s = ((f32[4]), f32[4], s32[]) async-start(p)", "ROOT d = f32[4] async-done(s)"))
    assert found == (4, "missing-attribute", "attribute calls is expected but not seen (async-start requires it)",
                     "async-start")


def test_two_async_starts_of_one_name_without_calls(tmp_path: Path) -> None:
    # XLA: AsyncStart expects the op shape to be in the form of ((async-operands), async-outputs, state).
    problems = opcode_problems(tmp_path, module("s = f32[4] async-start(p)", "s = f32[4] async-start(p)"))
    assert {(p.range.start.line, p.code) for p in problems} == {
        (line, code) for line in (4, 5) for code in ("async-chain", "missing-attribute")}
    assert not [p for p in problems_of(tmp_path / "m.hlo") if p.code == "internal-error"]


def test_an_async_start_whose_opcode_is_below_its_name(tmp_path: Path) -> None:
    # XLA accepts: a comment may break the line anywhere between two tokens.
    text = module("s = /* a\n b */((f32[4]), f32[4], s32[]) async-start(p), calls=w", "ROOT d = f32[4] async-done(s)",
                  before=NEGATE)
    assert [p for p in opcode_problems(tmp_path, text) if p.code == "async-chain"] == []


def test_async_chains_over_lines(tmp_path: Path) -> None:
    """An opcode on the line below its instruction's name is read there (oracle sample text #5906, XLA:
    AsyncUpdate and AsyncDone expect a single async op as their operand)."""
    done_of_a_parameter = module("ROOT d = f32[4] async-done(q)", params=("q = f32[4] // c", "parameter(0)"))
    assert one(tmp_path, done_of_a_parameter)[1:] == (
        "async-chain", "AsyncUpdate and AsyncDone expect a single async op as their operand", "(q)")
    start_below = module("s = // c", "  ((f32[4]), f32[4], s32[]) async-start(p), calls=w",
                         "ROOT d = f32[4] async-done(s), calls=w", before=NEGATE)
    assert opcode_problems(tmp_path, start_below) == []  # XLA accepts

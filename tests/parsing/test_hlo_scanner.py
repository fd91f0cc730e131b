"""scan_hlo_line / hlo_line_uses on real lines of the three HLO print styles."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import (
    COMBINED_CONTROL_FLOW,
    COMBINED_MLP,
    GPU_HLO_SEED,
    HANDWRITTEN,
    SPLIT_CONTROL_FLOW,
    SPLIT_HLO,
)
from hlo_lsp.parsing.hlo_scanner import COMP, continued_end, goes_on_from_above, hlo_line_uses, scan_hlo_line
from hlo_lsp.parsing.hlo_scanner.lexing import string_end
from hlo_lsp.parsing.line_scan import LineScan, Role

COMBINED_MLP_HLO = Path(str(COMBINED_MLP) + ".txt")  # JAX 0.4.38: no `%`, `} // name`
SPLIT_CF_HLO = Path(str(SPLIT_CONTROL_FLOW) + ".txt")
COMBINED_CF_HLO = Path(str(COMBINED_CONTROL_FLOW) + ".txt")

Use = tuple[Role, str, int, int]


@functools.cache
def scanned(path: Path) -> tuple[tuple[str, LineScan], ...]:
    """Every line of `path` with its scan, each scanned in the state the previous one left."""
    state, out = "top", []
    for text in path.read_text().split("\n"):
        scan = scan_hlo_line(state, text)
        out.append((text, scan))
        state = scan.end_state
    return tuple(out)


def line(path: Path, needle: str) -> tuple[str, LineScan]:
    found = [(text, scan) for text, scan in scanned(path) if needle in text]
    assert len(found) == 1, f"{needle!r} is on {len(found)} lines of {path.name}"
    return found[0]


def uses(text: str, scan: LineScan) -> list[Use]:
    return [(r.role, r.name, r.start, r.end) for r in hlo_line_uses(text, scan)]


def at(text: str, role: Role, name: str, needle: str, offset: int = 0) -> Use:
    """The use of `name` found where `needle` (unique on the line) starts, plus `offset`."""
    assert text.count(needle) == 1, needle
    start = text.index(needle) + offset
    return (role, name, start, start + len(name))


@pytest.mark.parametrize("path", [GPU_HLO_SEED, SPLIT_HLO, COMBINED_MLP_HLO, SPLIT_CF_HLO, COMBINED_CF_HLO,
                                  HANDWRITTEN], ids=lambda p: p.name)
def test_real_modules_scan_without_problems_and_end_at_top(path: Path) -> None:
    scans = scanned(path)
    assert [(t, s.problem) for t, s in scans if s.problem is not None] == []
    assert scans[-1][1].end_state == "top"
    kinds = [s.kind for _, s in scans]
    assert kinds.count("computation") == kinds.count("computation_end")
    assert "unknown" not in kinds


# ---- `%` style with operand shapes (PyTorch/XLA GPU seed) ---------------------------


def test_seed_module_header_gives_the_module_name() -> None:
    text, scan = scanned(GPU_HLO_SEED)[0]
    assert (scan.kind, scan.data, scan.end_state) == ("module_header", ("SyncTensorsGraph.293",), "top")
    assert hlo_line_uses(text, scan) == ()


def test_seed_computation_header_defines_the_name_after_the_sigil_and_uses_its_parameters() -> None:
    text, scan = line(GPU_HLO_SEED, "%AddComputation.50 (x.51")
    assert scan.kind == "computation" and scan.end_state == "comp"
    assert [(r.role, r.name, r.start, r.end) for r in scan.refs] == [(Role.COMPUTATION_DEF, "AddComputation.50", 1, 18)]
    assert scan.data == ("AddComputation.50", False, 19)
    assert uses(text, scan) == [(Role.INSTRUCTION_USE, "x.51", 20, 24), (Role.INSTRUCTION_USE, "y.52", 33, 37)]


def test_seed_entry_header_uses_every_signature_parameter() -> None:
    text, scan = line(GPU_HLO_SEED, "ENTRY %SyncTensorsGraph.293 (")
    assert scan.data[:2] == ("SyncTensorsGraph.293", True)
    found = uses(text, scan)
    assert [u[1] for u in found][:3] == ["p0.1.0", "p1.4.0", "p2.6.0"]
    assert len(found) == 17
    assert found[16] == at(text, Role.INSTRUCTION_USE, "p16.283.0", "p16.283.0:")


def test_seed_instruction_with_typed_operands_and_to_apply() -> None:
    text, scan = line(GPU_HLO_SEED, "%reduce.13 = ")
    assert scan.kind == "instruction"
    assert [(r.role, r.name, r.start, r.end) for r in scan.refs] == [(Role.INSTRUCTION_DEF, "reduce.13", 3, 12)]
    assert scan.data == ("reduce.13", 15, 26, "reduce", False)
    assert uses(text, scan) == [
        at(text, Role.INSTRUCTION_USE, "multiply.114", "%multiply.114", 1),
        at(text, Role.INSTRUCTION_USE, "constant_101", "%constant_101", 1),
        at(text, Role.COMPUTATION_USE, "AddComputation.50", "to_apply=%AddComputation.50", len("to_apply=%")),
    ]


def test_seed_operands_after_an_index_comment_and_calls() -> None:
    text, scan = line(GPU_HLO_SEED, "%fusion.40 = ")
    found = uses(text, scan)
    assert "/*index=5*/bf16[32,1024]{1,0} %get-tuple-element.1.0" in text
    assert [u[1] for u in found] == ["p.4", "get-tuple-element.3.0", "p.11", "loop_gather_fusion",
                                     "gemm_fusion_dot.7.0", "get-tuple-element.1.0", "fused_computation.31"]
    assert found[5] == at(text, Role.INSTRUCTION_USE, "get-tuple-element.1.0", "/*index=5*/", 31)
    assert found[6] == at(text, Role.COMPUTATION_USE, "fused_computation.31", "calls=%", 7)


def test_seed_tuple_shaped_call_uses_all_operands_and_its_computation() -> None:
    text, scan = line(GPU_HLO_SEED, "  %call = (")
    assert scan.data[3] == "call"
    found = uses(text, scan)
    assert len([u for u in found if u[0] is Role.INSTRUCTION_USE]) == 17
    assert found[15] == at(text, Role.INSTRUCTION_USE, "p14.238.0", "/*index=15*/s32[32]{0} %p14.238.0", 24)
    assert found[-1] == at(text, Role.COMPUTATION_USE, "command_buffer", "to_apply=%command_buffer", 10)


@pytest.mark.parametrize("needle", ["%param_0.9 = bf16[151936,1024]{1,0} parameter(0)",
                                    "%constant_100 = f32[] constant(0.0009765625)"])
def test_literal_operands_of_parameter_and_constant_are_not_uses(needle: str) -> None:
    text, scan = line(GPU_HLO_SEED, needle)
    assert scan.kind == "instruction"
    assert uses(text, scan) == []


@pytest.mark.parametrize(("text", "used"), [
    ("  ROOT v = f32[] add(z, f32[] constant(inf))", ["z"]),  # a nested constant's literal names nothing
    ("  ROOT v = (f32[4], (f32[4], f32[4])) tuple(p, (f32[4], f32[4]) tuple(q, // c", ["p", "q"]),  # open below
    ("  ROOT v = f32[4] add(p, negate(abs(q)))", ["p", "q"]),
    ("  ROOT v = f32[] add(z, f32[] constant(inf// c", ["z"]),  # the literal's `)` below
])
def test_the_operands_of_a_nested_instruction_are_uses(text: str, used: list[str]) -> None:
    scan = scan_hlo_line(COMP, text)
    assert [name for _, name, *_ in uses(text, scan)] == used


def test_backend_config_inside_a_string_opens_no_raw_braces() -> None:
    # XLA's re-printed text: the string holds `backend_config={op_name=`; the line ends the instruction
    text = '  ROOT %v = f32[4]{0} abs(%p), metadata={op_name="x\\n q = abs(p), backend_config={op_name=" a="b"}'
    assert scan_hlo_line(COMP, text).end_state == COMP


def test_an_attribute_key_inside_a_string_names_nothing() -> None:
    # XLA's re-printed text: the metadata string holds `calls={op_name=`, which is no attribute
    text = '  ROOT %v = f32[4]{0} abs(%p), metadata={op_name="x\\n q = abs(p), calls={op_name=" source_file="z.py"}'
    assert [(role, name) for role, name, *_ in uses(text, scan_hlo_line(COMP, text))] == [(Role.INSTRUCTION_USE, "p")]


# ---- no `%` (JAX 0.4.38) ----------------------------------------------------------------


def test_bare_computation_headers_and_named_closing_braces() -> None:
    text, scan = line(COMBINED_MLP_HLO, "ENTRY main.68 {")
    assert (scan.kind, scan.end_state, scan.data) == ("computation", "comp", ("main.68", True, -1))
    assert [(r.role, r.name, r.start, r.end) for r in scan.refs] == [(Role.COMPUTATION_DEF, "main.68", 6, 13)]
    assert uses(text, scan) == []
    _, end = line(COMBINED_MLP_HLO, "} // main.68")
    assert (end.kind, end.end_state, end.problem) == ("computation_end", "top", None)


def test_bare_operands_and_root() -> None:
    text, scan = line(COMBINED_MLP_HLO, "ROOT broadcast_subtract_fusion = ")
    assert scan.data == ("broadcast_subtract_fusion", 35, 51, "fusion", True)
    assert text[35:51] == "f32[32,10]{1,0} "
    assert scan.refs[0].start == 7 and scan.refs[0].end == 32
    assert uses(text, scan) == [
        at(text, Role.INSTRUCTION_USE, "reduce_log_fusion", "(reduce_log_fusion", 1),
        at(text, Role.INSTRUCTION_USE, "add_reduce_fusion", " add_reduce_fusion", 1),
        at(text, Role.INSTRUCTION_USE, "dot.32", " dot.32", 1),
        at(text, Role.INSTRUCTION_USE, "Arg_5.6", " Arg_5.6", 1),
        at(text, Role.COMPUTATION_USE, "fused_computation", "calls=fused_computation,", 6),
    ]


def test_bare_to_apply() -> None:
    text, scan = line(COMBINED_MLP_HLO, "  reduce.2 = ")
    assert uses(text, scan)[-1] == at(text, Role.COMPUTATION_USE, "region_1.42", "to_apply=region_1.42", 9)


def test_bare_while_and_conditional_name_their_computations() -> None:
    text, scan = line(COMBINED_CF_HLO, "  while.102 = ")
    assert uses(text, scan) == [
        at(text, Role.INSTRUCTION_USE, "tuple.23", "(tuple.23)", 1),
        at(text, Role.COMPUTATION_USE, "region_9.96", "condition=region_9.96", 10),
        at(text, Role.COMPUTATION_USE, "region_8.82", "body=region_8.82", 5),
    ]
    text, scan = line(COMBINED_CF_HLO, "  conditional.44.clone = ")
    found = uses(text, scan)
    assert [u[1] for u in found[:4]] == ["clamp.21"] + ["get-tuple-element"] * 3
    assert found[4:] == [
        at(text, Role.COMPUTATION_USE, "region_2.22", "{region_2.22", 1),
        at(text, Role.COMPUTATION_USE, "region_3.27", " region_3.27", 1),
        at(text, Role.COMPUTATION_USE, "region_4.36", " region_4.36", 1),
    ]


# ---- JAX 0.10.2: stack-frame tables and stack_frame_id= --------------------------------------


def test_table_header_and_rows_define_and_use_ids() -> None:
    scans = scanned(SPLIT_HLO)
    header = next(s for t, s in scans if t == "StackFrames")
    assert (header.kind, header.end_state) == ("table_header", ("table", "StackFrames"))
    text, row = line(SPLIT_HLO, "5 {file_location_id=5 parent_frame_id=4}")
    assert row.kind == "table_row" and row.end_state == ("table", "StackFrames")
    assert [(r.role, r.name, r.start, r.end) for r in row.refs] == [(Role.FRAME_DEF, "5", 0, 1)]
    # parent_frame_id is printed as the parent's id + 1: `4` names frame 3.
    assert uses(text, row) == [(Role.LOCATION_USE, "5", 20, 21), (Role.FRAME_USE, "3", 38, 39)]
    text, row = line(SPLIT_HLO, "3 {file_name_id=1 function_name_id=3 line=174")
    assert row.refs[0].role is Role.LOCATION_DEF
    assert uses(text, row) == [(Role.FILE_NAME_USE, "1", 16, 17), (Role.FUNCTION_NAME_USE, "3", 35, 36)]
    _, row = line(SPLIT_HLO, '1 "/home/dev/xla-examples/gen_dumps.py"')
    assert [(r.role, r.name) for r in row.refs] == [(Role.FILE_NAME_DEF, "1")]


def test_first_computation_after_the_tables_is_a_computation() -> None:
    text, scan = line(SPLIT_HLO, "%fused_computation (param_0: f32[32,256]")
    assert scan.kind == "computation" and scan.problem is None
    assert uses(text, scan) == [(Role.INSTRUCTION_USE, "param_0", 20, 27), (Role.INSTRUCTION_USE, "param_1", 42, 49)]


def test_stack_frame_id_in_metadata_is_a_frame_use() -> None:
    text, scan = line(SPLIT_HLO, "%ynn_fusion.2 = ")
    assert uses(text, scan) == [
        at(text, Role.INSTRUCTION_USE, "x.1", "%x.1", 1),
        at(text, Role.INSTRUCTION_USE, "ws_0_.1", "%ws_0_.1", 1),
        at(text, Role.COMPUTATION_USE, "fused_computation.2", "calls=%fused_computation.2", 7),
        at(text, Role.FRAME_USE, "4", "stack_frame_id=4", 15),
    ]


def test_branch_computations_with_sigils() -> None:
    text, scan = line(SPLIT_CF_HLO, "%cond.9.clone = ")
    assert [u for u in uses(text, scan) if u[0] is Role.COMPUTATION_USE] == [
        at(text, Role.COMPUTATION_USE, "region_2.3", "%region_2.3", 1),
        at(text, Role.COMPUTATION_USE, "region_3.4", "%region_3.4", 1),
        at(text, Role.COMPUTATION_USE, "region_4.6", "%region_4.6", 1),
    ]


def test_while_with_sigils_and_backend_config() -> None:
    text, scan = line(SPLIT_CF_HLO, "ROOT %while.2 = ")
    assert scan.data[4] is True
    assert uses(text, scan) == [
        at(text, Role.INSTRUCTION_USE, "tuple.39", "%tuple.39", 1),
        at(text, Role.COMPUTATION_USE, "region_12.14", "%region_12.14", 1),
        at(text, Role.COMPUTATION_USE, "region_11.13", "%region_11.13", 1),
        at(text, Role.FRAME_USE, "23", "stack_frame_id=23", 15),
    ]


# ---- continuation, recovery, problems ------------------------------------------------------------


def test_multiline_constant_continues_until_its_brackets_close() -> None:
    scans = scanned(HANDWRITTEN)
    start = next(i for i, (t, _) in enumerate(scans) if t.startswith("  w = f32[2,2] constant({"))
    kinds = [(s.kind, s.end_state) for _, s in scans[start:start + 5]]
    cont = ("cont", 2, "comp", "instruction_literal")  # `(` and `{` are open: the literal goes on
    assert kinds == [("instruction", cont), ("continuation", cont), ("continuation", cont),
                     ("continuation", "comp"), ("instruction", "comp")]
    assert scans[start][1].refs[0].name == "w"
    assert scans[start + 4][1].problem is None


def test_comment_lines_are_blank() -> None:
    text, scan = line(HANDWRITTEN, "// a literal written over several lines")
    assert (scan.kind, scan.end_state, scan.problem) == ("blank", "comp", None)


def test_next_instruction_after_unbalanced_brackets_is_still_an_instruction() -> None:
    broken, _ = line(SPLIT_HLO, "%add.1 = f32[32,10]{1,0} broadcast(%param_3.1)")
    after, _ = line(SPLIT_HLO, "%add.0 = f32[32,10]{1,0} add(")
    first = scan_hlo_line("comp", broken.replace("dimensions={1}", "dimensions={1"))
    assert first.kind == "instruction" and first.end_state == ("cont", 1, "comp", "instruction")
    second = scan_hlo_line(first.end_state, after)
    assert second.kind == "instruction" and second.end_state == "comp"
    assert second.refs[0].name == "add.0"
    assert second.problem is not None and second.problem.code == "unbalanced-brackets"
    assert "leaves 1 bracket(s) open" in second.problem.message
    assert [u[1] for u in uses(after, second)] == ["param_2.2", "add.1", "4"]


def test_a_closing_brace_alone_after_unbalanced_brackets_closes_them_as_xla_reads_it() -> None:
    root, _ = line(COMBINED_MLP_HLO, "ROOT subtract.2 = ")
    first = scan_hlo_line("comp", root.replace('source_line=172}', 'source_line=172'))
    closing = scan_hlo_line(first.end_state, "} // fused_computation")
    assert (closing.kind, closing.end_state) == ("continuation", "comp")
    end = scan_hlo_line(closing.end_state, "}")
    assert (end.kind, end.end_state) == ("computation_end", "top")


def test_instruction_outside_a_computation_is_a_problem() -> None:
    text, _ = line(COMBINED_MLP_HLO, "  dot.8 = ")
    scan = scan_hlo_line("top", text)
    assert scan.kind == "instruction" and scan.refs[0].name == "dot.8"
    assert scan.problem is not None and scan.problem.code == "instruction-outside-computation"
    assert (scan.problem.start, scan.problem.end) == (2, 7)


def test_unrecognized_line_in_a_computation_is_a_syntax_problem() -> None:
    text = "  f32[32,10]{1,0} add(%param_2.2, %add.1)"  # the `name =` is missing
    scan = scan_hlo_line("comp", text)
    assert (scan.kind, scan.end_state) == ("unknown", "comp")
    assert scan.problem is not None and scan.problem.code == "syntax"
    assert "expected an instruction" in scan.problem.message
    assert (scan.problem.start, scan.problem.end) == (2, len(text))


def test_crlf_line_scans_like_lf() -> None:
    text, scan = line(SPLIT_HLO, "%ynn_fusion.2 = ")
    crlf = scan_hlo_line("comp", text + "\r")
    assert crlf == scan
    assert uses(text + "\r", crlf) == uses(text, scan)


# ---- UTF-16 columns ---------------------------------------------------------------------------


@pytest.mark.parametrize("op_name,extra_units", [("jit(mlp)/général×", 0),  # BMP: one unit per character
                                                  ("jit(mlp)/😀_général", 1)])  # 😀: two UTF-16 units
def test_columns_after_non_ascii_characters_are_utf16_units(op_name: str, extra_units: int) -> None:
    text, _ = line(SPLIT_HLO, "%ynn_fusion.2 = ")
    changed = text.replace('op_name="jit(mlp)/dot_general"', f'op_name="{op_name}"')
    scan = scan_hlo_line("comp", changed)
    assert scan.refs[0].start == 3  # the definition comes before any non-ASCII character
    frame = [u for u in uses(changed, scan) if u[0] is Role.FRAME_USE]
    start = changed.index("stack_frame_id=4") + len("stack_frame_id=") + extra_units
    assert frame == [(Role.FRAME_USE, "4", start, start + 1)]


def test_operand_after_an_astral_comment_in_the_operand_list() -> None:
    text = "  %add.0 = f32[32,10]{1,0} add(/*😀*/ %param_2.2, %add.1)"
    found = uses(text, scan_hlo_line("comp", text))
    a, b = text.index("%param_2.2") + 1, text.index("%add.1") + 1
    assert found == [(Role.INSTRUCTION_USE, "param_2.2", a + 1, a + 10),  # 😀 counts twice
                     (Role.INSTRUCTION_USE, "add.1", b + 1, b + 6)]


def test_operand_after_an_astral_comment_on_a_line_the_operands_go_on_on() -> None:
    first = scan_hlo_line("comp", "  %add.0 = f32[32,10]{1,0} add(")
    text = "    /*😀*/ %param_2.2, /* a"
    found = uses(text, scan_hlo_line(first.end_state, text))
    a = text.index("%param_2.2") + 1
    assert found == [(Role.INSTRUCTION_USE, "param_2.2", a + 1, a + 10)]  # 😀 counts twice


def test_lines_without_names_share_one_scan_per_kind_and_state() -> None:
    # A large module has hundreds of thousands of blank lines and `}`: one record each, not one per line.
    ends = [scan for _, scan in scanned(SPLIT_HLO) if scan.kind == "computation_end"]
    assert len(ends) > 1 and all(scan is ends[0] for scan in ends)
    assert scan_hlo_line("comp", "") is scan_hlo_line("comp", "  ")
    assert scan_hlo_line("comp", "") == LineScan("blank", "comp")


def test_opcodes_are_one_string_per_opcode() -> None:
    opcodes = [scan.data[3] for _, scan in scanned(SPLIT_HLO) if scan.kind == "instruction"]
    parameters = [opcode for opcode in opcodes if opcode == "parameter"]
    assert len(parameters) > 1 and all(opcode is parameters[0] for opcode in parameters)


@pytest.mark.parametrize(("lines", "ends_at", "next_kinds"), [
    (("  s = ((f32[4]), f32[4], s32[]) async-start(", "p), calls=w ROOT d = f32[4] async-done(s), calls=w"),
     "p), calls=w ", ["instruction"]),
    (("  a = // the shape below", "f32[4] abs(p) ROOT b = f32[4] negate(a) }"), "f32[4] abs(p) ",
     ["instruction", "computation_end"]),
    (("  a = f32[4] abs(p),", '  metadata={op_name="a"} ROOT b = f32[4] negate(a)'), '  metadata={op_name="a"} ',
     ["instruction"]),
])
def test_a_line_that_ends_the_instruction_above_and_starts_others(lines: tuple[str, str], ends_at: str,
                                                                   next_kinds: list[str]) -> None:
    first = scan_hlo_line("comp", lines[0])
    second = scan_hlo_line(first.end_state, lines[1])
    assert second.kind == "items" and goes_on_from_above(second)
    assert lines[1][: continued_end(second, lines[1])] == ends_at
    assert [item.kind for _, item in second.data[1:]] == next_kinds
    alone = scan_hlo_line(first.end_state, lines[1].split(" ROOT ")[0])  # the instruction's end alone
    assert alone.kind == "continuation" and continued_end(alone, "x") == 1


def test_a_string_left_open_ends_where_a_quote_cannot_close_it_and_that_instruction_reads_anew() -> None:
    """A quote typed in an instruction's metadata: XLA reads on in the string to the next line's first
    quote, which `jit(mlp)/add"` cannot follow; that line reads as its own instruction, with the problem."""
    opened, _ = line(SPLIT_HLO, "%add.1 = f32[32,10]{1,0} broadcast(%param_3.1)")
    after, _ = line(SPLIT_HLO, "%add.0 = f32[32,10]{1,0} add(")
    first = scan_hlo_line("comp", opened.replace("stack_frame_id=4}", 'stack_frame_id="4}'))
    assert first.end_state == ("string", 1, "comp", "instruction")
    second = scan_hlo_line(first.end_state, after)
    assert (second.kind, second.end_state, second.refs[0].name) == ("instruction", "comp", "add.0")
    assert second.problem is not None and second.problem.code == "unbalanced-brackets"
    assert second.problem.message == "the instruction above leaves a string open"
    assert [u[1] for u in uses(after, second)] == ["param_2.2", "add.1", "4"]


@pytest.mark.parametrize("closing", ['y"}', 'y" source_file="x.py"}', 'y"source_file="x.py"}', 'y"/* c */}'])
def test_a_string_over_lines_holds_whole_instructions_as_xla_reads_it(closing: str) -> None:
    """XLA's strings go on over line ends: a line that would be an instruction or a computation's `}` is
    more of the string when the string then closes where a string may (`"a"source_file=` too)."""
    state = scan_hlo_line("comp", '  ROOT v = f32[4] abs(p), metadata={op_name="x').end_state
    for inside in ("  q = f32[4] parameter(0)", "}", "  r = f32[4] abs(q), metadata={op_name=\" y, z=\""):
        scan = scan_hlo_line(state, inside)
        assert (scan.kind, scan.refs, scan.problem) == ("continuation", (), None), inside
        state = scan.end_state
    end = scan_hlo_line(state, closing)
    assert (end.kind, end.end_state, end.problem) == ("continuation", "comp", None)


def _string_end_read_a_character_at_a_time(text: str, quote: int) -> int:
    index = quote + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
        elif text[index] == '"':
            return index
        else:
            index += 1
    return -1


@given(st.text(alphabet='ab"\\\n ', max_size=30), st.integers(min_value=-1, max_value=31))
@settings(max_examples=500, deadline=None)
def test_a_string_ends_where_reading_it_a_character_at_a_time_ends_it(text: str, quote: int) -> None:
    """XLA's lexer reads a string to its first quote not escaped by a backslash (which escapes a line end too)."""
    assert string_end(text, quote) == _string_end_read_a_character_at_a_time(text, quote)

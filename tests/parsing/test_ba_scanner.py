"""scan_ba_line / ba_line_mentions on real lines of buffer-assignment, values, live-range and report files."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from helpers import COMBINED_MLP, DATA, GPU_SEED, SPLIT_CONTROL_FLOW, SPLIT_MLP, TPU_JAX_SEED, TPU_SEED
from hlo_lsp.parsing.ba_mentions import ba_line_mentions
from hlo_lsp.parsing.ba_scanner import scan_ba_line
from hlo_lsp.parsing.line_scan import LineScan, Role

REFERENCE_SEED = DATA / "seeds" / "jax-tpu-reference-attention.buffer-assignment.txt"
SPLIT_CF_ALLOCATIONS = Path(str(SPLIT_CONTROL_FLOW) + "-buffer-assignment.txt")
SPLIT_CF_VALUES = Path(str(SPLIT_CONTROL_FLOW) + "-buffer-assignment-values.txt")
SPLIT_CF_LIVE_RANGE = Path(str(SPLIT_CONTROL_FLOW) + "-live-range.txt")
SPLIT_MLP_VALUES = Path(str(SPLIT_MLP) + "-buffer-assignment-values.txt")
SPLIT_MLP_LIVE_RANGE = Path(str(SPLIT_MLP) + "-live-range.txt")
OLD_REPORT = Path(str(COMBINED_MLP) + "-memory-usage-report.txt")
NEW_REPORT = Path(str(SPLIT_MLP) + "-memory-usage-report.txt")
ALL_FILES = [GPU_SEED, TPU_SEED, TPU_JAX_SEED, REFERENCE_SEED, SPLIT_CF_ALLOCATIONS, SPLIT_CF_VALUES,
             SPLIT_CF_LIVE_RANGE, SPLIT_MLP_VALUES, SPLIT_MLP_LIVE_RANGE, OLD_REPORT, NEW_REPORT,
             Path(str(COMBINED_MLP) + "-buffer-assignment.txt")]


@functools.cache
def scanned(path: Path) -> tuple[tuple[str, LineScan], ...]:
    state, out = "top", []
    for text in path.read_text().split("\n"):
        scan = scan_ba_line(state, text)
        out.append((text, scan))
        state = scan.end_state
    return tuple(out)


def line(path: Path, needle: str, exact: bool = False) -> tuple[str, LineScan]:
    found = [(t, s) for t, s in scanned(path) if (t == needle if exact else needle in t)]
    assert len(found) == 1, f"{needle!r} is on {len(found)} lines of {path.name}"
    return found[0]


def mentions(text: str, scan: LineScan) -> list[tuple[Role, str, int, int]]:
    return [(r.role, r.name, r.start, r.end) for r in ba_line_mentions(text, scan)]


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_real_files_scan_without_problems(path: Path) -> None:
    scans = scanned(path)
    assert [(t, s.problem) for t, s in scans if s.problem is not None] == []
    assert "unknown" not in {s.kind for _, s in scans}


# ---- allocations ------------------------------------------------------------------------------


def test_section_header_opens_the_allocations() -> None:
    _, scan = scanned(TPU_SEED)[0]
    assert (scan.kind, scan.end_state) == ("allocations_header", "alloc")


@pytest.mark.parametrize("path,header,data", [
    (TPU_SEED, "allocation 0: size 512, thread-local:", (0, 512, 0, None, None, None, ("thread-local",), "")),
    (TPU_SEED, "allocation 1: size 58720256, parameter 4, shape |f32[3584,4096]| at ShapeIndex {}:",
     (1, 58720256, 0, None, (4, "f32[3584,4096]", "{}"), None, (), "")),
    (TPU_SEED, "allocation 7: size 32, output shape is |(f32[8,128,4096])|, maybe-live-out:",
     (7, 32, 0, None, None, "(f32[8,128,4096])", ("maybe-live-out",), "")),
    (TPU_SEED, "allocation 11: size 8, color 2, preallocated-temp:",
     (11, 8, 2, None, None, None, ("preallocated-temp",), "")),
    (REFERENCE_SEED, "allocation 1: size 33554432, constant:", (1, 33554432, 0, None, None, None, ("constant",), "")),
])
def test_allocation_headers_give_every_property(path: Path, header: str, data: tuple[object, ...]) -> None:
    text, scan = line(path, header, exact=True)
    assert (scan.kind, scan.end_state, scan.data) == ("allocation", "alloc", data)
    assert mentions(text, scan) == []


def test_allocation_header_of_the_newest_xla_with_page_and_unknown_shape() -> None:
    # Format of dump-format.md 2.2 (no bundled dump has `page` or `<unknown shape>`).
    text = ("allocation 3: size 1024, color 1, page 2, parameter 0, shape |<unknown shape>| at ShapeIndex {1}, "
            "maybe-live-out:")
    scan = scan_ba_line("alloc", text)
    assert scan.data == (3, 1024, 1, 2, (0, "<unknown shape>", "{1}"), None, ("maybe-live-out",), "")


def test_unknown_allocation_property_is_left_unread() -> None:
    scan = scan_ba_line("alloc", "allocation 0: size 512, thread-local, sparkly:")
    assert scan.kind == "allocation" and scan.data[6] == ("thread-local",) and scan.data[7] == ", sparkly"


def test_value_line_with_index_and_color_defines_the_value_and_mentions_the_instruction() -> None:
    text, scan = line(TPU_SEED, " value: <32 copy-start.1{2} @2> (size=4,offset=4): u32[]{:S(2)}", exact=True)
    assert scan.kind == "value"
    assert scan.data[:8] == (32, "copy-start.1", "{2}", False, 2, 4, 4, "u32[]{:S(2)}")
    assert [(r.role, r.name, r.start, r.end) for r in scan.refs] == [(Role.VALUE_DEF, "32", 9, 11)]
    assert mentions(text, scan) == [(Role.INSTRUCTION_MENTION, "copy-start.1", 12, 24)]
    ref_start, ref_end = scan.data[8:]
    assert text[ref_start:ref_end] == "<32 copy-start.1{2} @2>"


def test_value_line_of_a_tuple_table_and_a_tiled_shape() -> None:
    _, scan = line(TPU_SEED, " value: <46 tuple.31{} @0>")
    assert scan.data[:8] == (46, "tuple.31", "{}", False, 0, 32, 0, "(f32[8,128,4096]{2,1,0:T(8,128)})")


def test_phi_value_line() -> None:
    text, scan = line(SPLIT_CF_ALLOCATIONS, " value: <136 cond.9.clone{0} (phi) @0>")
    assert scan.data[:5] == (136, "cond.9.clone", "{0}", True, 0)
    assert mentions(text, scan) == [(Role.INSTRUCTION_MENTION, "cond.9.clone", 13, 25)]


def test_reused_by_another_color_block() -> None:
    # Newest XLA (dump-format.md 2.3): after the values, values reusing the buffer in another color.
    header = scan_ba_line("alloc", " reused by buffers of a different color:")
    assert (header.kind, header.end_state) == ("reused_header", "reused")
    value = scan_ba_line("reused", "  value: <7 copy.3 @1> (color=1)")
    assert (value.kind, value.end_state, value.data) == ("reused_value", "reused", (7, "copy.3", None, False, 1, 1))
    back = scan_ba_line("reused", "allocation 4: size 16, preallocated-temp:")
    assert (back.kind, back.end_state) == ("allocation", "alloc")


# ---- totals and Used values -----------------------------------------------------------------------


def test_totals_line() -> None:
    _, scan = line(GPU_SEED, "Total bytes used: ")
    assert (scan.kind, scan.data) == ("totals", (932847568, "889.63MiB"))


def test_value_block_lines_in_order() -> None:
    scans = scanned(SPLIT_MLP_VALUES)
    start = next(i for i, (t, _) in enumerate(scans) if t == "<2 reduce_max.5 @0>")
    block = [(s.kind, s.end_state, s.data) for _, s in scans[start:start + 6]]
    assert block == [
        ("used_value", "used", (2, "reduce_max.5", None, False, 0, "<2 reduce_max.5 @0>")),
        ("positions_header", "positions", ()),
        ("position", "positions", ("reduce_max.5", None)),
        ("uses_header", "uses", ()),
        ("no_uses", "uses", ()),
        ("from_instruction", "used", (19, "reduce_max.5", 35, 41, "maximum", False)),
    ]
    assert mentions(*scans[start]) == [(Role.VALUE_MENTION, "2", 1, 2),
                                       (Role.INSTRUCTION_MENTION, "reduce_max.5", 3, 15)]
    assert mentions(*scans[start + 2]) == [(Role.INSTRUCTION_MENTION, "reduce_max.5", 2, 14)]
    assert mentions(*scans[start + 4]) == []
    text = scans[start + 5][0]
    three, four = text.index("%reduce_max.3") + 1, text.index("%reduce_max.4") + 1
    assert mentions(*scans[start + 5]) == [(Role.INSTRUCTION_MENTION, "reduce_max.5", 20, 32),
                                           (Role.INSTRUCTION_MENTION, "reduce_max.3", three, three + 12),
                                           (Role.INSTRUCTION_MENTION, "reduce_max.4", four, four + 12)]


def test_phi_used_value_header_and_indexed_positions() -> None:
    text, scan = line(SPLIT_CF_VALUES, "<133 cond.8.clone{} (phi) @0>", exact=True)
    assert scan.data == (133, "cond.8.clone", "{}", True, 0, "<133 cond.8.clone{} (phi) @0>")
    assert mentions(text, scan) == [(Role.VALUE_MENTION, "133", 1, 4),
                                    (Role.INSTRUCTION_MENTION, "cond.8.clone", 5, 17)]
    text, scan = line(SPLIT_CF_VALUES, "  cond.8.clone {}", exact=True)
    assert (scan.kind, scan.data) == ("position", ("cond.8.clone", "{}"))


def test_use_with_operand_index() -> None:
    text, scan = line(GPU_SEED, "  get-tuple-element.5, operand 0 {}", exact=True)
    assert (scan.kind, scan.end_state, scan.data) == ("use", "uses", ("get-tuple-element.5", 0, "{}"))
    assert mentions(text, scan) == [(Role.INSTRUCTION_MENTION, "get-tuple-element.5", 2, 21)]


def test_from_instruction_with_operand_shapes_mentions_operands_and_computations() -> None:
    text, scan = line(GPU_SEED, " from instruction: %loop_gather_fusion = ")
    assert scan.data[1:] == ("loop_gather_fusion", 41, 65, "fusion", False)
    found = mentions(text, scan)
    calls = text.index("calls=%fused_gather") + len("calls=%")
    assert found[0] == (Role.INSTRUCTION_MENTION, "loop_gather_fusion", 20, 38)
    assert [(r, n) for r, n, _, _ in found[1:]] == [(Role.INSTRUCTION_MENTION, "p"), (Role.INSTRUCTION_MENTION, "p.1"),
                                                    (Role.COMPUTATION_MENTION, "fused_gather")]
    assert found[-1][2:] == (calls, calls + len("fused_gather"))


def test_empty_uses_go_straight_to_from_instruction() -> None:
    text, scan = line(GPU_SEED, " from instruction: %tuple.292.0 = ")
    assert (scan.kind, scan.end_state, scan.problem) == ("from_instruction", "used", None)
    assert len(mentions(text, scan)) == 5


# ---- live ranges -------------------------------------------------------------------------------------


def test_live_range_section_lines() -> None:
    assert line(GPU_SEED, "HloLiveRange (max 66):")[1].data == (66,)
    assert line(GPU_SEED, "  InstructionSequence:", exact=True)[1].end_state == "seq"
    text, scan = line(GPU_SEED, "    1:p16.283.0", exact=True)
    assert (scan.kind, scan.data) == ("sequence_entry", (1, "p16.283.0"))
    assert mentions(text, scan) == [(Role.INSTRUCTION_MENTION, "p16.283.0", 6, 15)]
    assert line(GPU_SEED, "  BufferLiveRange:", exact=True)[1].end_state == "ranges"
    text, scan = line(GPU_SEED, "    tuple.292.0{}:65-66", exact=True)
    assert (scan.kind, scan.data) == ("live_range", ("tuple.292.0", "{}", 65, 66))
    assert mentions(text, scan) == [(Role.INSTRUCTION_MENTION, "tuple.292.0", 4, 15)]


def test_old_peak_list() -> None:
    _, header = line(GPU_SEED, "  Live ranges at 58 (peak):", exact=True)
    assert (header.kind, header.end_state, header.data) == ("peak_header", "peak", (58,))
    text, scan = line(GPU_SEED, "    input_concatenate_fusion: 262144 bytes", exact=True)
    assert (scan.kind, scan.data) == ("peak_entry", ("input_concatenate_fusion", None, 262144, None))
    assert mentions(text, scan) == [(Role.INSTRUCTION_MENTION, "input_concatenate_fusion", 4, 28)]


def test_new_peak_list() -> None:
    text, scan = line(SPLIT_MLP_LIVE_RANGE, "    ws_0_.1{}: 131072 bytes (cumulative: 393216 bytes)", exact=True)
    assert (scan.kind, scan.data) == ("peak_entry", ("ws_0_.1", "{}", 131072, 393216))
    assert mentions(text, scan) == [(Role.INSTRUCTION_MENTION, "ws_0_.1", 4, 11)]


def test_stack_trace_breakdown_tree() -> None:
    _, header = line(SPLIT_CF_LIVE_RANGE, "  Stack trace breakdown for peak usage: 3 116 bytes", exact=True)
    assert (header.kind, header.end_state, header.data) == ("breakdown_header", "tree", (3116,))
    expected = {
        "    main.15 (": (1, "main.15", 4, 100.0, 3116, 0, 3116),
        "      ├── jit(f)/cond (": (2, "jit(f)/cond", 10, 33.4, 1040, 8, 3108),
        "      │   └── region_3.4 (": (3, "region_3.4", 14, 33.1, 1032, 0, 3108),
        "      │       ├── jit(f)/cond/branch_1_fun/tanh (": (4, "jit(f)/cond/branch_1_fun/tanh", 18, 32.9,
                                                            1024, 1024, 2084),
        "      └── pred (": (2, "pred", 10, 0.1, 4, 4, 0),
    }
    for start, data in expected.items():
        text, scan = line(SPLIT_CF_LIVE_RANGE, start)
        assert (scan.kind, scan.end_state, scan.data) == ("breakdown_frame", "tree", data), text
        assert text[data[2]:].startswith(data[1] + " (")


# ---- memory-usage reports ------------------------------------------------------------------------------


def test_old_text_report_lines() -> None:
    assert line(OLD_REPORT, "Allocations sorted by size:", exact=True)[1].kind == "report_section"
    assert line(OLD_REPORT, "cumulative_size; total_size")[1].kind == "report_table_header"
    summary = "allocation 14: size 64.0KiB, preallocated-temp:"
    _, row = line(OLD_REPORT, "  448.0KiB( 94%);    29.3KiB; " + summary, exact=True)
    assert (row.kind, row.data) == ("report_row", ("448.0KiB", "29.3KiB", summary))
    summary = "allocation 4: size 1.2KiB, output shape is |f32[32,10]|, maybe-live-out:"
    _, allocation = line(OLD_REPORT, summary, exact=True)
    assert (allocation.kind, allocation.data) == ("report_allocation", (4, "1.2KiB"))
    tables = [s.kind for t, s in scanned(OLD_REPORT) if t.startswith("\tcumulative_size;       size;")]
    assert tables == ["report_table_header"] * 2
    _, value_row = line(OLD_REPORT, "\t  64.0KiB(100%);    32.0KiB;            0;                3; "
                                    "f32[32], 2×f32[32,256]", exact=True)
    assert value_row.kind == "report_row" and value_row.data[2].endswith("f32[32], 2×f32[32,256]")
    rest = scan_ba_line("report", "The rest 2358 allocations are less than 5% of the total size and not shown.")
    assert (rest.kind, rest.problem) == ("report_rest", None)  # line from the corpus's large_fwd_unrolled report


def test_newest_report_lines() -> None:
    _, space = line(NEW_REPORT, "Memory Space: default (color=0)", exact=True)
    assert (space.kind, space.end_state, space.data) == ("memory_space", "report", ("default", 0))
    _, total = line(NEW_REPORT, "Total bytes: 488768 (477.3KiB)", exact=True)
    assert (total.kind, total.data) == ("report_totals", (488768, "477.3KiB"))
    _, row = line(NEW_REPORT, "    64.0KiB(100%);    32.0KiB;            0;                3; f32[32], 2×f32[32,256]",
                  exact=True)
    assert row.kind == "report_row" and row.data[:2] == ("64.0KiB", "32.0KiB")


# ---- problems --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("state,text,expected", [
    ("alloc", "allocation 0: size 512, thread-local", "`allocation N: size S, ...:`"),
    ("alloc", " value: <6 add.27 @0> (size=512): f32[]{:T(128)}", "value: <id name>"),
    ("positions", "  reduce_max.5 extra", "a position"),
    ("uses", "  reduce_max.5, operand x", "a use"),
    ("seq", "    zero:ws_0_.1", "`N:name`"),
    ("ranges", "    x.1:0-15", "`name{index}:start-end`"),
    ("peak", "    ws_1_.1{}: 262144", "`name: N bytes`"),
    ("tree", "      ├── ws[1] (53.8%, total: 262 144 bytes)", "a stack-trace frame"),
    ("top", "BufferAssignments:", "a section header"),
])
def test_unrecognized_lines_give_a_syntax_problem(state: str, text: str, expected: str) -> None:
    scan = scan_ba_line(state, text)
    assert (scan.kind, scan.end_state) == ("unknown", state)
    assert scan.problem is not None and scan.problem.code == "syntax"
    assert scan.problem.message.startswith("unexpected text: expected") and expected in scan.problem.message
    indent = len(text) - len(text.lstrip())
    assert (scan.problem.start, scan.problem.end) == (indent, len(text))


def test_next_value_after_an_unbalanced_from_instruction_is_read() -> None:
    text, _ = line(SPLIT_MLP_VALUES, " from instruction: %reduce_max.3 = f32[] parameter(0)")
    first = scan_ba_line("uses", text.replace("parameter(0)", "parameter((0)"))
    assert first.end_state == ("cont", 1, "used", "from_instruction")
    value = scan_ba_line(first.end_state, "<1 reduce_max.4 @0>")
    assert (value.kind, value.end_state) == ("used_value", "used")
    assert value.problem is not None and value.problem.code == "unbalanced-brackets"


def test_live_range_section_after_an_unbalanced_from_instruction_is_read() -> None:
    text, _ = line(GPU_SEED, " from instruction: %tuple.292.0 = ")
    first = scan_ba_line("uses", text.replace(" = (bf16", " = ((bf16", 1))
    header = scan_ba_line(first.end_state, "HloLiveRange (max 66):")
    assert (header.kind, header.end_state) == ("live_range_header", "lr")

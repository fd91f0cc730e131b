"""The Used values block against the allocations (dump-format.md §3.2: U1-U7) on real dumps."""

from __future__ import annotations

from pathlib import Path

from helpers import COMBINED_MLP, SPLIT_CONTROL_FLOW, SPLIT_MLP, plant_in_copy, problems_of, where
from hlo_lsp.problems import Severity

ERROR, WARNING = Severity.ERROR, Severity.WARNING
VALUES = "-buffer-assignment-values.txt"


def planted(stem: Path, tmp_path: Path, old: str, new: str, suffix: str = VALUES) -> tuple[Path, int]:
    return plant_in_copy(stem, suffix, tmp_path, old, new)


def test_used_value_header_differs_from_the_allocation(tmp_path: Path) -> None:
    values, line = planted(SPLIT_CONTROL_FLOW, tmp_path, "<22 broadcast_multiply_fusion @0>",
                           "<22 broadcast_multiply_fusion (phi) @0>")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "value-header")]
    assert problems[0].message == ("header <22 broadcast_multiply_fusion (phi) @0> differs from the allocation's "
                                   "<22 broadcast_multiply_fusion @0>")
    ba = Path(str(values).replace(VALUES, "-buffer-assignment.txt"))
    assert [(Path(r.source).name, r.range.start.line, r.message) for r in problems[0].related] == [
        (ba.name, 2, "allocation 0")]


def test_combined_dump_used_value_header_differs(tmp_path: Path) -> None:
    ba, line = planted(COMBINED_MLP, tmp_path, "<57 broadcast_maximum_fusion @0>\n",
                       "<57 broadcast_maximum_fusion (phi) @0>\n", suffix="-buffer-assignment.txt")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, ERROR, "value-header")]
    assert problems[0].related[0].range.start.line == 32


def test_first_position_is_not_the_defining_one(tmp_path: Path) -> None:
    values, line = planted(SPLIT_CONTROL_FLOW, tmp_path, "  cond.9.clone {0}", "  cond.9.clone {1}")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "defining-position")]
    assert problems[0].message == "first position cond.9.clone {1} is not the value's own cond.9.clone{0}"


def test_first_position_names_an_alias(tmp_path: Path) -> None:
    values, line = planted(SPLIT_CONTROL_FLOW, tmp_path, " positions:\n  broadcast_add_fusion\n",
                           " positions:\n  tuple.25 {0}\n")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line + 1, ERROR, "defining-position")]
    assert problems[0].message == "first position tuple.25 {0} is not the value's own broadcast_add_fusion"


def test_from_instruction_of_another_name(tmp_path: Path) -> None:
    values, line = planted(SPLIT_MLP, tmp_path, "from instruction: %x.1 = f32[32,128]{1,0} parameter(6)",
                           "from instruction: %ws_0_.1 = f32[32,128]{1,0} parameter(6)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "from-instruction-name")]
    assert problems[0].message == "value x.1 comes from instruction ws_0_.1"
    assert problems[0].range.start.character == len(" from instruction: ")


def test_from_instruction_not_in_the_module(tmp_path: Path) -> None:
    values, line = planted(SPLIT_MLP, tmp_path, "from instruction: %x.1 = f32[32,128]{1,0} parameter(6)",
                           "from instruction: %x.2 = f32[32,128]{1,0} parameter(6)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "from-instruction-name"),
                               (values.name, line, ERROR, "unknown-instruction")]
    assert problems[1].message.startswith("instruction x.2 is not in the HLO module")


def test_value_shape_differs_from_its_instruction(tmp_path: Path) -> None:
    values, line = planted(SPLIT_MLP, tmp_path, "from instruction: %x.1 = f32[32,128]{1,0} parameter(6)",
                           "from instruction: %x.1 = f32[32,64]{1,0} parameter(6)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "value-shape")]
    assert problems[0].message == "x.1 is f32[32,128] in its allocation but its instruction gives f32[32,64]"
    assert problems[0].related[0].message == "allocation 2"


def test_tuple_index_on_a_value_whose_instruction_is_not_a_tuple(tmp_path: Path) -> None:
    values, line = planted(SPLIT_CONTROL_FLOW, tmp_path,
                           " from instruction: %tuple.25 = (f32[16,16]{1,0}) tuple(%broadcast_add_fusion)",
                           " from instruction: %tuple.25 = f32[16,16]{1,0} tuple(%broadcast_add_fusion)")
    problems = problems_of(tmp_path)
    header = values.read_text().split("\n").index("<17 tuple.25{} @0>")
    assert where(problems) == [(values.name, header, ERROR, "value-index")]
    assert problems[0].message == "tuple.25{}: instruction tuple.25 is not a tuple, so the value has no index"


def test_no_index_on_a_value_whose_instruction_is_a_tuple(tmp_path: Path) -> None:
    values, line = planted(SPLIT_MLP, tmp_path, "from instruction: %x.1 = f32[32,128]{1,0} parameter(6)",
                           "from instruction: %x.1 = (f32[32,128]{1,0}) parameter(6)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line - 5, ERROR, "value-index")]
    assert problems[0].message == "x.1: instruction x.1 is a tuple, so the value needs an index"


def test_used_value_that_no_allocation_holds(tmp_path: Path) -> None:
    values, line = planted(SPLIT_MLP, tmp_path, "<56 x.1 @0>", "<55 x.1 @0>")
    ba = Path(str(values).replace(VALUES, "-buffer-assignment.txt"))
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "unallocated-used-value"),
                               (ba.name, 6, ERROR, "missing-used-value")]
    assert problems[0].message == "value 55 (x.1) is not in any allocation"
    assert problems[1].message == "x.1 (value 56) has no block under Used values"


def test_used_values_out_of_id_order(tmp_path: Path) -> None:
    x = ("<56 x.1 @0>\n positions:\n  x.1\n uses:\n  ynn_fusion.2, operand 0\n"
         ' from instruction: %x.1 = f32[32,128]{1,0} parameter(6), metadata={op_name="x"}\n')
    ws = ("<57 ws_0_.1 @0>\n positions:\n  ws_0_.1\n uses:\n  ynn_fusion.2, operand 1\n"
          ' from instruction: %ws_0_.1 = f32[128,256]{1,0} parameter(0), metadata={op_name="ws[0]"}\n')
    values, line = planted(SPLIT_MLP, tmp_path, x + ws, ws + x)
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line + 6, WARNING, "used-value-order")]
    assert problems[0].message == "value 56 listed after 57; Used values are sorted by id"

"""HloModule on the three print styles of the bundled dumps.

- jax 0.10.2 (`%name`, computation signatures, StackFrames tables),
- jax 0.4.38 (no `%`, no signatures, `} // name`),
- PyTorch/XLA GPU seed (long text: operand shapes before every operand),
plus the hand-written module with a multi-line literal.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import COMBINED_MLP, CORPUS, DATA, DUMP_FILES, GPU_HLO_SEED, HANDWRITTEN, SPLIT_MLP
from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_module import HloModule, StackFrame
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.parsing.syntax import ArrayShape, Instruction, Layout, TupleShape
from hlo_lsp.text import Range

GEN_DUMPS = "/home/dev/xla-examples/gen_dumps.py"
# The header line of corpus/jax-0.10.2/train_mlp_donate (parameters donated with jax.jit(donate_argnums=...)).
DONATED_HEADER = (
    "HloModule jit__lambda, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), "
    "{1}: (1, {}, may-alias), {2}: (2, {}, may-alias), {3}: (3, {}, may-alias), {4}: (4, {}, may-alias), "
    "{5}: (5, {}, may-alias) }, entry_computation_layout={(f32[128]{0}, f32[128]{0}, f32[10]{0}, "
    "f32[64,128]{1,0}, f32[128,128]{1,0}, /*index=5*/f32[128,10]{1,0}, f32[32,64]{1,0}, s32[32]{0})->"
    "(f32[128]{0}, f32[128]{0}, f32[10]{0}, f32[64,128]{1,0}, f32[128,128]{1,0}, /*index=5*/f32[128,10]{1,0}, "
    "f32[])}, allow_spmd_sharding_propagation_to_parameters={true,true,true,true,true,true,true,true}, "
    "allow_spmd_sharding_propagation_to_output={true,true,true,true,true,true,true}"
)


def module(path: Path) -> HloModule:
    return HloModule(Document(path.read_text(), FileKind.HLO_MODULE, str(path)))


@pytest.fixture(scope="module")
def split() -> HloModule:
    return module(Path(str(SPLIT_MLP) + ".txt"))


@pytest.fixture(scope="module")
def combined() -> HloModule:
    return module(Path(str(COMBINED_MLP) + ".txt"))


@pytest.fixture(scope="module")
def gpu() -> HloModule:
    return module(GPU_HLO_SEED)


@pytest.fixture(scope="module")
def handwritten() -> HloModule:
    return module(HANDWRITTEN)


# ---- computations ----------------------------------------------------------------------


def test_computations_of_the_sigil_style(split):
    assert split.name == "jit_mlp" and split.header_line == 0
    assert [c.name for c in split.all_computations()] == [
        "fused_computation", "fused_computation.1", "fused_computation.2", "fused_computation.3", "region_1.3",
        "fused_computation.4", "region_0.2", "fused_computation.5", "fused_computation.6", "fused_computation.7",
        "main.5"]
    entry = split.entry
    assert (entry.name, entry.line, entry.end_line, entry.is_entry) == ("main.5", 114, 130, True)
    assert entry.name_range == Range.on_line(114, 7, 13)
    assert entry.instruction_lines == tuple(range(115, 130)) and entry.root_lines == (129,)
    first = split.computations["fused_computation"]
    assert (first.line, first.end_line, first.instruction_lines, first.root_lines) == (28, 32, (29, 30, 31), (31,))
    assert not first.is_entry


def test_computations_of_the_no_sigil_style_closed_by_a_named_brace(combined):
    assert [c.name for c in combined.all_computations()] == [
        "fused_computation", "region_1.42", "fused_computation.1", "region_0.38", "fused_computation.2",
        "fused_computation.3", "fused_computation.4", "main.68"]
    entry = combined.entry
    assert (entry.name, entry.line, entry.end_line, entry.root_lines) == ("main.68", 76, 92, (91,))
    assert entry.name_range == Range.on_line(76, 6, 13)
    fused = combined.computations["fused_computation"]
    assert (fused.line, fused.end_line, fused.root_lines) == (2, 16, (15,))  # `} // fused_computation`


def test_computations_of_the_long_text_gpu_seed(gpu):
    computations = gpu.all_computations()
    assert len(computations) == 15
    assert sum(len(c.instruction_lines) for c in computations) == 250
    assert [c.name for c in computations if c.is_entry] == ["SyncTensorsGraph.293"]
    entry = gpu.entry
    assert (entry.line, entry.end_line, entry.root_lines) == (270, 295, (294,))
    command_buffer = gpu.computations["command_buffer"]
    assert (command_buffer.line, command_buffer.end_line, len(command_buffer.instruction_lines)) == (225, 268, 42)


def test_computation_at_a_line(gpu):
    assert gpu.computation_at(17).name == "gemm_fusion_dot.7_computation"
    assert gpu.computation_at(19).name == "gemm_fusion_dot.7_computation"  # its `}`
    assert gpu.computation_at(10) is None  # the blank line between two computations
    assert gpu.computation_at(0) is None  # the module header


# ---- instructions ------------------------------------------------------------------------


def test_site_of_the_entry_root_in_each_style(split, combined, gpu):
    site = split.site("broadcast_subtract_fusion")
    assert (site.line, site.opcode, site.is_root, site.computation) == (129, "fusion", True, "main.5")
    assert site.name_range == Range.on_line(129, 8, 33)
    site = combined.site("broadcast_subtract_fusion")
    assert (site.line, site.opcode, site.is_root, site.computation) == (91, "fusion", True, "main.68")
    assert site.name_range == Range.on_line(91, 7, 32)
    site = gpu.site("tuple.292.0")
    assert (site.line, site.opcode, site.is_root, site.computation) == (294, "tuple", True, "SyncTensorsGraph.293")


def test_site_of_an_instruction_with_operand_shapes(gpu):
    site = gpu.site("dot.9")
    assert (site.line, site.opcode, site.is_root, site.computation) == (
        17, "dot", False, "gemm_fusion_dot.7_computation")
    assert site.name_range == Range.on_line(17, 3, 8)


def test_site_prefers_the_definition_in_the_computation_of_the_line(handwritten):
    assert handwritten.definition_lines("state") == [11, 18]
    assert (handwritten.site("state").line, handwritten.site("state").computation) == (11, "cond")
    near_body = handwritten.site("state", near_line=22)
    assert (near_body.line, near_body.computation) == (18, "body")
    assert handwritten.site("no_such_instruction") is None


def test_site_and_line_of_a_name_also_defined_outside_any_computation():
    text = ("HloModule m\n\n%stray = f32[] constant(1)\n\nENTRY %e () -> f32[] {\n"
            "  ROOT %stray = f32[] constant(2)\n}\n")
    hlo = HloModule(Document(text, FileKind.HLO_MODULE, "m.txt"))
    site = hlo.site("stray")
    assert (site.line, site.computation) == (2, None)  # the first definition, as the file reads
    assert (hlo.site("stray", near_line=5).line, hlo.line_of("stray")) == (5, 5)  # line_of: in a computation


def test_site_at_line(handwritten):
    site = handwritten.site_at_line(24)
    assert (site.name, site.opcode, site.is_root, site.computation) == ("w", "constant", False, "body")
    assert handwritten.site_at_line(23) is None  # a `//` comment
    assert handwritten.site_at_line(25) is None  # a continuation line of the literal
    assert handwritten.site_at_line(17) is None  # a computation header


def test_instruction_text_of_a_multi_line_constant(handwritten):
    assert handwritten.instruction_text(24) == "  w = f32[2,2] constant({\n    { 1, 2 },\n    { 3, 4 }\n  })"
    assert handwritten.instruction_text(28) == (
        "  product = f32[2,2] dot(m, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}")


def test_parse_a_multi_line_constant(handwritten):
    instruction = handwritten.parse(24)
    assert isinstance(instruction, Instruction)
    assert (instruction.name, instruction.opcode, instruction.is_root) == ("w", "constant", False)
    assert instruction.shape == ArrayShape("f32", (2, 2), (False, False), None)
    assert [operand.literal for operand in instruction.operands] == ["{\n    { 1, 2 },\n    { 3, 4 }\n  }"]


def test_parse_a_fusion_with_metadata(split):
    instruction = split.parse(129)
    assert isinstance(instruction, Instruction)
    assert [operand.name for operand in instruction.operands] == [
        "reduce_log_fusion", "add_reduce_fusion", "ynn_fusion", "bs_2_.1"]
    assert [name for name, _ in instruction.attribute("calls").names] == ["fused_computation.3"]
    assert instruction.metadata.op_name == "jit(mlp)/jit(log_softmax)/sub"
    assert instruction.metadata.stack_frame_id == 6


def test_parse_without_sigils(combined):
    instruction = combined.parse(79)
    assert (instruction.name, instruction.opcode) == ("dot.8", "dot")
    assert [operand.name for operand in instruction.operands] == ["Arg_6.7", "Arg_0.1"]
    assert (instruction.metadata.source_file, instruction.metadata.source_line) == (GEN_DUMPS, 169)


def test_parse_keeps_operand_shapes_of_the_long_text_style(gpu):
    instruction = gpu.parse(17)
    assert [(operand.name, str(operand.shape)) for operand in instruction.operands] == [
        ("concatenate.5", "bf16[2048,2048]"), ("broadcast.36", "bf16[32,2048]")]
    assert (instruction.metadata.op_type, instruction.metadata.source_line) == ("aten__mm", 756)


def test_shape_of(split, handwritten, gpu):
    assert split.shape_of("ynn_fusion") == ArrayShape("f32", (32, 10), (False, False), Layout((1, 0)))
    loop = handwritten.shape_of("loop")
    assert isinstance(loop, TupleShape) and str(loop) == "(s32[], f32[2,2])"
    assert str(gpu.shape_of("tuple.292.0")) == (
        "(bf16[32,8,128], bf16[32,8,128], bf16[4233,16,8,128], bf16[4233,16,8,128])")
    assert split.shape_of("no_such_instruction") is None


# ---- module header -----------------------------------------------------------------------


def test_is_scheduled(split, combined, gpu, handwritten):
    assert (split.is_scheduled, combined.is_scheduled, gpu.is_scheduled) == (True, True, True)
    assert handwritten.is_scheduled is False


def test_no_aliased_parameters_without_donation(split, gpu):
    assert split.aliased_parameters() == frozenset()
    assert gpu.aliased_parameters() == frozenset()


def test_aliased_parameters_of_a_donated_dump(corpus, tmp_path):
    source = corpus / "jax-0.10.2" / "train_mlp_donate" / "module_0000.jit__lambda.cpu_after_optimizations.txt"
    copy = tmp_path / source.name
    shutil.copyfile(source, copy)
    assert module(copy).aliased_parameters() == frozenset((number, ()) for number in range(6))


def test_aliased_parameters_from_the_donated_header_line(tmp_path):
    path = tmp_path / "module_0000.jit__lambda.cpu_after_optimizations.txt"
    path.write_text(DONATED_HEADER + "\n")
    assert module(path).aliased_parameters() == frozenset((number, ()) for number in range(6))


@pytest.mark.parametrize("aliases", [
    "input_output_alias={ {0}: (0, {1}, may-alias), {1}: (2, {}, must-alias) }",
    # found by the fuzzer (#676167): a tab in `{1,\t}` was read as a number and the check stopped
    "input_output_alias={ {0}: (0, {1,\t}, may-alias), {1}: (2, {\t}, must-alias) }",
], ids=["spaces", "tabs"])
def test_aliased_parameters_with_a_tuple_parameter_index(tmp_path, aliases):
    path = tmp_path / "module.txt"
    path.write_text(DONATED_HEADER.replace(DONATED_HEADER[DONATED_HEADER.index("input_output_alias"):
                                                          DONATED_HEADER.index(", entry_computation")], aliases))
    assert module(path).aliased_parameters() == frozenset({(0, (1,)), (2, ())})


# ---- stack frames -------------------------------------------------------------------------


def where(frame: StackFrame) -> tuple[object, ...]:
    return frame.frame_id, frame.file_name, frame.function_name, frame.line, frame.column, frame.table_line


def test_stack_frame_resolves_file_function_and_line(split):
    assert where(split.stack_frame(6)) == (6, GEN_DUMPS, "_mlp3.<locals>.mlp", 172, 15, 25)
    assert where(split.stack_frame(1)) == (1, GEN_DUMPS, "<module>", 669, 4, 20)
    assert split.stack_frame(99) is None


def test_stack_frame_of_an_instructions_metadata(split):
    frame = split.stack_frame(split.parse(125).metadata.stack_frame_id)  # %add_maximum_fusion
    assert (frame.frame_id, frame.function_name, frame.line) == (5, "_mlp3.<locals>.mlp", 171)


def test_stack_of_the_outermost_frame_and_of_an_unknown_frame(split):
    assert [where(frame) for frame in split.stack(1)] == [(1, GEN_DUMPS, "<module>", 669, 4, 20)]
    assert split.stack(99) == []


def test_stack_walks_from_the_frame_to_the_outermost_caller(split):
    frames = split.stack(6)
    assert [(frame.frame_id, frame.function_name, frame.line, frame.parent_id) for frame in frames] == [
        (6, "_mlp3.<locals>.mlp", 172, 3), (3, "_mlp3", 174, 2), (2, "main", 646, 1), (1, "<module>", 669, None)]


# ---- source locations ------------------------------------------------------------------


def test_source_location_resolves_a_stack_frame_id_to_file_line_and_callers(split: HloModule) -> None:
    location = split.source_location(split.metadata(split.line_of("ynn_fusion.1")))
    assert location is not None
    assert (location.file_name, location.line, location.function_name) == (GEN_DUMPS, 169, "_mlp3.<locals>.mlp")
    assert [(f.function_name, f.line) for f in location.stack] == [
        ("_mlp3.<locals>.mlp", 169), ("_mlp3", 174), ("main", 646), ("<module>", 669)]


def test_source_location_reads_source_file_and_line(combined: HloModule) -> None:
    location = combined.source_location(combined.metadata(combined.line_of("dot.8")))
    assert location is not None
    assert (location.file_name, location.line, location.stack) == (GEN_DUMPS, 169, ())


def test_no_source_location_without_metadata(handwritten: HloModule) -> None:
    assert handwritten.source_location(handwritten.metadata(handwritten.line_of("sum"))) is None


# ---- an edited module ----------------------------------------------------------------------

ADD_LINE = 50  # `  %add.0 = f32[32,10]{1,0} add(%param_2.2, %add.1), metadata={op_name="jit(mlp)/add" ...`


def _edited(hlo: HloModule, old: str, new: str, line: int = ADD_LINE) -> HloModule:
    text = hlo.document.line(line)
    start = text.index(old)
    return hlo.edited(hlo.document.apply_edit(Range.on_line(line, start, start + len(old)), new))


@pytest.fixture
def split_mlp() -> HloModule:
    path = Path(f"{SPLIT_MLP}.txt")
    return HloModule(Document(path.read_text(), FileKind.HLO_MODULE, str(path)))


@pytest.mark.parametrize(("old", "new"), [('"jit(mlp)/add"', '"jit(mlp)/add_renamed"'),
                                          ("stack_frame_id=4}", "stack_frame_id=4 }"), ("add(", "add("),
                                          ("stack_frame_id=4", "stack_frame_id=5")])  # frames: resolved when asked
def test_an_edit_outside_names_and_shapes_keeps_the_structure(split_mlp: HloModule, old: str, new: str) -> None:
    edited = _edited(split_mlp, old, new)
    assert edited.structure_id is split_mlp.structure_id
    assert edited.document is not split_mlp.document
    assert edited.document.line(ADD_LINE).count(new) >= 1
    fresh = HloModule(edited.document)
    assert edited.all_computations() == fresh.all_computations()
    assert edited.line_of("add.0") == fresh.line_of("add.0") == ADD_LINE
    assert edited.defined_names() == fresh.defined_names()


@pytest.mark.parametrize(("old", "new"), [
    ("f32[32,10]", "f32[32,11]"),  # a shape
    ("%add.0", "%add.9"),  # a definition
    ("%param_2.2", "%param_9.9"),  # an operand
    ("add(", "subtract("),  # the opcode
    ("  %add.0", "  ROOT %add.0"),  # the root
    ("}", "}\n"),  # a new line
])
def test_an_edit_of_a_name_shape_or_line_reads_the_structure_again(split_mlp: HloModule, old: str,
                                                                      new: str) -> None:
    edited = _edited(split_mlp, old, new)
    assert edited.structure_id is not split_mlp.structure_id
    assert edited.all_computations() == HloModule(edited.document).all_computations()


# ---- defined names -------------------------------------------------------------------

def every_definition(document: Document) -> dict[Role, frozenset[str]]:
    found: dict[Role, set[str]] = {}
    for _, scan in document.scans():
        for ref in scan.refs:
            found.setdefault(ref.role, set()).add(ref.name)
    return {role: frozenset(names) for role, names in found.items()}


GARBLED = """HloModule m

FileNames
007 "a.py"

  %outside = f32[] constant(0)
%c (p: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %p = f32[] parameter(0)
  ROOT %r = f32[] add(%p,
    %p)
%d {
  ROOT %s = f32[] constant(1)
}
%c {
}
"""


@pytest.mark.parametrize("path", [Path(f"{SPLIT_MLP}.txt"), Path(f"{COMBINED_MLP}.txt"), GPU_HLO_SEED, HANDWRITTEN,
                                  *sorted(CORPUS.rglob("*after_optimizations.txt"))[:40]], ids=str)
def test_defined_names_are_the_names_every_line_defines(path: Path) -> None:
    hlo = module(path)
    assert hlo.defined_names() == every_definition(hlo.document)


def test_defined_names_of_a_garbled_module() -> None:
    """Names outside any computation or defined twice, a computation defined twice or left open, a
    row id printed with zeros in front."""
    hlo = HloModule(Document(GARBLED, FileKind.HLO_MODULE, "garbled.txt"))
    assert hlo.defined_names() == every_definition(hlo.document)
    assert hlo.defined_names()[Role.FILE_NAME_DEF] == {"007"}
    assert {"outside", "p", "r", "s"} <= hlo.defined_names()[Role.INSTRUCTION_DEF]


_HLO_DUMPS = sorted(path for path in DUMP_FILES if path.suffix in (".txt", ".hlo")
                    and detect_kind(path.name, path.read_text(errors="replace")) is FileKind.HLO_MODULE)


@pytest.mark.parametrize("path", _HLO_DUMPS, ids=lambda path: str(path.relative_to(DATA)))
def test_an_instructions_metadata_is_what_the_grammar_reads_of_its_text(path: Path) -> None:
    """Read as XLA prints it where its template is known to parse (every line of a template after the first), or
    from the parse: the same pairs, on every instruction of the bundled dumps, those on lines of several items and
    those going on over lines included."""
    hlo = module(path)
    for line, scan in hlo.document.scans():
        items = [item.data[0] for _, item in scan.data if item.kind == "instruction"] if scan.kind == "items" else \
            [scan.data[0]] if scan.kind == "instruction" and scan.data else []
        for name in items:
            parsed = hlo.parse(line, name)
            assert hlo.metadata(line, name) == (parsed.metadata if isinstance(parsed, Instruction) else None), \
                f"{path.name}:{line + 1}"

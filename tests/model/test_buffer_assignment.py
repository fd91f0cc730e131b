"""read_buffer_assignment on a combined dump (jax 0.4.38), a split dump (jax 0.10.2: three files) and seeds."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import COMBINED_MLP, CORPUS, DATA, SPLIT_CONTROL_FLOW, SPLIT_MLP, TPU_SEED
from hlo_lsp.model.buffer_assignment import BufferAssignment, Place, read_buffer_assignment
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Range
from hlo_lsp.workspace.loader import load

COMBINED_FILE = str(COMBINED_MLP) + "-buffer-assignment.txt"
SPLIT_FILES = {
    FileKind.BUFFER_ASSIGNMENT: str(SPLIT_MLP) + "-buffer-assignment.txt",
    FileKind.BUFFER_ASSIGNMENT_VALUES: str(SPLIT_MLP) + "-buffer-assignment-values.txt",
    FileKind.LIVE_RANGE: str(SPLIT_MLP) + "-live-range.txt",
}
ALLOCATIONS, VALUES, LIVE_RANGE = SPLIT_FILES.values()


def read(files: dict[FileKind, str]) -> BufferAssignment:
    return read_buffer_assignment(Document(Path(path).read_text(), kind, path) for kind, path in files.items())


@pytest.fixture(scope="module")
def combined() -> BufferAssignment:
    return read({FileKind.BUFFER_ASSIGNMENT: COMBINED_FILE})


@pytest.fixture(scope="module")
def split() -> BufferAssignment:
    return read(SPLIT_FILES)


def place(source: str, line: int, start: int, end: int) -> Place:
    return Place(source, line, Range.on_line(line, start, end))


# ---- allocations ---------------------------------------------------------------------------


def test_sources_and_sections(combined, split):
    assert combined.sources == [COMBINED_FILE]
    assert split.sources == [ALLOCATIONS, VALUES, LIVE_RANGE]
    for model in (combined, split):
        assert model.has_allocations_section and model.has_used_values_section
        assert not model.live_range_unavailable


def test_allocation_of_a_parameter(combined):
    allocation = combined.allocations[0]
    assert (allocation.index, allocation.size, allocation.color, allocation.page) == (0, 262144, 0, None)
    assert (allocation.parameter_number, allocation.parameter_shape, allocation.parameter_index) == (
        1, "f32[256,256]", ())
    assert allocation.kinds() == ["parameter 1"] and allocation.unread == ""
    assert allocation.place == place(COMBINED_FILE, 1, 0, 78)
    assert [value.label for value in allocation.values] == ["Arg_1.2"]


def test_allocation_kinds_of_the_combined_dump(combined):
    assert [a.index for a in combined.allocations] == list(range(15))
    assert [a.size for a in combined.allocations] == [
        262144, 131072, 16384, 10240, 1280, 1024, 1024, 40, 4, 4, 4, 4, 4, 4, 65536]
    assert [a.kinds() for a in combined.allocations] == [
        ["parameter 1"], ["parameter 0"], ["parameter 6"], ["parameter 2"], ["maybe-live-out"], ["parameter 3"],
        ["parameter 4"], ["parameter 5"]] + [["thread-local"]] * 6 + [["preallocated-temp"]]


def test_output_allocation(combined):
    output = combined.allocations[4]
    assert output.output_shape == "f32[32,10]" and output.maybe_live_out and not output.is_parameter
    assert [value.label for value in output.values] == ["dot.32", "broadcast_subtract_fusion"]


def test_split_allocations_come_from_the_allocations_file(split):
    assert len(split.allocations) == 15
    temp = split.allocations[14]
    assert temp.is_preallocated_temp and temp.size == 65536
    assert temp.place == place(ALLOCATIONS, 30, 0, 45)
    assert [(value.label, value.offset, value.size) for value in temp.values] == [
        ("ynn_fusion.2", 32768, 32768), ("broadcast_maximum_fusion", 32768, 32768), ("ynn_fusion.1", 0, 32768),
        ("add_maximum_fusion", 0, 32768), ("add_reduce_fusion", 0, 128), ("reduce_log_fusion", 128, 128)]


def test_colors_on_the_tpu_seed():
    model = read({FileKind.BUFFER_ASSIGNMENT: str(TPU_SEED)})
    assert [(a.index, a.color) for a in model.allocations if a.color] == [(11, 2), (12, 1)]
    assert model.allocations[11].kinds() == ["preallocated-temp", "color 2"]
    assert [(v.label, v.color, v.size, v.offset, v.shape_text) for v in model.allocations[11].values] == [
        ("copy-start.1{2}", 2, 4, 4, "u32[]{:S(2)}"), ("copy-start{2}", 2, 4, 0, "u32[]{:S(2)}")]
    assert model.allocations[7].output_shape == "(f32[8,128,4096])"
    assert [(v.label, v.index, v.size) for v in model.allocations[7].values] == [("tuple.31{}", (), 32)]


# ---- values -------------------------------------------------------------------------------


def test_value_line(combined):
    value = combined.value_by_id()[55]
    assert (value.value_id, value.name, value.index, value.is_phi, value.color) == (55, "dot.8", None, False, 0)
    assert (value.size, value.offset, value.end, value.allocation) == (32768, 32768, 65536, 14)
    assert value.shape_text == "f32[32,256]{1,0}"
    assert value.place == place(COMBINED_FILE, 31, 8, 21)  # `<55 dot.8 @0>`


def test_value_line_of_the_split_dump(split):
    value = split.value_by_id()[61]
    assert (value.label, value.size, value.offset, value.allocation) == ("ws_1_.1", 262144, 0, 0)
    assert value.place == place(ALLOCATIONS, 2, 8, 23)


def test_places_count_utf16_columns_and_leave_out_a_crlf_line_end():
    text = Path(VALUES).read_text().replace('op_name="reduce_max"}', 'op_name="reduce_\U0001F600"}', 1)
    model = read_buffer_assignment([Document(text.replace("\n", "\r\n"), FileKind.BUFFER_ASSIGNMENT_VALUES, VALUES)])
    line = text.split("\n").index(' from instruction: %reduce_max.3 = f32[] parameter(0), '
                                   'metadata={op_name="reduce_\U0001F600"}')
    used = next(used for used in model.used_values if used.instruction_name == "reduce_max.3")
    # the instruction text, to the end of the line without its `\r`; the emoji is two UTF-16 code units
    start = len(" from instruction: ")
    assert used.instruction_place is not None
    assert used.instruction_place.range == Range.on_line(line, start, len(text.split("\n")[line]) + 1)
    assert used.instruction_text == text.split("\n")[line][start:]  # read again from the line, without `\r`
    assert used.place.range == Range.on_line(line - 5, 0, len("<0 reduce_max.3 @0>"))


def test_phi_values_with_an_index():
    model = read({FileKind.BUFFER_ASSIGNMENT: str(SPLIT_CONTROL_FLOW) + "-buffer-assignment.txt"})
    value = model.value_by_id()[136]
    assert (value.name, value.index, value.is_phi, value.color, value.label) == (
        "cond.9.clone", (0,), True, 0, "cond.9.clone{0}")
    assert value.place.range == Range.on_line(9, 8, 38)  # `<136 cond.9.clone{0} (phi) @0>`
    assert [v.label for v in model.values() if v.is_phi][:3] == ["cond.9.clone{0}", "arg_tuple.6{1}", "arg_tuple.8{1}"]


def test_values_named(combined):
    assert [(v.value_id, v.allocation) for v in combined.values_named("broadcast_subtract_fusion")] == [(67, 4)]
    assert combined.values_named("no_such_value") == []


# ---- totals and used values ------------------------------------------------------------------------


def test_totals(combined, split):
    assert (combined.totals.size, combined.totals.human) == (488768, "477.3KiB")
    assert combined.totals.place == place(COMBINED_FILE, 38, 0, 35)
    assert (split.totals.size, split.totals.human) == (488768, "477.3KiB")
    assert split.totals.place == place(VALUES, 1, 0, 35)


def test_used_value_with_uses_and_instruction(combined):
    used = {u.value_id: u for u in combined.used_values}[63]
    assert (used.name, used.index, used.is_phi, used.color, used.header) == ("dot.32", None, False, 0, "<63 dot.32 @0>")
    assert used.place == place(COMBINED_FILE, 135, 0, 14)
    assert [(p.name, p.index, p.place.line) for p in used.positions] == [("dot.32", None, 137)]
    assert [(u.name, u.operand, u.index, u.place) for u in used.uses] == [
        ("add_reduce_fusion", 0, None, place(COMBINED_FILE, 139, 2, 30)),
        ("broadcast_subtract_fusion", 2, None, place(COMBINED_FILE, 140, 2, 38)),
        ("reduce_log_fusion", 1, None, place(COMBINED_FILE, 141, 2, 30))]
    assert used.instruction_text.startswith(
        "%dot.32 = f32[32,10]{1,0} dot(f32[32,256]{1,0} %add_maximum_fusion, f32[256,10]{1,0} %Arg_2.3)")
    assert (used.instruction_name, used.instruction_shape) == ("dot.32", "f32[32,10]{1,0}")
    assert used.instruction_place == place(COMBINED_FILE, 142, 19, 284)  # after ` from instruction: `


def test_used_values_without_uses_in_both_spellings(combined, split):
    # jax 0.4.38 prints nothing after ` uses:`; jax 0.10.2 prints `  (none)`.
    assert {u.value_id: u for u in combined.used_values}[15].uses == ()
    no_uses = {u.value_id: u for u in split.used_values}[2]
    assert (no_uses.name, no_uses.uses, no_uses.place) == ("reduce_max.5", (), place(VALUES, 16, 0, 19))
    assert (no_uses.instruction_name, no_uses.instruction_shape) == ("reduce_max.5", "f32[]")


def test_split_used_values_come_from_the_values_file(split):
    assert len(split.used_values) == 21
    used = {u.value_id: u for u in split.used_values}[66]
    assert [(u.name, u.operand, u.place.line) for u in used.uses] == [
        ("add_reduce_fusion", 0, 104), ("broadcast_subtract_fusion", 2, 105), ("reduce_log_fusion", 1, 106)]
    assert {u.place.source for u in split.used_values} == {VALUES}


def test_positions_and_uses_with_a_tuple_index():
    values = str(SPLIT_CONTROL_FLOW) + "-buffer-assignment-values.txt"
    model = read({FileKind.BUFFER_ASSIGNMENT_VALUES: values})
    used = {u.value_id: u for u in model.used_values}[136]
    assert (used.label, used.is_phi) == ("cond.9.clone{0}", True)
    assert [(p.name, p.index) for p in used.positions] == [
        ("cond.9.clone", (0,)), ("get-tuple-element.62", None), ("tuple.30", (1,))]
    assert [(u.name, u.operand, u.index) for u in used.uses] == [("while.1", 0, (1,))]
    assert used.instruction_shape == "(f32[16,16]{1,0})"


# ---- live ranges ---------------------------------------------------------------------------------


def test_live_range_of_the_combined_dump(combined):
    live = combined.live_range
    assert (live.max_time, live.place) == (15, place(COMBINED_FILE, 171, 0, 22))
    assert [entry.name for entry in live.schedule][:3] == ["Arg_0.1", "Arg_6.7", "dot.8"]
    assert (live.schedule[2].time, live.schedule[2].place) == (2, place(COMBINED_FILE, 175, 4, 11))
    assert len(live.schedule) == 15 and len(live.ranges) == 15
    dot = combined.live_range_of("dot.8")
    assert (dot.name, dot.index, dot.start, dot.end, dot.place) == ("dot.8", (), 2, 4, place(COMBINED_FILE, 191, 4, 15))


def test_old_peak_format(combined):
    live = combined.live_range
    assert (live.peak_time, live.peak_place, live.peak_format) == (4, place(COMBINED_FILE, 204, 2, 26), "old")
    assert [(p.name, p.index, p.size, p.cumulative) for p in live.peak] == [
        ("Arg_6.7", None, 16384, None), ("Arg_0.1", None, 131072, None), ("dot.8", None, 32768, None),
        ("Arg_3.4", None, 1024, None), ("broadcast_maximum_fusion", None, 32768, None),
        ("Arg_1.2", None, 262144, None), ("Arg_4.5", None, 1024, None), ("Arg_2.3", None, 10240, None),
        ("Arg_5.6", None, 40, None)]
    assert live.peak[0].place == place(COMBINED_FILE, 205, 4, 24)
    assert (live.breakdown_total, live.breakdown) == (None, ())


def test_new_peak_format(split):
    live = split.live_range
    assert (live.max_time, live.peak_time, live.peak_format) == (15, 9, "new")
    assert (live.place, live.peak_place) == (place(LIVE_RANGE, 0, 0, 22), place(LIVE_RANGE, 33, 2, 26))
    assert [(p.label, p.size, p.cumulative) for p in live.peak] == [
        ("ws_1_.1{}", 262144, 262144), ("ws_0_.1{}", 131072, 393216), ("broadcast_maximum_fusion{}", 32768, 425984),
        ("ynn_fusion.1{}", 32768, 458752), ("x.1{}", 16384, 475136), ("ws_2_.1{}", 10240, 485376),
        ("bs_0_.1{}", 1024, 486400), ("bs_1_.1{}", 1024, 487424), ("bs_2_.1{}", 40, 487464)]
    assert live.peak[0].place == place(LIVE_RANGE, 34, 4, 54)
    ynn = split.live_range_of("ynn_fusion")
    assert (ynn.start, ynn.end, ynn.place) == (11, 14, place(LIVE_RANGE, 28, 4, 22))


def test_stack_trace_breakdown_frames_with_depths(split):
    live = split.live_range
    assert live.breakdown_total == 487464
    assert [(f.depth, f.label, f.percent, f.total, f.current, f.remaining) for f in live.breakdown] == [
        (1, "main.5", 100.0, 487464, 0, 487464),
        (2, "ws[1]", 53.8, 262144, 262144, 225320),
        (2, "ws[0]", 26.9, 131072, 131072, 94248),
        (2, "jit(mlp)/dot_general", 6.7, 32768, 32768, 61480),
        (2, "jit(mlp)/jit(relu)/max", 6.7, 32768, 32768, 28712),
        (2, "x", 3.4, 16384, 16384, 12328),
        (2, "ws[2]", 2.1, 10240, 10240, 2088),
        (2, "bs[0]", 0.2, 1024, 1024, 1064),
        (2, "bs[1]", 0.2, 1024, 1024, 40),
        (2, "bs[2]", 0.0, 40, 40, 0)]
    assert live.breakdown[0].place == place(LIVE_RANGE, 44, 4, 10)
    assert live.breakdown[1].place == place(LIVE_RANGE, 45, 10, 15)  # after `├── `
    assert live.breakdown[-1].place == place(LIVE_RANGE, 53, 10, 15)  # after `└── `


def test_live_range_entries_with_tuple_indices():
    model = read({FileKind.BUFFER_ASSIGNMENT: str(TPU_SEED)})
    assert [(r.label, r.start, r.end) for r in model.live_range.ranges][:4] == [
        ("p3.6{}", 0, 15), ("copy-start.1{}", 6, 8), ("copy-start.1{0}", 6, 9), ("copy-start.1{2}", 6, 8)]
    assert [(p.name, p.size) for p in model.live_range.peak if p.name == "copy-start"] == [("copy-start", 24)]


def test_the_values_file_is_read_when_its_sections_are_first_asked_for():
    documents = {kind: Document(Path(path).read_text(), kind, path) for kind, path in SPLIT_FILES.items()}
    model = read_buffer_assignment(documents.values())
    values_document = documents[FileKind.BUFFER_ASSIGNMENT_VALUES]
    assert model.allocations and model.live_range is not None
    assert values_document.text == Path(VALUES).read_text()
    assert values_document._chunks is None  # not scanned yet
    assert model.totals is not None and model.totals.size == 488768
    assert model.has_used_values_section and len(model.used_values) == len(read(SPLIT_FILES).used_values) > 0
    assert values_document._chunks is not None


def test_a_peak_list_over_many_chunks_is_read_in_order_and_read_again_alike() -> None:
    """A peak list longer than a chunk is read chunk by chunk (its chunks of peak entries alone are kept with
    what was read of them): the same entries, in the file's order, whether read the first time or again."""
    path = Path(f"{SPLIT_MLP}-live-range.txt")
    lines = path.read_text().split("\n")
    peak = next(number for number, text in enumerate(lines) if text.endswith("(peak):"))
    entries = [f"    v{number}{{}}: {number + 1} bytes (cumulative: {(number + 1) * (number + 2) // 2} bytes)"
               for number in range(3000)]  # (a chunk holds 512 lines)
    end = next(number for number in range(peak + 1, len(lines)) if "bytes (cumulative" not in lines[number])
    text = "\n".join(lines[: peak + 1] + entries + lines[end:])

    def read_peak() -> list[tuple[str, int, int]]:
        section = read_buffer_assignment([document]).live_range
        assert section is not None
        return [(entry.name, entry.size, entry.place.range.start.line) for entry in section.peak]

    document = Document(text, FileKind.LIVE_RANGE, str(path))
    first, again = read_peak(), read_peak()
    assert first == again == [(f"v{number}", number + 1, peak + 1 + number) for number in range(3000)]
    section = read_buffer_assignment([document]).live_range
    assert section is not None and section.peak.total == sum(range(1, 3001))


def test_instruction_shapes_read_from_the_values_lines_alone_are_the_used_values_shapes() -> None:
    """A peak's shapes come from the values file's value and `from instruction:` lines, without reading the rest
    of it: for every bundled dump (and the shared corpus and producers' when beside the project), the shapes of
    the used values once the whole file is read."""
    folders = [DATA] + [folder for folder in (CORPUS, CORPUS.parent / "producers") if folder.is_dir()]
    compared = 0
    for module in load([str(folder) for folder in folders]).modules:
        documents = module.buffer_assignment_documents
        if not documents:
            continue
        buffers = read_buffer_assignment(documents)
        from_lines = buffers.instruction_shapes()
        assert buffers.used_values is not None  # now read whole
        assert from_lines == buffers.instruction_shapes(), module.stem
        compared += bool(from_lines)
    assert compared >= 35

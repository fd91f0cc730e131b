"""Call hierarchy over computations: prepared on a computation's name (defined or used), callers through
the instructions that name it, callees through calls=, to_apply=, condition=, body=, branches."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import (
    COMBINED_CONTROL_FLOW,
    GPU_HLO_SEED,
    HANDWRITTEN,
    SPLIT_CONTROL_FLOW,
    SPLIT_MLP,
    line_with,
    lines_of,
    module_of,
)
from hlo_lsp.features.call_hierarchy import Call, CallItem, incoming_calls, outgoing_calls, prepare_call_hierarchy
from hlo_lsp.features.targets import target_at
from hlo_lsp.text import Position, Range

CONTROL_FLOW = Path(f"{SPLIT_CONTROL_FLOW}.txt")
CONTROL_FLOW_BUFFERS = Path(f"{SPLIT_CONTROL_FLOW}-buffer-assignment-values.txt")


def prepare(path: Path, needle: str, name: str) -> list[CallItem]:
    """The items prepared with the cursor on `name` in the one line containing `needle`."""
    module = module_of(path)
    document = next(d for d in module.all_documents() if Path(d.source).name == path.name)
    line = line_with(path, needle)
    target = target_at(document, Position(line, lines_of(path)[line].index(name) + 1))
    assert target is not None
    return prepare_call_hierarchy(module, target)


def text_at(path: Path, where: Range) -> str:
    assert where.start.line == where.end.line
    return lines_of(path)[where.start.line][where.start.character:where.end.character]


def header_range(path: Path, header: str) -> Range:
    line = line_with(path, header)
    text = lines_of(path)[line]
    return Range(Position(line, 0), Position(line, len(text.rstrip())))


def calls(found: list[Call]) -> dict[str, list[int]]:
    return {call.item.name: [where.start.line for where in call.from_ranges] for call in found}


def test_prepare_on_a_body_gives_the_computation_with_its_header_and_name() -> None:
    items = prepare(CONTROL_FLOW, "  %while.1 = ", "region_6.8.clone.clone.clone")
    assert [item.name for item in items] == ["region_6.8.clone.clone.clone"]
    item = items[0]
    header = "%region_6.8.clone.clone.clone (arg_tuple.8: (s32[], f32[16,16])) -> (s32[], f32[16,16]) {"
    assert item.range == header_range(CONTROL_FLOW, header)
    assert text_at(CONTROL_FLOW, item.selection_range) == "region_6.8.clone.clone.clone"
    assert item.selection_range.start.line == item.range.start.line
    assert item.source == str(CONTROL_FLOW)
    assert item.detail == "8 instructions"


def test_prepare_on_each_way_of_calling() -> None:
    cases = [("  %cond.8.clone = ", "region_1.2"), ("  %cond.9.clone = ", "region_4.6"),
             ("  %while.19 = ", "region_9.11"), ("  %wrapped_clamp = ", "wrapped_clamp_computation"),
             ("ROOT %reduce_sum.1 = ", "region_5.5"), ("%fused_computation.8 (", "fused_computation.8"),
             ("ENTRY %main.15 (", "main.15")]
    for needle, name in cases:
        assert [item.name for item in prepare(CONTROL_FLOW, needle, name)] == [name], needle
    entry = prepare(CONTROL_FLOW, "ENTRY %main.15 (", "main.15")[0]
    assert entry.detail.startswith("ENTRY, ")


def test_nothing_to_prepare_on_an_instruction() -> None:
    assert prepare(CONTROL_FLOW, "  %while.1 = ", "while.1") == []


def test_incoming_calls_are_the_calling_computations_with_the_call_sites() -> None:
    module = module_of(CONTROL_FLOW)
    found = incoming_calls(module, "region_6.8.clone.clone.clone")
    assert calls(found) == {"main.15": [line_with(CONTROL_FLOW, "  %while.1 = ")]}
    (call,) = found
    assert text_at(CONTROL_FLOW, call.from_ranges[0]) == "region_6.8.clone.clone.clone"
    assert call.item.range == header_range(CONTROL_FLOW, "ENTRY %main.15 (")
    # A reducer called by two computations' reduce instructions.
    callers = calls(incoming_calls(module, "wrapped_add_computation"))
    assert callers == {"region_6.8.clone.clone.clone": [line_with(CONTROL_FLOW, "  %wrapped_add = ")]}
    assert incoming_calls(module, "main.15") == []


def test_outgoing_calls_of_the_entry_computation_through_every_attribute() -> None:
    module = module_of(CONTROL_FLOW)
    text = CONTROL_FLOW.read_text()
    entry = text[text.index("ENTRY %main.15"):]
    entry = entry[: entry.index("\n}")]
    named = re.findall(r"(?:calls|to_apply|condition|body)=%([\w.\-]+)|branch_computations=\{([^}]*)\}", entry)
    expected: list[str] = []
    for single, branches in named:
        for name in [single] if single else [part.strip().lstrip("%") for part in branches.split(",")]:
            if name not in expected:
                expected.append(name)
    found = outgoing_calls(module, "main.15")
    assert [call.item.name for call in found] == expected
    assert {"region_0.1", "region_1.2", "region_2.3", "region_3.4", "region_4.6", "region_7.9.clone.clone",
            "region_6.8.clone.clone.clone", "region_9.11", "region_8.10", "fused_computation.8"} <= set(expected)
    branch = next(call for call in found if call.item.name == "region_3.4")
    assert [text_at(CONTROL_FLOW, where) for where in branch.from_ranges] == ["region_3.4"]
    assert branch.from_ranges[0].start.line == line_with(CONTROL_FLOW, "  %cond.9.clone = ")


def test_a_while_body_calls_its_fusions_and_a_fusion_calls_nothing() -> None:
    module = module_of(CONTROL_FLOW)
    assert calls(outgoing_calls(module, "region_6.8.clone.clone.clone")) == {
        "fused_computation.7": [line_with(CONTROL_FLOW, "  %multiply_add_fusion.1 = ")],
        "wrapped_add_computation": [line_with(CONTROL_FLOW, "  %wrapped_add = ")]}
    assert outgoing_calls(module, "fused_computation.7") == []


def test_prepare_from_a_buffer_assignment_file_goes_to_the_module() -> None:
    module = module_of(CONTROL_FLOW_BUFFERS)
    document = next(d for d in module.all_documents() if Path(d.source).name == CONTROL_FLOW_BUFFERS.name)
    line = next(number for number, text in enumerate(lines_of(CONTROL_FLOW_BUFFERS))
                if "from instruction:" in text and "calls=%wrapped_reduce_computation" in text)
    column = lines_of(CONTROL_FLOW_BUFFERS)[line].index("wrapped_reduce_computation")
    target = target_at(document, Position(line, column))
    assert target is not None and target.kind == "computation"
    (item,) = prepare_call_hierarchy(module, target)
    assert item.source == str(CONTROL_FLOW)
    assert item.range == header_range(CONTROL_FLOW, "%wrapped_reduce_computation (")


def test_older_xla_without_sigils() -> None:
    hlo = Path(f"{COMBINED_CONTROL_FLOW}.txt")
    module = module_of(hlo)
    entry = next(c for c in module.hlo.computations.values() if c.is_entry)  # type: ignore[union-attr]
    callees = outgoing_calls(module, entry.name)
    assert callees
    for call in callees:
        callers = calls(incoming_calls(module, call.item.name))
        assert entry.name in callers
        assert text_at(hlo, call.from_ranges[0]) == call.item.name


def test_seed_and_handwritten_modules() -> None:
    module = module_of(GPU_HLO_SEED)
    for computation in module.hlo.all_computations():  # type: ignore[union-attr]
        for call in outgoing_calls(module, computation.name):
            assert computation.name in calls(incoming_calls(module, call.item.name))
    handwritten = module_of(HANDWRITTEN)
    names = [c.name for c in handwritten.hlo.all_computations()]  # type: ignore[union-attr]
    assert any(outgoing_calls(handwritten, name) for name in names)


def test_no_hierarchy_without_a_module() -> None:
    module = module_of(Path(f"{SPLIT_MLP}-live-range.txt"))
    assert module.hlo is not None  # found on disk beside it
    assert incoming_calls(module, "no_such_computation") == []
    assert outgoing_calls(module, "no_such_computation") == []

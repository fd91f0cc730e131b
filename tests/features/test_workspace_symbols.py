"""Workspace symbols: computations, allocations and instructions of the bundled dumps by name."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import COMBINED_MLP, HANDWRITTEN, SPLIT_CONTROL_FLOW, SPLIT_MLP, module_of
from hlo_lsp.features.types import Location, WorkspaceSymbol
from hlo_lsp.features.workspace_symbols import workspace_symbols
from hlo_lsp.text import Range

HLO = Path(f"{SPLIT_CONTROL_FLOW}.txt")
ALLOCATIONS = Path(f"{SPLIT_CONTROL_FLOW}-buffer-assignment.txt")
_INSTRUCTION = re.compile(r"\s*(?:ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=")


def text_at(symbol: WorkspaceSymbol) -> str:
    where = symbol.location.range
    assert where.start.line == where.end.line
    line = Path(symbol.location.source).read_text().split("\n")[where.start.line]
    return line[where.start.character : where.end.character]


def closeness(name: str, query: str) -> int:
    return 0 if name.lower() == query.lower() else 1 if name.lower().startswith(query.lower()) else 2


def test_an_exact_computation_name_comes_first_with_its_header_range() -> None:
    found = workspace_symbols([module_of(HLO)], "main.15")
    lines = HLO.read_text().split("\n")
    header = next(n for n, text in enumerate(lines) if text.startswith("ENTRY %main.15 "))
    start = lines[header].index("main.15")
    location = Location(str(HLO), Range.on_line(header, start, start + len("main.15")))
    assert found[0] == WorkspaceSymbol("main.15", "function", location, HLO.name)


def test_exact_then_prefix_then_contained_matches_shorter_names_first() -> None:
    found = workspace_symbols([module_of(HLO)], "wrapped_add")
    assert [(s.name, s.kind) for s in found] == [
        ("wrapped_add", "variable"),
        ("wrapped_add.1", "variable"),
        ("wrapped_add.2", "variable"),
        ("wrapped_add_computation", "function"),
        ("wrapped_add_computation.1", "function"),
        ("wrapped_add_computation.2", "function"),
    ]
    ranked = [(closeness(s.name, "add"), len(s.name)) for s in workspace_symbols([module_of(HLO)], "add")]
    assert ranked == sorted(ranked)
    assert {rank for rank, _ in ranked} == {1, 2}


def test_matching_ignores_case() -> None:
    module = module_of(HLO)
    assert workspace_symbols([module], "WRAPPED_Add") == workspace_symbols([module], "wrapped_add")


def test_instructions_name_their_computation_and_locate_their_name() -> None:
    found = workspace_symbols([module_of(HLO)], "add.23")
    assert [(s.name, s.kind, s.container) for s in found] == [("add.23", "variable", "fused_computation.5")]
    assert text_at(found[0]) == "add.23"
    lines = HLO.read_text().split("\n")
    assert "ROOT %add.23 = " in lines[found[0].location.range.start.line]


def test_an_instruction_name_defined_in_several_computations_is_found_in_each() -> None:
    found = workspace_symbols([module_of(HANDWRITTEN)], "state")
    assert [(s.name, s.container) for s in found] == [("state", "cond"), ("state", "body")]
    assert all(text_at(s) == "state" for s in found)


def test_allocations_are_found_in_the_buffer_assignment_file() -> None:
    found = workspace_symbols([module_of(HLO)], "allocation 1")
    names = [s.name for s in found]
    assert names[0] == "allocation 1"
    assert sorted(names[1:]) == sorted(f"allocation {n}" for n in range(10, 20))
    lines = ALLOCATIONS.read_text().split("\n")
    first = found[0]
    assert (first.kind, first.container, first.location.source) == ("struct", ALLOCATIONS.name, str(ALLOCATIONS))
    assert first.location.range == Range.on_line(lines.index(next(t for t in lines if t.startswith("allocation 1:"))),
                                                 0, len("allocation 1"))


def test_an_empty_query_lists_everything_up_to_the_limit() -> None:
    module = module_of(HLO)
    lines = HLO.read_text().split("\n")
    computations = sum(1 for text in lines if text.startswith(("%", "ENTRY")))
    instructions = sum(1 for text in lines if text.startswith("  ") and _INSTRUCTION.match(text))
    allocations = sum(1 for text in ALLOCATIONS.read_text().split("\n") if text.startswith("allocation "))
    everything = workspace_symbols([module], "", limit=10_000)
    assert len(everything) == computations + instructions + allocations
    assert [s.kind for s in everything] == (["function"] * computations + ["struct"] * allocations
                                            + ["variable"] * instructions)
    assert workspace_symbols([module], "", limit=7) == everything[:7]


def test_the_limit_keeps_the_best_matches() -> None:
    module = module_of(HLO)
    assert workspace_symbols([module], "fusion", limit=3) == workspace_symbols([module], "fusion")[:3]


def test_each_module_of_the_workspace_is_searched() -> None:
    found = workspace_symbols([module_of(Path(f"{SPLIT_MLP}.txt")), module_of(Path(f"{COMBINED_MLP}.txt"))],
                              "broadcast_subtract_fusion")
    assert [(s.name, Path(s.location.source).name) for s in found] == [
        ("broadcast_subtract_fusion", Path(f"{SPLIT_MLP}.txt").name),
        ("broadcast_subtract_fusion", Path(f"{COMBINED_MLP}.txt").name),
    ]
    assert all(text_at(s) == "broadcast_subtract_fusion" for s in found)


def test_no_match_gives_nothing() -> None:
    assert workspace_symbols([module_of(HLO)], "no-such-name") == []

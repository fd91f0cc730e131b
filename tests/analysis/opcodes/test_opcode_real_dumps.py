"""hlo-opcodes on real dumps: one fault planted in a copy, every bundled and corpus dump clean, and an edit
that keeps the structure checked again in its chunk only."""

from __future__ import annotations

from pathlib import Path

import pytest
from opcode_cases import CODES, ERROR, underlined_in

from helpers import (
    CORPUS,
    DATA,
    HANDWRITTEN,
    SPLIT_CONTROL_FLOW,
    SPLIT_MLP,
    TPU_PALLAS,
    TPU_STEP,
    is_dump,
    plant_in_copy,
    problems_of,
    where,
)
from hlo_lsp.analysis.checks import opcodes
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.problems import Problem
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.loader import load


# ---- faults planted in real dumps ----------------------------------------------------------------------------
def planted(stem: Path, tmp_path: Path, old: str, new: str) -> tuple[Path, int, list[Problem]]:
    hlo, line = plant_in_copy(stem, ".txt", tmp_path, old, new)
    return hlo, line, problems_of(tmp_path)


def test_fusion_kind_misspelt_in_a_real_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(SPLIT_MLP, tmp_path, "kind=kLoop, calls=%fused_computation.7",
                                  "kind=kloop, calls=%fused_computation.7")
    assert where(problems) == [(hlo.name, line, ERROR, "attribute-value")]
    assert problems[0].message == ("kind: expects fusion kind but sees: kloop (one of kLoop, kInput, kOutput, "
                                   "kCustom)")
    assert underlined_in(hlo, problems[0]) == "kloop"


def test_reduce_without_its_computation_in_a_real_dump(tmp_path: Path) -> None:
    old = "dimensions={1}, to_apply=%region_1.3, metadata"
    hlo, line, problems = planted(SPLIT_MLP, tmp_path, old, "dimensions={1}, metadata")
    assert where(problems) == [(hlo.name, line, ERROR, "missing-attribute")]
    assert problems[0].message == "attribute to_apply is expected but not seen (reduce requires it)"


def test_parameter_gap_in_a_real_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(SPLIT_MLP, tmp_path, "%x.1 = f32[32,128]{1,0} parameter(6)",
                                  "%x.1 = f32[32,128]{1,0} parameter(7)")
    assert where(problems) == [(hlo.name, line, ERROR, "parameter-number")]
    assert problems[0].message == ("parameter number 7 leaves a gap: the computation has 7 parameters, numbered "
                                   "from 0 (XLA's parser crashes)")


def test_constant_out_of_range_in_a_real_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(SPLIT_CONTROL_FLOW, tmp_path, "%constant.24 = s32[] constant(1)",
                                  "%constant.24 = s8[] constant(1000)")
    assert [(p.code, p.message) for p in problems if p.code in CODES] == [
        ("literal-range", "value 1000 is out of range for s8 [-128, 127]")]
    assert [where([p]) for p in problems if p.code in CODES] == [[(hlo.name, line, ERROR, "literal-range")]]


def test_copy_start_attribute_on_a_tpu_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(TPU_STEP, tmp_path, "copy-start(%param.2)", "copy-start(%param.2), index=1")
    assert [(p.range.start.line, p.code) for p in problems if p.code in CODES] == [(line, "unknown-attribute")]


def test_two_async_starts_of_one_computation_on_a_tpu_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(TPU_PALLAS, tmp_path, "async-start(%k.1), calls=%async_computation.2",
                                  "async-start(%k.1), calls=%async_computation.4")
    mine = [p for p in problems if p.code in CODES]
    assert [(p.range.start.line, p.code, underlined_in(hlo, p)) for p in mine] == [
        (line + 1, "async-chain", "%async_computation.4")]


def test_a_conditional_on_a_pred_takes_true_and_false_computations(tmp_path: Path) -> None:
    # XLA: unexpected attribute "branch_computations" (its selector is a pred: true_/false_computation).
    assert [p for p in problems_of(HANDWRITTEN) if p.code in CODES] == []
    copy = tmp_path / HANDWRITTEN.name
    copy.write_text(HANDWRITTEN.read_text().replace("true_computation=on_true, false_computation=on_false",
                                                    "branch_computations={on_true, on_false}"))
    problems = [p for p in problems_of(copy) if p.code in CODES]
    assert [(p.range.start.line, p.code) for p in problems] == [(51, "unknown-attribute")]


# ---- real dumps are clean ----------------------------------------------------------------------------------------
def opcode_problems_of_modules(*roots: Path) -> list[str]:
    found = []
    for loaded_module in load([str(root) for root in roots]).modules:
        if loaded_module.hlo is not None and loaded_module.hlo.document.source != str(HANDWRITTEN):
            found += [f"{p.source}:{p.range}: {p.message}" for p in opcodes.check(CheckContext(loaded_module))]
    return found


def test_every_bundled_dump_reads_clean() -> None:
    assert [path for path in DATA.rglob("*.txt") if is_dump(path)]
    assert opcode_problems_of_modules(DATA) == []


def test_the_shared_corpus_and_producers_read_clean(corpus: Path) -> None:
    producers = CORPUS.parent / "producers"
    if not producers.is_dir():
        pytest.skip(f"the producers' dumps are not beside the project ({producers})")
    assert opcode_problems_of_modules(corpus, producers) == []


def test_an_edit_that_keeps_the_structure_is_checked_again_in_its_chunk_only() -> None:
    text = Path(f"{SPLIT_MLP}.txt").read_text()
    document = Document(text, FileKind.HLO_MODULE, "m.txt")
    before = ModuleDump("m", {FileKind.HLO_MODULE: document})
    assert list(opcodes.check(CheckContext(before))) == []
    line = next(n for n, t in enumerate(text.split("\n")) if "kind=kLoop, calls=%fused_computation.7" in t)
    column = text.split("\n")[line].index("kLoop")
    edited = document.apply_edit(Range(Position(line, column), Position(line, column + 5)), "kloop")
    after = ModuleDump("m", {FileKind.HLO_MODULE: edited})
    after.__dict__["hlo"] = before.hlo.edited(edited)  # type: ignore[union-attr] - as the server keeps views
    assert after.hlo is not None and after.hlo.structure_id is before.hlo.structure_id  # type: ignore[union-attr]
    problems = list(opcodes.check(CheckContext(after)))
    assert [(p.range.start.line, p.range.start.character, p.code) for p in problems] == [
        (line, column, "attribute-value")]

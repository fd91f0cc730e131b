"""check_module: every check over a module, sorted and de-duplicated, and never raising."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import (
    COMBINED_CONTROL_FLOW,
    COMBINED_MLP,
    DATA,
    GPU_SEED,
    HANDWRITTEN,
    SPLIT_CONTROL_FLOW,
    SPLIT_HLO,
    SPLIT_MLP,
    TPU_SEED,
    copy_module,
    module_of,
    plant,
)
from hlo_lsp.analysis import run
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.analysis.run import check_module
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.loader import load

MODULES = load([str(DATA)]).modules


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(Path(m.stem).relative_to(DATA)))
def test_every_bundled_module_is_clean(module: object) -> None:
    assert check_module(module) == []  # type: ignore[arg-type]


def test_bundled_dumps_load_without_file_problems() -> None:
    assert load([str(DATA)]).problems == []
    stems = {module.stem for module in MODULES}
    assert {str(SPLIT_MLP), str(COMBINED_MLP), str(SPLIT_CONTROL_FLOW), str(COMBINED_CONTROL_FLOW),
            str(GPU_SEED).removesuffix(".buffer-assignment.txt"), str(TPU_SEED).removesuffix(".buffer-assignment.txt"),
            str(HANDWRITTEN).removesuffix(".hlo")} <= stems


def boom(context: CheckContext) -> Iterator[Problem]:
    raise RuntimeError("boom")


def test_a_check_that_raises_becomes_an_internal_error_warning(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    line = plant(Path(f"{stem}-buffer-assignment.txt"), "allocation 3: size 10240", "allocation 4: size 10240")
    monkeypatch.setattr(run, "CHECKS", (("boom", boom),) + run.CHECKS)

    problems = check_module(module_of(Path(f"{stem}.txt")))

    internal = [p for p in problems if p.code == "internal-error"]
    assert [(p.source, p.range.start.line, p.severity) for p in internal] == [(str(stem), 0, Severity.WARNING)]
    assert internal[0].message.startswith("internal error in the boom check: RuntimeError('boom') at ")
    assert __file__ in internal[0].message
    # The other checks still report.
    others = [(p.range.start.line, p.code) for p in problems if p.code != "internal-error"]
    assert others == [(line, "allocation-index")]


def test_a_check_that_raises_after_yielding_loses_only_its_own_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    module = module_of(Path(f"{SPLIT_MLP}.txt"))
    here = Problem(str(SPLIT_MLP), Range(Position(3, 0), Position(3, 1)), Severity.ERROR, "mine", "mine")

    def half(context: CheckContext) -> Iterator[Problem]:
        yield here
        raise ValueError("half")

    monkeypatch.setattr(run, "CHECKS", (("half", half),))
    problems = check_module(module)
    assert [p.code for p in problems] == ["internal-error"]
    assert "internal error in the half check: ValueError('half')" in problems[0].message


def test_syntax_that_raises_is_reported_on_each_document(monkeypatch: pytest.MonkeyPatch) -> None:
    module = module_of(Path(f"{SPLIT_MLP}.txt"))

    def broken(document: object, on_lines: object = None) -> list[Problem]:
        raise IndexError("no line")

    monkeypatch.setattr(run, "syntax_problems", broken)
    problems = check_module(module)
    assert sorted(p.source for p in problems) == sorted(d.source for d in module.all_documents())
    assert {(p.code, p.severity, p.range.start.line) for p in problems} == {("internal-error", Severity.WARNING, 0)}
    assert all(p.message.startswith("internal error in the syntax check: IndexError('no line')") for p in problems)


def test_problems_are_sorted_by_place_and_de_duplicated(monkeypatch: pytest.MonkeyPatch) -> None:
    module = module_of(Path(f"{SPLIT_MLP}.txt"))

    def at(source: str, line: int, column: int, code: str) -> Problem:
        return Problem(source, Range(Position(line, column), Position(line, column + 1)), Severity.ERROR, code, code)

    late, early, same_place = at("b.txt", 9, 0, "z"), at("a.txt", 20, 4, "y"), at("b.txt", 9, 0, "a")

    def noisy(context: CheckContext) -> Iterator[Problem]:
        yield from (late, early, late, at("b.txt", 2, 5, "x"), same_place, early)

    monkeypatch.setattr(run, "CHECKS", (("noisy", noisy), ("again", noisy)))
    problems = check_module(module)
    assert [(p.source, p.range.start.line, p.range.start.character, p.code) for p in problems] == [
        ("a.txt", 20, 4, "y"), ("b.txt", 2, 5, "x"), ("b.txt", 9, 0, "a"), ("b.txt", 9, 0, "z")]


def test_real_problems_come_sorted_by_file_then_line(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    plant(Path(f"{stem}-buffer-assignment.txt"), "<56 x.1 @0> (size=16384,offset=0)",
          "<55 x.1 @0> (size=16384,offset=0)")
    problems = check_module(module_of(Path(f"{stem}.txt")))
    # `...-buffer-assignment-values.txt` sorts before `...-buffer-assignment.txt`.
    assert [(p.source, p.range.start.line, p.code) for p in problems] == [
        (f"{stem}-buffer-assignment-values.txt", 40, "unallocated-used-value"),
        (f"{stem}-buffer-assignment.txt", 6, "missing-used-value")]


def test_a_check_stops_after_the_problem_limit(tmp_path: Path) -> None:
    """A file of one instruction repeated 3,000 times: 1,000 duplicate-instruction errors, then one note
    where the check stopped."""
    head = "HloModule m\n\nENTRY %e () -> f32[] {\n  ROOT %r = f32[] parameter(0)\n"
    (tmp_path / "m.before_optimizations.txt").write_text(head + "  %p = f32[] parameter(0)\n" * 3000 + "}\n")
    problems = check_module(load([str(tmp_path)]).modules[0])
    duplicates = [p for p in problems if p.code == "duplicate-instruction"]
    assert len(duplicates) == run.PROBLEM_LIMIT
    [note] = [p for p in problems if p.code == "too-many-problems" and "hlo-structure" in p.message]
    assert note.severity is Severity.INFO and note.range == duplicates[-1].range
    assert note.message == "the hlo-structure check stopped after 1000 problems; fix these to see the rest"


def test_progress_rises_to_one_and_the_problems_are_the_same() -> None:
    module = module_of(Path(f"{SPLIT_MLP}.txt"))
    fractions: list[float] = []
    assert check_module(module, fractions.append) == check_module(module)
    assert fractions[-1] == 1.0 and fractions == sorted(fractions) and len(fractions) > len(run.CHECKS)


def test_a_progress_callback_stops_the_run_by_raising() -> None:
    calls = []

    def stop_at_the_third_report(fraction: float) -> None:
        calls.append(fraction)
        if len(calls) == 3:
            raise run.CheckCancelled

    with pytest.raises(run.CheckCancelled):
        check_module(module_of(Path(f"{SPLIT_MLP}.txt")), stop_at_the_third_report)
    assert len(calls) == 3


# ---- after an edit ------------------------------------------------------------------------------

ADD_LINE = 50  # `  %add.0 = f32[32,10]{1,0} add(...), metadata={op_name="jit(mlp)/add" stack_frame_id=4}`
FUSION_LINE = 123  # `  %broadcast_maximum_fusion = f32[32,256]{1,0} fusion(...)` in ENTRY, with a buffer


def _edited(module: ModuleDump, old: str, new: str, line: int = ADD_LINE) -> ModuleDump:
    document = module.hlo_document
    assert document is not None
    start = document.line(line).index(old)
    edited = document.apply_edit(Range(Position(line, start), Position(line, start + len(old))), new)
    return module.updated({**module.documents, FileKind.HLO_MODULE: edited})


def _fresh_check(module: ModuleDump) -> list[Problem]:
    """The problems of the same texts read from scratch (nothing shared with earlier runs)."""
    documents = {kind: Document(document.text, kind, document.source) for kind, document in module.documents.items()}
    return check_module(ModuleDump(module.stem, documents))


def test_an_op_name_edit_moves_the_problems_after_it_and_changes_nothing_else() -> None:
    module = _edited(module_of(Path(f"{SPLIT_MLP}.txt")), "stack_frame_id=4", "stack_frame_id=99")
    before = check_module(module)
    assert [(p.range.start.line, p.code) for p in before] == [(ADD_LINE, "undefined-stack-frame")]
    renamed = _edited(module, '"jit(mlp)/add"', '"jit(mlp)/add_renamed"')
    assert renamed.hlo is not None and module.hlo is not None
    assert renamed.hlo.structure_id is module.hlo.structure_id  # the structure was kept...
    after = check_module(renamed)
    assert after == _fresh_check(renamed)  # ...and the problems are those of a fresh check
    assert after[0].range.start.character == before[0].range.start.character + len("_renamed")


def test_an_edit_of_a_stack_frame_id_keeps_the_structure_and_checks_the_frame_again() -> None:
    module = module_of(Path(f"{SPLIT_MLP}.txt"))
    assert check_module(module) == []
    unknown = _edited(module, "stack_frame_id=4", "stack_frame_id=99")
    assert unknown.hlo is not None and module.hlo is not None and unknown.hlo.structure_id is module.hlo.structure_id
    after = check_module(unknown)
    assert after == _fresh_check(unknown)
    assert [(p.range.start.line, p.code, p.message) for p in after] == [
        (ADD_LINE, "undefined-stack-frame", "stack frame 99 is not defined in this module")]
    known = _edited(unknown, "stack_frame_id=99", "stack_frame_id=5")
    assert check_module(known) == _fresh_check(known) == []


def test_an_edit_of_a_shape_is_checked_against_the_buffer_assignment_again() -> None:
    module = module_of(Path(f"{SPLIT_MLP}.txt"))
    assert check_module(module) == []
    reshaped = _edited(module, "f32[32,256]", "f32[32,512]", line=FUSION_LINE)
    after = check_module(reshaped)
    assert after == _fresh_check(reshaped)
    assert [(Path(p.source).name[-15:], p.code) for p in after] == [("-live-range.txt", "peak-bytes")]
    assert after[0].message == "broadcast_maximum_fusion{} takes 65536 bytes, not 32768"


def test_the_last_problems_kept_for_a_module_do_not_keep_its_files_alive() -> None:
    module = module_of(Path(f"{SPLIT_MLP}.txt"))
    check_module(module)
    files = [weakref.ref(document) for document in module.all_documents()]
    del module
    gc.collect()
    assert [file() for file in files] == [None] * len(files)


def test_an_edit_of_an_attribute_value_is_checked_by_the_opcode_rules_again() -> None:
    """Long-mode session seed 2332: an edit inside an attribute's value keeps the module's structure,
    and the opcode check's findings of the last run were kept with it."""
    module = module_of(Path(f"{SPLIT_MLP}.txt"))
    assert check_module(module) == []
    document = module.hlo_document
    assert document is not None
    line = next(number for number in range(document.line_count) if "dimensions={" in document.line(number))
    bad = _edited(module, "dimensions={", "dimensions={x,", line=line)
    assert bad.hlo is not None and module.hlo is not None and bad.hlo.structure_id is module.hlo.structure_id
    after = check_module(bad)
    assert after == _fresh_check(bad)
    assert [(p.range.start.line, p.code) for p in after] == [(line, "attribute-value")]


def test_signature_and_closing_problems_stay_after_an_edit_that_keeps_the_structure(tmp_path: Path) -> None:
    """They are kept per structure (StructureMemo): an op_name edit neither loses nor moves them."""
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e (p: f32[4]) -> s32[4] {\n  p = f32[4] parameter(0)\n"
                    '  ROOT v = f32[4] abs(p), metadata={op_name="a"}\n}, execution_thread=x\n')
    module = module_of(path)
    before = [(p.range.start.line, p.code) for p in check_module(module)]
    assert before == [(1, "result-shape"), (4, "attribute-value")]
    edited = _edited(module, 'op_name="a"', 'op_name="abc"', line=3)
    assert edited.hlo is not None and module.hlo is not None and edited.hlo.structure_id is module.hlo.structure_id
    after = check_module(edited)
    assert after == _fresh_check(edited) and [(p.range.start.line, p.code) for p in after] == before


def test_a_check_keeps_no_chunk_s_uses_and_the_module_s_names_are_found_as_before() -> None:
    # Every line's uses are read by the check once (a hundred megabytes at 40 MB, were they kept): the chunks keep
    # only the sets of names they use, and a name asked about afterwards is found where it was.
    module = module_of(SPLIT_HLO)
    assert check_module(module) == []
    document = module.hlo_document
    assert document is not None
    assert not any(chunk.has_read_uses() for chunk in document.chunks)
    fresh = Document(document.text, FileKind.HLO_MODULE, document.source)
    for name in ("ws_2_.1", "add_maximum_fusion", "fused_computation"):
        assert document.uses(name) == fresh.uses(name) != []


# ---- the HLO file first ---------------------------------------------------------------------------

def _faulty(tmp_path: Path, fault: str) -> ModuleDump:
    """The split mlp3 module with a fault: in its HLO file (`frame`: an undefined stack frame; `shape`: a shape its
    buffer assignment disagrees with) or in its buffer assignment (`overlap`: two values moved onto each other)."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    if fault == "overlap":
        plant(Path(f"{stem}-buffer-assignment.txt"), "<69 reduce_log_fusion @0> (size=128,offset=128)",
              "<69 reduce_log_fusion @0> (size=128,offset=0)")
    module = module_of(Path(f"{stem}.txt"))
    if fault == "frame":
        return _edited(module, "stack_frame_id=4", "stack_frame_id=99")
    return _edited(module, "f32[32,256]", "f32[32,512]", line=FUSION_LINE) if fault == "shape" else module


@pytest.mark.parametrize("fault", ["frame", "shape", "overlap"])
def test_the_hlo_file_s_problems_found_first_are_those_the_whole_check_finds_there(tmp_path: Path,
                                                                                    fault: str) -> None:
    module = _faulty(tmp_path, fault)
    hlo = module.hlo_document
    assert hlo is not None
    first = run.hlo_file_problems(module)
    whole = _fresh_check(module)
    assert first == [problem for problem in whole if problem.source == hlo.source]
    seen = {(Path(p.source).name.removeprefix(Path(module.stem).name), p.code) for p in whole}
    assert seen == {"frame": {(".txt", "undefined-stack-frame")}, "shape": {("-live-range.txt", "peak-bytes")},
                    "overlap": {("-buffer-assignment.txt", "overlapping-values")}}[fault]


def test_a_check_given_the_hlo_file_s_problems_takes_them_and_does_not_read_that_file_again(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module = _faulty(tmp_path, "overlap")
    hlo = module.hlo_document
    assert hlo is not None
    given = Problem(hlo.source, Range(Position(2, 0), Position(2, 1)), Severity.ERROR, "given", "given")
    read: list[str] = []
    syntax = run.syntax_problems

    def reading(document: Document, on_lines: object = None) -> list[Problem]:
        read.append(document.source)
        return syntax(document, on_lines=on_lines)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "syntax_problems", reading)
    problems = check_module(module, hlo_file=(hlo, [given]))
    assert given in problems and hlo.source not in read and len(read) == len(module.all_documents()) - 1
    assert [p.code for p in problems if p is not given] == ["overlapping-values", "overlapping-values"]
    read.clear()
    older = Document(hlo.text, hlo.kind, hlo.source)  # another version's problems: the file is read
    assert given not in check_module(module, hlo_file=(older, [given])) and hlo.source in read

"""Broken input never raises, the rest stays navigable, and nothing on disk is changed.

Each case breaks a copy of a real dump and goes through what a user runs: workspace.loader.load with
analysis.run.check_module, and `hlo-lsp check` / `hlo-lsp memory` through cli.main.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from helpers import COMBINED_MLP, DATA, SPLIT_MLP, copy_module, module_of, problems_of
from hlo_lsp.analysis.run import check_module
from hlo_lsp.analysis.syntax import syntax_problems
from hlo_lsp.cli import main
from hlo_lsp.parsing.line_scan import Ref, Role
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Range
from hlo_lsp.workspace.loader import load


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(path): (path.read_bytes(), path.stat().st_mtime_ns) for path in sorted(root.rglob("*"))
            if path.is_file()}


def run_everything(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[Problem], int, str]:
    """Problems from load + check_module and the exit code and output of `hlo-lsp check`, touching nothing."""
    before = snapshot(path.parent)
    problems = problems_of(path)
    code = main(["check", str(path)])
    main(["memory", str(path)])
    output = capsys.readouterr()
    assert snapshot(path.parent) == before
    assert not [problem for problem in problems if problem.code == "internal-error"]
    return problems, code, output.out + output.err


def split_copy(tmp_path: Path) -> Path:
    return Path(str(copy_module(SPLIT_MLP, tmp_path)) + ".txt")


def rewrite_line(path: Path, line: int, new: str) -> str:
    """Replaces one line of `path`; returns the line it replaced."""
    lines = path.read_text().split("\n")
    old, lines[line] = lines[line], new
    path.write_text("\n".join(lines))
    return old


def on(path: Path, problems: list[Problem]) -> list[tuple[str, int, int]]:
    return [(p.code, p.range.start.line, p.range.start.character) for p in problems if p.source == str(path)]


def test_checking_the_bundled_dumps_changes_nothing_on_disk(capsys):
    before = snapshot(DATA)
    assert main(["check", str(DATA)]) == 0
    assert main(["memory", str(DATA)]) == 0
    assert "peak:" in capsys.readouterr().out
    assert snapshot(DATA) == before


def test_truncated_module_cut_mid_line(tmp_path, capsys):
    hlo = split_copy(tmp_path)
    text = hlo.read_text()
    hlo.write_text(text[: text.index("  %add_maximum_fusion = f32[32,256]") + len("  %add_maximum_fusion = f32[32,2")])
    problems, code, output = run_everything(hlo, capsys)
    assert on(hlo, problems) == [("unclosed-computation", 114, 7), ("syntax", 125, 31)]
    assert code == 1 and ":126:32: error: unexpected end of text; expected `,`, `]` [syntax]" in output
    module = module_of(hlo)
    assert module.hlo.site("ynn_fusion.1").line == 124
    assert module.hlo_document.definitions("add_maximum_fusion") == [
        (125, Ref(Role.INSTRUCTION_DEF, "add_maximum_fusion", 3, 21))]
    assert module.buffer_assignment.totals.size == 488768  # the companions are still read


def test_truncated_buffer_assignment_cut_mid_line(tmp_path, capsys):
    stem = copy_module(COMBINED_MLP, tmp_path)
    buffers = Path(str(stem) + "-buffer-assignment.txt")
    text = buffers.read_text()
    buffers.write_text(text[: text.index(" from instruction: %dot.20") + 60])
    problems, code, _ = run_everything(buffers, capsys)
    assert ("syntax", 116, 57) in on(buffers, problems) and code == 1
    model = module_of(buffers).buffer_assignment
    assert (len(model.allocations), model.totals.size, model.live_range) == (15, 488768, None)
    assert [used.value_id for used in model.used_values][-2:] == [58, 59]
    assert model.used_values[-1].uses[0].name == "add_maximum_fusion"


def test_garbled_line_in_the_middle_of_a_module(tmp_path, capsys):
    hlo = split_copy(tmp_path)
    rewrite_line(hlo, 124, "  @@@ ~~ garbage ###")
    problems, code, _ = run_everything(hlo, capsys)
    assert [p for p in problems if p.source == str(hlo)][0] == Problem(
        str(hlo), Range.on_line(124, 2, 20), Severity.ERROR, "syntax",
        "unexpected text: expected an instruction (`name = shape opcode(operands)`) or `}`")
    assert on(hlo, problems)[1:] == [("undefined-instruction", 125, 49)]  # the operand %ynn_fusion.1
    document = module_of(hlo).hlo_document
    assert document.definitions("broadcast_subtract_fusion") == [
        (129, Ref(Role.INSTRUCTION_DEF, "broadcast_subtract_fusion", 8, 33))]
    assert document.definitions("add_maximum_fusion") == [
        (125, Ref(Role.INSTRUCTION_DEF, "add_maximum_fusion", 3, 21))]
    assert code == 1


def test_ten_megabyte_line(tmp_path, capsys):
    hlo = split_copy(tmp_path)
    old = rewrite_line(hlo, 121, "")
    long_line = old.replace('op_name="x"', 'op_name="' + "x" * 10_000_000 + '"')
    rewrite_line(hlo, 121, long_line)
    started = time.perf_counter()
    problems, code, _ = run_everything(hlo, capsys)
    assert time.perf_counter() - started < 20
    assert problems == [Problem(str(hlo), Range.on_line(121, 0, 1), Severity.INFO, "long-line",
                                f"line of {len(long_line):,} characters: indexed for names, "
                                "not checked against the grammar")]
    assert code == 0
    document = module_of(hlo).hlo_document
    assert [p.code for p in syntax_problems(document)] == ["long-line"]
    assert document.definitions("x.1") == [(121, Ref(Role.INSTRUCTION_DEF, "x.1", 3, 6))]
    assert document.uses("x.1")[-1] == (122, Ref(Role.INSTRUCTION_USE, "x.1", 43, 46))


def test_empty_file(tmp_path, capsys):
    hlo = tmp_path / "module_0000.jit_f.cpu_after_optimizations.txt"
    hlo.write_text("")
    problems, code, output = run_everything(hlo, capsys)
    assert problems == [Problem(str(hlo), Range.on_line(0, 0, 1), Severity.INFO, "empty-file", "empty file")]
    assert code == 0 and "0 error(s), 0 warning(s), 1 note(s)" in output
    assert module_of(hlo).hlo.all_computations() == []


def test_binary_file(tmp_path, capsys):
    hlo = tmp_path / "module_0000.jit_f.cpu_after_optimizations.txt"
    hlo.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    problems, code, _ = run_everything(hlo, capsys)
    assert [(p.code, p.severity, p.range.start.line) for p in problems] == [("binary-file", Severity.ERROR, 0)]
    assert code == 1


def test_non_utf8_bytes(tmp_path, capsys):
    hlo = split_copy(tmp_path)
    hlo.write_bytes(hlo.read_bytes().replace(b'op_name="x"', b'op_name="x\xe9"'))  # Latin-1 é
    problems, code, _ = run_everything(hlo, capsys)
    column = hlo.read_bytes().split(b"\n")[121].index(b"\xe9")
    assert [(p.code, p.range.start.line, p.range.start.character) for p in problems] == [
        ("invalid-utf8", 121, column)]
    document = module_of(hlo).hlo_document
    assert 'op_name="x\ufffd"' in document.line(121)
    assert document.definitions("x.1") == [(121, Ref(Role.INSTRUCTION_DEF, "x.1", 3, 6))]
    assert document.definitions("broadcast_subtract_fusion")[0][0] == 129
    assert code == 1


def test_crlf_line_ends_index_like_lf(tmp_path, capsys):
    hlo = split_copy(tmp_path)
    lf = module_of(hlo)
    for path in tmp_path.iterdir():
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    problems, code, _ = run_everything(hlo, capsys)
    assert {(p.code, p.severity) for p in problems} == {("crlf", Severity.INFO)}
    assert code == 0
    crlf = module_of(hlo)
    names = {ref.name for _, scan in lf.hlo_document.scans() for ref in scan.refs}
    assert len(names) > 80
    for name in sorted(names):
        assert crlf.hlo_document.definitions(name) == lf.hlo_document.definitions(name), name
        assert crlf.hlo_document.uses(name) == lf.hlo_document.uses(name), name
    assert check_module(crlf) == check_module(lf) == []
    assert crlf.buffer_assignment.live_range.peak == lf.buffer_assignment.live_range.peak


def test_foreign_text_file(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("Meeting notes\n- profile the decoder\n")
    problems, code, output = run_everything(notes, capsys)
    assert [(p.code, p.severity) for p in problems] == [("unknown-file", Severity.ERROR)]
    assert code == 1 and "not an XLA dump" in output
    assert load([str(notes)]).modules == []


def test_foreign_text_file_in_a_dump_folder_is_ignored(tmp_path):
    split_copy(tmp_path)
    (tmp_path / "notes.txt").write_text("Meeting notes\n")
    loaded = load([str(tmp_path)])
    assert loaded.problems == [] and [len(module.documents) for module in loaded.modules] == [5]


def test_value_block_indented_with_no_break_spaces(tmp_path, capsys):
    # Dumps pasted from a web page or chat often come back with U+00A0 for the indentation.
    stem = copy_module(COMBINED_MLP, tmp_path)
    buffers = Path(str(stem) + "-buffer-assignment.txt")
    text = buffers.read_text()
    buffers.write_text(text.replace(" from instruction: %dot.20", "\u00a0from instruction: %dot.20"))
    run_everything(buffers, capsys)
    model = module_of(buffers).buffer_assignment
    assert len(model.used_values) == 21
    assert model.used_values[-1].instruction_name == "broadcast_subtract_fusion"
    assert model.live_range.max_time == 15

"""The Session as a script uses it (the package's Python API): files named by a path relative to the working
folder, read from disk with their companions, answers in the engine's records, figures equal to XLA's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import DATA
from hlo_lsp.session import Cursor, Session, Span
from hlo_lsp.text import Position, Range

MLP = DATA / "jax-0.10.2" / "mlp3" / "module_0000.jit_mlp.cpu_after_optimizations"


@pytest.fixture
def hlo(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(MLP.parent)
    return f"{MLP.name}.txt"  # relative, as a script run in the dump folder names it


def _line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.split("\n")) if needle in line)


def test_a_hover_read_from_disk_gives_the_buffer_of_the_instruction(hlo: str) -> None:
    line = _line_of(Path(hlo).read_text(), "%ynn_fusion.2 = ")
    answer = Session().hover(hlo, None, Cursor.at(Position(line, 5)))
    assert answer is not None
    assert answer.value.markdown.startswith("**ynn_fusion.2** = `f32[32,256]{1,0}` fusion")
    assert "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 32,768" in answer.value.markdown


def test_a_definition_jumps_from_an_operand_to_its_line(hlo: str) -> None:
    text = Path(hlo).read_text()
    use = _line_of(text, "%broadcast_maximum_fusion = ")
    column = text.split("\n")[use].index("%ynn_fusion.2") + 2
    answer = Session().definition(hlo, None, Cursor.at(Position(use, column)))
    assert answer is not None and len(answer.value) == 1
    place = answer.value[0]
    assert place.source == str(Path(hlo).resolve())
    assert place.range == Range(Position(use - 1, 3), Position(use - 1, 15))


def test_the_memory_timeline_peak_and_its_buffers_are_those_xla_prints(hlo: str) -> None:
    """Differential: the peak and the buffers live at it, against the live-range file's own listing."""
    printed = Path(hlo.replace(".txt", "-live-range.txt")).read_text()
    listing = printed.split("(peak):\n", 1)[1].split("Stack trace", 1)[0]
    at_peak = {name: int(size) for name, size in re.findall(r"^\s+(\S+)\{\}: (\d+) bytes", listing, re.M)}
    timeline = Session().memory_timeline(hlo)
    assert timeline is not None
    summary = timeline.report.summary
    assert summary.peak_bytes == sum(at_peak.values()) == 487_464
    assert {buffer.live_range.name: buffer.counted for buffer in summary.buffers_at_peak} == at_peak


def test_a_real_module_checks_clean_and_its_problems_belong_to_its_five_files(hlo: str) -> None:
    checked = Session().check(hlo)
    assert checked is not None
    assert checked.problems == []
    assert {Path(source).name.removeprefix(MLP.name) for source in checked.sources} == {
        ".txt", "-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt",
        "-memory-usage-report.txt"}


def test_an_open_buffer_wins_over_the_file_and_an_edit_is_seen(hlo: str) -> None:
    session = Session()
    text = Path(hlo).read_text()
    session.open(hlo, text, 1)
    line = _line_of(text, "%ynn_fusion.2 = ")
    column = text.split("\n")[line].index("ynn_fusion.2")
    session.change(hlo, 2, Range(Position(line, column), Position(line, column + len("ynn_fusion.2"))), "renamed.2")
    answer = session.hover(hlo, session.snapshot(hlo), Cursor.at(Position(line, column + 1)))
    assert answer is not None and answer.value.markdown.startswith("**renamed.2** = `f32[32,256]{1,0}` fusion")
    hints = session.inlay_hints(hlo, None, Span.of(Range(Position(0, 0), Position(len(text.split("\n")), 0))))
    assert hints is not None and hints.document is session.snapshot(hlo)
    session.close(hlo)
    assert session.snapshot(hlo) is None

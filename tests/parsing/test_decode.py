"""decode_dump: bytes of a dump file -> text and the problems with its encoding."""

from __future__ import annotations

import pytest

from helpers import COMBINED_MLP, GPU_HLO_SEED
from hlo_lsp.parsing.decode import decode_dump
from hlo_lsp.problems import Severity
from hlo_lsp.text import Position

HLO_FILE = COMBINED_MLP.parent / (COMBINED_MLP.name + ".txt")


def test_a_real_dump_decodes_without_problems() -> None:
    data = GPU_HLO_SEED.read_bytes()
    text, problems = decode_dump(data, "seed.txt")
    assert problems == []
    assert text == data.decode("utf-8")


def test_invalid_utf8_is_reported_where_it_is_and_the_text_is_kept() -> None:
    lines = HLO_FILE.read_bytes().split(b"\n")
    # Plant a Latin-1 byte into the op_name of the first instruction that has one.
    target = next(i for i, line in enumerate(lines) if b'op_name="jit(mlp)' in line)
    column = lines[target].index(b"jit(mlp)")
    lines[target] = lines[target][:column] + b"\xe9" + lines[target][column:]
    text, problems = decode_dump(b"\n".join(lines), "module.txt")

    assert [p.code for p in problems] == ["invalid-utf8"]
    problem = problems[0]
    assert problem.severity is Severity.ERROR
    assert problem.source == "module.txt"
    assert problem.range.start == Position(target, column)
    assert problem.range.end == Position(target, column + 1)
    assert "not UTF-8" in problem.message and "U+FFFD" in problem.message
    # Everything else is still there; the bad byte became U+FFFD.
    text_lines = text.split("\n")
    assert text_lines[target][column:].startswith("\ufffdjit(mlp)")
    assert text_lines[0].startswith("HloModule jit_mlp, is_scheduled=true")
    assert len(text_lines) == len(lines)


def test_invalid_utf8_reports_the_byte_offset_of_the_first_bad_byte() -> None:
    data = b"HloModule m\n\n  %x = f32[] constant(\xff)\n\xfe\n"
    text, problems = decode_dump(data, "m.txt")
    assert len(problems) == 1
    first_bad = data.index(b"\xff")
    assert f"first at byte {first_bad}" in problems[0].message
    assert problems[0].range.start == Position(2, len("  %x = f32[] constant("))
    assert text.count("\ufffd") == 2


def test_invalid_utf8_column_counts_bmp_characters_once() -> None:
    # `×` (U+00D7, as in memory reports) is two bytes but one UTF-16 unit.
    data = "  64.0KiB(100%);    32.0KiB; 2×f32[32,256]".encode() + b"\x80"
    _, problems = decode_dump(data, "report.txt")
    assert problems[0].range.start == Position(0, len("  64.0KiB(100%);    32.0KiB; 2×f32[32,256]"))


def test_invalid_utf8_column_is_in_utf16_units_after_an_astral_character() -> None:
    # 😀 (U+1F600) takes two UTF-16 code units: the bad byte is at UTF-16 column 21.
    prefix = '  metadata={op_name="😀'
    _, problems = decode_dump(prefix.encode() + b"\xff", "m.txt")
    assert problems[0].range.start == Position(0, len(prefix) + 1)


def test_nul_bytes_make_a_binary_file_with_no_text() -> None:
    data = b"\x08\x01\x12\x07jit_mlp\x00\x00\x1a\x04main"  # what a .hlo.pb looks like
    text, problems = decode_dump(data, "module_0001.jit_mlp.hlo.pb")
    assert text == ""
    assert [p.code for p in problems] == ["binary-file"]
    assert problems[0].severity is Severity.ERROR
    assert problems[0].range.start == Position(0, 0)
    assert "binary file" in problems[0].message and "--xla_dump_hlo_as_text" in problems[0].message


def test_mostly_control_characters_make_a_binary_file() -> None:
    text, problems = decode_dump(bytes(range(1, 9)) * 8 + b"HloModule m\n", "x.txt")
    assert text == ""
    assert [p.code for p in problems] == ["binary-file"]


@pytest.mark.parametrize(("control", "count", "binary"), [
    (b"\x1b", 10, False), (b"\x1b", 11, True), (b"\x01", 11, True), (b"\x1f", 11, True),
    (b"\t", 50, False), (b"\r", 50, False), (b"\n", 50, False)])
def test_more_than_a_tenth_of_control_characters_but_tab_and_line_ends_make_a_binary_file(
        control: bytes, count: int, binary: bool) -> None:
    data = control * count + b"x" * (100 - count)
    text, problems = decode_dump(data, "x.txt")
    assert ([p.code for p in problems if p.code == "binary-file"] == ["binary-file"]) is binary
    assert (text == "") is binary


def test_a_tab_indented_report_is_not_binary() -> None:
    data = b"\tcumulative_size;       size;       offset; used_by_n_values; shapes_list\n" * 20
    text, problems = decode_dump(data, "report.txt")
    assert problems == []
    assert text.startswith("\tcumulative_size;")


@pytest.mark.parametrize("data", [b"", b"\n\n", b"  \n\t\n"])
def test_empty_file_gives_an_info(data: bytes) -> None:
    text, problems = decode_dump(data, "empty.txt")
    assert text == data.decode()
    assert [(p.code, p.severity) for p in problems] == [("empty-file", Severity.INFO)]
    assert problems[0].message == "empty file"


def test_crlf_line_ends_give_an_info_and_keep_the_text() -> None:
    data = HLO_FILE.read_bytes().replace(b"\n", b"\r\n")
    text, problems = decode_dump(data, "module.txt")
    assert [(p.code, p.severity) for p in problems] == [("crlf", Severity.INFO)]
    assert "CRLF" in problems[0].message
    assert problems[0].range.start == Position(0, 0)
    assert text == data.decode()


def test_lf_only_file_has_no_crlf_problem() -> None:
    _, problems = decode_dump(b"HloModule m\n\nENTRY e {\n}\n", "m.txt")
    assert problems == []

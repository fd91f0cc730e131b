"""Columns as the editor counts them: UTF-16 code units, two for a letter outside the BMP."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hlo_lsp.text import Utf16Columns, python_index, utf16_column, utf16_length

LINE = "  %a = f32[] parameter(0), metadata={op_name=\"𝔣é𝔲\"} %b"


def test_a_letter_outside_the_bmp_takes_two_columns() -> None:
    after_f = LINE.index("𝔣") + 1
    assert utf16_column(LINE, after_f) == after_f + 1
    assert utf16_column(LINE, after_f + 1) == after_f + 2  # é is one unit
    assert utf16_column(LINE, len(LINE)) == len(LINE) + 2 == utf16_length(LINE)


def test_python_index_undoes_utf16_column() -> None:
    for index in range(len(LINE) + 1):
        assert python_index(LINE, utf16_column(LINE, index)) == index


@given(st.text(alphabet=st.sampled_from("ab%é𝔣\U0010ffff"), max_size=40))
def test_many_columns_of_one_line_agree_with_one_at_a_time(line: str) -> None:
    columns = Utf16Columns(line)
    assert [columns.column(i) for i in range(len(line) + 1)] == [utf16_column(line, i) for i in range(len(line) + 1)]
    assert utf16_column(line, len(line)) == len(line.encode("utf-16-le")) // 2

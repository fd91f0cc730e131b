"""Property: any sequence of edits applied with Document.apply_edit indexes exactly like a fresh Document.

Edits are random ranges (single- and multi-line, past the end of lines and of the file, given end
first) on real dumps, with text drawn from the dumps themselves and from characters that change
the scanner state or the UTF-16 columns. Chunks are made small so that edits cross their borders.
"""

from __future__ import annotations

from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import COMBINED_MLP, HANDWRITTEN, SPLIT_MLP
from hlo_lsp.model import document as document_module
from hlo_lsp.model.document import Document, document_state_signature
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Position, Range

# Items XLA reads over lines at any token: each line's state depends on lines above in new ways.
OVER_LINES = (
    "HloModule m\nFileNames\n1 // the file\n\"a.py\"\nStackFrames\n1\n{file_location_id=1 parent_frame_id=1}\n"
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n"
    "ENTRY e (p: f32[4], z: f32[]) -> /* its result\n  */f32[\n  ] {\n  p // its shape below\n  = f32[4] parameter(0)\n"
    "  z = f32[] constant(0)\n  ROOT t /* a\n  b */= (f32[],\n    f32[]) tuple(z, z)\n"
    "  r = /* a\n b */reduce(p, z), dimensions={0}, // c\nto_apply=add\n  v = f32[4] add(p, negate(abs(p)))\n}\n"
    "ENTRY f // the entry\n{\n  q = f32[] parameter(0)\n  c = f32[] call(q), to_apply= // below\n  add\n"
    "  ROOT w = f32[] reduce(p, q), dimensions={0}, to_apply={\n    a = f32[] parameter(0)\n"
    "    ROOT n = f32[] negate(a), metadata={op_name=\"x\"\n}\n  }\n}\n")
DUMPS = {
    "hlo": (Path(str(SPLIT_MLP) + ".txt").read_text(), FileKind.HLO_MODULE),
    "over-lines": (OVER_LINES, FileKind.HLO_MODULE),
    "handwritten": (HANDWRITTEN.read_text(), FileKind.HLO_MODULE),
    # the first item's reading depends on the token after its name, lines below it
    "one-instruction": ("// a bug report\nx /* its name\n */\n= f32[4] add(f32[4] y,\n  f32[4] negate(f32[4] z))\n"
                        "x\n{\n  ROOT y = f32[] parameter(0)\n}\n", FileKind.HLO_MODULE),
    "buffer-assignment": (Path(str(COMBINED_MLP) + "-buffer-assignment.txt").read_text(), FileKind.BUFFER_ASSIGNMENT),
}
HOSTILE = ["{", "}", "(", ")", '"', "\n", "\r\n", "é", "😀", "%", "/*", "*/", " ", "ROOT ", "}\n", "{\n", "= "]
PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def reference_edit(text: str, start: Position, end: Position, new_text: str) -> str:
    """The text after the edit, computed on the whole string (positions on lines >= 0)."""
    lines = text.split("\n")

    def offset(position: Position) -> int:
        if position.line >= len(lines):
            return len(text)
        line = lines[position.line]
        units = line.encode("utf-16-le")[: 2 * max(position.character, 0)]
        return sum(len(before) + 1 for before in lines[: position.line]) + len(units.decode("utf-16-le"))

    first, last = sorted((offset(start), offset(end)))
    return text[:first] + new_text + text[last:]


def inserted_text(dump_text: str) -> st.SearchStrategy[str]:
    lines = [line for line in dump_text.split("\n") if line]
    pieces = st.sampled_from(lines).flatmap(
        lambda line: st.tuples(st.integers(0, len(line)), st.integers(0, len(line))).map(
            lambda cut: line[min(cut) : max(cut)]))
    whole_lines = st.sampled_from(lines).map(lambda line: line + "\n")
    fragment = st.one_of(st.sampled_from(HOSTILE), pieces, whole_lines)
    return st.lists(fragment, max_size=4).map("".join)


def position(data: st.DataObject, text: str, near: int | None = None) -> Position:
    """A position at a character boundary of `text`, or past the end of its line or of the file."""
    lines = text.split("\n")
    if near is None:
        line = data.draw(st.integers(0, len(lines) + 2), label="line")
    else:
        line = near + data.draw(st.integers(0, 12), label="more lines")
    if line >= len(lines):
        return Position(line, data.draw(st.integers(0, 50)))
    content = lines[line]
    index = data.draw(st.integers(-2, len(content) + 3), label="index")
    if index < 0:
        return Position(line, index)  # a negative character
    if index > len(content):
        return Position(line, utf16_units(content) + 7 * (index - len(content)))
    return Position(line, utf16_units(content[:index]))


def assert_indexed_like_fresh(document: Document, text: str) -> None:
    assert document_state_signature(document) == document_state_signature(Document(text, document.kind))


@PROPERTY
@given(data=st.data(), dump=st.sampled_from(sorted(DUMPS)), chunk_lines=st.sampled_from([4, 5, 6, 8]))
def test_any_edit_sequence_indexes_like_a_fresh_document(data, dump, chunk_lines):
    text, kind = DUMPS[dump]
    read_between = data.draw(st.booleans(), label="uses read between edits")  # then edits inherit them
    with mock.patch.object(document_module, "CHUNK_LINES", chunk_lines):
        document = Document(text, kind)
        for _ in range(data.draw(st.integers(1, 6), label="edits")):
            if read_between:
                document_state_signature(document)
            start = position(data, text)
            end = position(data, text, near=start.line)
            if data.draw(st.booleans(), label="end first"):
                start, end = end, start
            new_text = data.draw(inserted_text(DUMPS[dump][0]), label="new text")
            edited = document.apply_edit(Range(start, end), new_text)
            expected = reference_edit(text, start, end, new_text)
            assert edited.text == expected
            assert document.text == text  # the document edited is unchanged
            document, text = edited, expected
        assert_indexed_like_fresh(document, text)


@PROPERTY
@given(data=st.data(), dump=st.sampled_from(sorted(DUMPS)), chunk_lines=st.sampled_from([4, 8]))
def test_any_position_is_clamped_and_never_raises(data, dump, chunk_lines):
    text, kind = DUMPS[dump]
    coordinate = st.integers(-5, 10**6) | st.integers(-5, 300)
    start = Position(data.draw(coordinate, label="start line"), data.draw(coordinate, label="start character"))
    end = Position(data.draw(coordinate, label="end line"), data.draw(coordinate, label="end character"))
    new_text = data.draw(inserted_text(text), label="new text")
    with mock.patch.object(document_module, "CHUNK_LINES", chunk_lines):
        edited = Document(text, kind).apply_edit(Range(start, end), new_text)
    assert_indexed_like_fresh(edited, edited.text)
    if start.line >= 0 and end.line >= 0:
        assert edited.text == reference_edit(text, start, end, new_text)

"""A text's first item, a name alone on its line, read as XLA's parser reads it: by the token after it,
on a line below (`{`: a module's computation; `=`: the text's one instruction)."""

from __future__ import annotations

import pytest

from hlo_lsp.model.document import Document
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.text import Position, Range


def first_item(text: str) -> tuple[str, tuple[tuple[Role, str], ...]]:
    """The kind of the text's first item and the names it defines, as the document reads them."""
    document = Document(text, FileKind.HLO_MODULE)
    line, scan = next((line, scan) for line, scan in document.scans() if scan.kind not in ("blank", "comment"))
    return scan.kind, tuple((ref.role, ref.name) for ref in document.refs_on_line(line))


@pytest.mark.parametrize("text", [
    "x // c\n= f32[] add(f32[] a, f32[] b)\n",
    "x /* a\n b */= f32[] abs(f32[] y)\n",
    "// a bug report\nx:\n\n  = f32[] abs(f32[] y)\n",
])
def test_a_lone_name_above_its_equals_sign_is_the_text_s_one_instruction(text):
    assert first_item(text) == ("instruction", ((Role.INSTRUCTION_DEF, "x"),))
    document = Document(text, FileKind.HLO_MODULE)
    operands = [ref.name for _, ref in document.all_uses() if ref.role is Role.INSTRUCTION_USE]
    assert operands == (["a", "b"] if "add" in text else ["y"])


@pytest.mark.parametrize("text", [
    "x\n{\n  ROOT a = f32[] parameter(0)\n}\n",
    "x\n/* a */ {\n  ROOT a = f32[] parameter(0)\n}\n",
    "HloModule m\nx\n= f32[] parameter(0)\n",  # after the module's header: a computation, whose `{` is missing
])
def test_a_lone_name_above_anything_else_is_a_computation_header(text):
    document = Document(text, FileKind.HLO_MODULE)
    defined = [(ref.role, ref.name) for _, scan in document.scans() for ref in scan.refs]
    assert defined[0] == (Role.COMPUTATION_DEF, "x")


def test_an_edit_below_the_name_changes_how_it_reads_as_a_fresh_document_reads_it():
    text = "x // its name\n= f32[] abs(f32[] y)\n"
    document = Document(text, FileKind.HLO_MODULE)
    as_computation = document.apply_edit(Range.on_line(1, 0, 20), "{\n  ROOT y = f32[] parameter(0)\n}")
    assert first_item(as_computation.text)[0] == "computation"
    assert _signature(as_computation) == _signature(Document(as_computation.text, FileKind.HLO_MODULE))
    back = as_computation.apply_edit(Range(Position(1, 0), Position(3, 1)), "= f32[] abs(f32[] y)")
    assert back.text == text
    assert _signature(back) == _signature(Document(text, FileKind.HLO_MODULE))
    assert [scan.kind for _, scan in back.scans()][:2] == ["instruction", "continuation"]


def test_the_first_lines_of_an_unscanned_text_read_its_first_item_as_the_whole_scan_does():
    text = "x /* a\n b */= f32[] abs(f32[] y)\n" + "// more\n" * 10
    document = Document(text, FileKind.HLO_MODULE)
    head = document.first_lines(3)
    assert head is not None
    assert [head.scan(line) for line in range(3)] == [document.scan(line) for line in range(3)]


def _signature(document: Document) -> list[tuple[str, object]]:
    return [(document.line(line), scan) for line, scan in document.scans()]

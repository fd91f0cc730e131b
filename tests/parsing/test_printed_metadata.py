"""An instruction's metadata read as XLA prints it gives the pairs the grammar gives, or nothing (the grammar then
reads the line); and it reads the metadata of nearly every instruction of real dumps."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import DUMP_FILES
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from hlo_lsp.parsing.hlo_syntax import parse_instruction
from hlo_lsp.parsing.printed_metadata import printed_metadata
from hlo_lsp.parsing.syntax import Instruction, Metadata
from hlo_lsp.parsing.validation import instruction_error

_PREFIX = "  %add.1 = f32[2]{0} add(f32[2]{0} %a, f32[2]{0} %b), "


def test_the_printed_form_is_read_as_pairs_as_written() -> None:
    text = _PREFIX + 'metadata={op_type="Add" op_name="jit(f)/add" source_file="/a b.py" source_line=12 ' \
                     'stack_frame_id=3 preserve_layout=true}'
    assert printed_metadata(text) == Metadata((("op_type", '"Add"'), ("op_name", '"jit(f)/add"'),
                                               ("source_file", '"/a b.py"'), ("source_line", "12"),
                                               ("stack_frame_id", "3"), ("preserve_layout", "true")))
    assert printed_metadata(_PREFIX + "metadata={}") == Metadata(())


def test_other_forms_are_left_to_the_grammar() -> None:
    for attribute in ('metadata={op_name="a"}, metadata={op_name="b"}',  # twice: XLA's parser refuses it
                      'metadata={op_name="a", source_line=1}', 'metadata = {op_name="a"}',
                      'metadata={op_name="a" /* c */}', 'metadata={source_line=-1}', 'metadata={source_line=1.5}',
                      'sharding={metadata={op_name="a"}}', 'metadata={op_name="a" // c', 'metadata={op_name="a}',
                      'metadata={a.b="x"}', "metadata={op_name='a'}", 'backend_config="{", metadata={op_name="a"'):
        assert printed_metadata(_PREFIX + attribute) is None, attribute
    assert printed_metadata(_PREFIX + 'backend_config="metadata={op_name=\\"a\\"}"') is None  # in a string: none
    assert printed_metadata("  %a.1 = f32[2]{0} add(%b, %c)") is None


_KEYS = ["op_name", "op_type", "source_line", "stack_frame_id", "a.b", "%k", "x", "metadata"]
_VALUES = ['"s"', '"a b"', '"q\\"q"', '"{"', '"}"', '"/*"', '""', "'x'", "12", "-1", "1.5", "true", "0x1F", "{1}",
           '"(a"', "nan"]
_PIECES = st.one_of(st.builds(lambda key, value: f"{key}={value}", st.sampled_from(_KEYS), st.sampled_from(_VALUES)),
                    st.sampled_from([" ", "  ", ",", "{", "}", "/* c */", "=", '"', "metadata={", "\t", ", ",
                                     'metadata={op_name="m"}', ', metadata={source_line=7}']))


@given(st.lists(_PIECES, max_size=8).map("".join),
       st.sampled_from(["", ', backend_config="{}"', ", sharding={replicated}", ', frontend_attributes={a="b"}']),
       st.sampled_from(["metadata={", "metadata= {", "sharding={", 'op_name="metadata={', "x={"]))
@settings(max_examples=600, deadline=None)
def test_what_the_printed_form_reads_the_grammar_reads_alike(body: str, after: str, opening: str) -> None:
    text = _PREFIX + opening + body + "}" + after
    printed = printed_metadata(text)
    parsed = parse_instruction(text)
    if printed is not None and instruction_error(text) is None:
        assert isinstance(parsed, Instruction)
        assert printed == parsed.metadata


def test_nearly_every_instruction_of_the_bundled_dumps_is_read_as_printed() -> None:
    read = with_metadata = 0
    for path in DUMP_FILES:
        text = path.read_text(errors="replace")
        if detect_kind(path.name, text) is not FileKind.HLO_MODULE:
            continue
        for line in text.split("\n"):
            if "metadata={" in line and " = " in line:
                with_metadata += 1
                read += printed_metadata(line) is not None
    assert with_metadata > 1000 and read >= 0.95 * with_metadata, (read, with_metadata)

"""Semantic tokens: the type of the token at known places of real dumps, ranges that read only their
lines, tokens kept per chunk that stay right across edits, and UTF-16 columns."""

from __future__ import annotations

from pathlib import Path

from helpers import COMBINED_HLO, SPLIT_HLO, SPLIT_MLP
from hlo_lsp.features.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, semantic_tokens
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Position, Range, utf16_column
from hlo_lsp.workspace.loader import read_document


def load(path: Path) -> Document:
    document, _ = read_document(str(path))
    assert document is not None
    return document


def kinds_on(document: Document, line: int) -> list[tuple[str, str, tuple[str, ...]]]:
    """(text, type, modifiers) of each token of one line, in order."""
    text = document.line(line)
    found = []
    for token_line, start, length, token_type, modifiers in semantic_tokens(document, line, line):
        assert token_line == line
        modifier_names = tuple(name for bit, name in enumerate(TOKEN_MODIFIERS) if modifiers & (1 << bit))
        found.append((text[start:start + length], TOKEN_TYPES[token_type], modifier_names))
    return found


def line_with(document: Document, needle: str) -> int:
    found = [line for line in range(document.line_count) if needle in document.line(line)]
    assert len(found) == 1, (needle, len(found))
    return found[0]


def type_of(document: Document, needle: str, word: str, occurrence: int = 0) -> tuple[str, tuple[str, ...]]:
    tokens = [(kind, modifiers) for text, kind, modifiers in kinds_on(document, line_with(document, needle))
              if text == word]
    assert len(tokens) > occurrence, (needle, word, tokens)
    return tokens[occurrence]


def test_an_instruction_line() -> None:
    document = load(SPLIT_HLO)
    line = "  %ynn_fusion.2 = f32[32,256]{1,0} fusion(%x.1, %ws_0_.1), kind=kCustom, calls=%fused_computation.2"
    assert kinds_on(document, line_with(document, line))[:13] == [
        ("%ynn_fusion.2", "variable", ("declaration",)),
        ("f32[32,256]{1,0}", "type", ()),
        ("fusion", "method", ()),
        ("%x.1", "variable", ()),
        ("%ws_0_.1", "variable", ()),
        ("kind", "property", ()),
        ("calls", "property", ()),
        ("%fused_computation.2", "function", ()),
        ("metadata", "property", ()),
        ("op_name", "property", ()),
        ('"jit(mlp)/dot_general"', "string", ()),
        ("stack_frame_id", "property", ()),
        ("4", "number", ()),
    ]


def test_keywords_computations_parameters_and_the_module() -> None:
    document = load(SPLIT_HLO)
    assert type_of(document, "ENTRY %main.5 (", "ENTRY") == ("keyword", ())
    assert type_of(document, "ENTRY %main.5 (", "%main.5") == ("function", ("declaration",))
    assert type_of(document, "ENTRY %main.5 (", "ws_0_.1") == ("parameter", ())
    assert type_of(document, "ENTRY %main.5 (", "f32[128,256]") == ("type", ())
    assert type_of(document, "ROOT %broadcast_subtract_fusion = ", "ROOT") == ("keyword", ())
    assert type_of(document, "HloModule jit_mlp", "HloModule") == ("keyword", ())
    assert type_of(document, "HloModule jit_mlp", "jit_mlp") == ("namespace", ())
    assert type_of(document, "HloModule jit_mlp", "/*index=5*/") == ("comment", ())
    assert type_of(document, "HloModule jit_mlp", "entry_computation_layout") == ("property", ())
    assert type_of(document, "ROOT %reduce_max.1 = ", "%region_0.2") == ("function", ())
    assert type_of(document, "ROOT %reduce_max.1 = ", "to_apply") == ("property", ())
    assert type_of(document, "%constant.11 = ", "inf") == ("number", ())


def test_the_stack_frame_tables() -> None:
    document = load(SPLIT_HLO)
    assert kinds_on(document, line_with(document, "StackFrames")) == [("StackFrames", "keyword", ())]
    assert kinds_on(document, line_with(document, '1 "/home/dev/xla-examples/gen_dumps.py"')) == [
        ("1", "number", ()), ('"/home/dev/xla-examples/gen_dumps.py"', "string", ())]
    assert kinds_on(document, line_with(document, "4 {file_location_id=4 parent_frame_id=4}")) == [
        ("4", "number", ()), ("file_location_id", "property", ()), ("4", "number", ()),
        ("parent_frame_id", "property", ()), ("4", "number", ())]


def test_older_xla_without_sigils() -> None:
    document = load(COMBINED_HLO)
    assert type_of(document, "ENTRY main.68 {", "main.68") == ("function", ("declaration",))
    line = line_with(document, "  dot.8 = f32[32,256]{1,0} dot(Arg_6.7, Arg_0.1)")
    assert kinds_on(document, line)[:5] == [("dot.8", "variable", ("declaration",)), ("f32[32,256]{1,0}", "type", ()),
                                            ("dot", "method", ()), ("Arg_6.7", "variable", ()),
                                            ("Arg_0.1", "variable", ())]
    assert type_of(document, "  dot.8 = ", "source_line") == ("property", ())
    assert type_of(document, "  dot.8 = ", "169") == ("number", ())


def test_buffer_assignment_files() -> None:
    allocations = load(Path(f"{SPLIT_MLP}-buffer-assignment.txt"))
    assert kinds_on(allocations, line_with(allocations, " value: <62 ynn_fusion.1 @0>")) == [
        ("value:", "keyword", ()), ("62", "number", ()), ("ynn_fusion.1", "variable", ()), ("0", "number", ()),
        ("size", "property", ()), ("32768", "number", ()), ("offset", "property", ()), ("0", "number", ()),
        ("f32[32,256]{1,0}", "type", ())]
    assert [kind for _, kind, _ in kinds_on(allocations, line_with(allocations, "allocation 14: "))] == [
        "keyword", "number", "keyword", "number", "keyword"]
    values = load(Path(f"{SPLIT_MLP}-buffer-assignment-values.txt"))
    line = line_with(values, " from instruction: %ynn_fusion.1 = ")
    assert kinds_on(values, line)[:4] == [("from instruction:", "keyword", ()), ("%ynn_fusion.1", "variable", ()),
                                          ("f32[32,256]{1,0}", "type", ()), ("fusion", "method", ())]
    assert type_of(values, " from instruction: %ynn_fusion.1 = ", "%fused_computation.1") == ("function", ())
    live = load(Path(f"{SPLIT_MLP}-live-range.txt"))
    assert kinds_on(live, line_with(live, "    ynn_fusion.1{}:9-10")) == [
        ("ynn_fusion.1", "variable", ()), ("9", "number", ()), ("10", "number", ())]
    assert kinds_on(live, line_with(live, "Live ranges at 9 (peak):")) == [("Live ranges at", "keyword", ()),
                                                                          ("9", "number", ())]


def test_tokens_are_in_order_and_do_not_overlap() -> None:
    for path in sorted(SPLIT_MLP.parent.glob("*.txt")) + [COMBINED_HLO]:
        document = load(path)
        previous = (-1, 0)
        for line, start, length, _, _ in semantic_tokens(document):
            assert length > 0
            assert (line, start) >= previous, path.name
            previous = (line, start + length)
            assert start + length <= utf16_column(document.line(line), len(document.line(line)))


def test_a_range_gives_the_same_tokens_as_the_whole_file_on_its_lines() -> None:
    document = load(SPLIT_HLO)
    everything = list(semantic_tokens(document))
    assert list(semantic_tokens(document, 40, 60)) == [token for token in everything if 40 <= token[0] <= 60]
    assert list(semantic_tokens(document, 10_000, 20_000)) == []


def test_the_first_lines_alone_give_the_tokens_of_the_scanned_file(corpus: Path) -> None:
    paths = sorted(SPLIT_MLP.parent.glob("*.txt")) + sorted(corpus.rglob("*after_optimizations.txt"))[:40]
    for path in paths:
        text = path.read_text()
        kind = load(path).kind
        whole = list(semantic_tokens(Document(text, kind, str(path)), 0, 60))
        top = Document(text, kind, str(path)).first_lines(61)
        assert top is not None
        assert list(semantic_tokens(top, 0, 60)) == whole, path.name
        assert whole


def test_tokens_kept_per_chunk_follow_edits() -> None:
    text = SPLIT_HLO.read_text() * 10  # three chunks of 512 lines
    document = Document(text, FileKind.HLO_MODULE, "module.txt")
    before = list(semantic_tokens(document))
    line = next(n for n in range(600, document.line_count) if "%ynn_fusion.2 = " in document.line(n))
    start = document.line(line).index("fusion(")
    edited = document.apply_edit(Range(Position(line, start), Position(line, start + len("fusion"))), "custom-call")
    after = list(semantic_tokens(edited))
    fresh = list(semantic_tokens(Document(edited.text, FileKind.HLO_MODULE, "fresh.txt")))
    assert after == fresh
    assert after != before
    assert ("custom-call", "method") in [(edited.line(t[0])[t[1]:t[1] + t[2]], TOKEN_TYPES[t[3]])
                                         for t in after if t[0] == line]
    assert list(semantic_tokens(document)) == before  # the old document still answers as before


def test_columns_are_utf16_code_units() -> None:
    text = ('HloModule m\n\nENTRY %main {\n  ROOT %c = f32[] constant(1), metadata={op_name="𝛼 é" source_line=3}'
            "\n}\n")
    document = Document(text, FileKind.HLO_MODULE, "m.hlo")
    tokens = [(start, length, TOKEN_TYPES[kind]) for line, start, length, kind, _ in semantic_tokens(document, 3, 3)]
    line = document.line(3)
    string_start = line.index('"')
    assert (string_start, 6, "string") in tokens  # `"𝛼 é"`: 5 code points, 6 UTF-16 code units
    after = line.index("source_line")
    assert (after + 1, len("source_line"), "property") in tokens  # one astral character before it

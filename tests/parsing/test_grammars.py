"""The lark grammars: they load, they accept every bundled real dump, and their conflicts are harmless."""

from __future__ import annotations

import io
import logging
import pickle
import re
from collections.abc import Iterator
from pathlib import Path

import interegular
import pytest
from lark import Lark, Tree
from lark import logger as lark_logger
from lark.exceptions import UnexpectedInput

from helpers import COMBINED_MLP, DUMP_FILES, HANDWRITTEN, SPLIT_MLP
from hlo_lsp.parsing import grammars
from hlo_lsp.parsing.ba_syntax import buffer_assignment_error, memory_report_error
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from hlo_lsp.parsing.grammars import (
    BUFFER_ASSIGNMENT_STARTS,
    HLO_STARTS,
    HLO_TABLES,
    BracketNewlines,
    _DataOnly,
    _loaded_hlo_parser,
    buffer_assignment_parser,
    grammar_dir,
    hlo_grammar_digest,
    hlo_parser,
    hlo_tables,
    memory_report_parser,
)
from hlo_lsp.parsing.hlo_syntax import HloTransformer, parse_error_of, parse_module
from hlo_lsp.parsing.syntax import ComputationHeader, Instruction, ModuleHeader, ParseError
from xla_oracle.catalogue import CATALOGUE

# The start symbols grammars.py builds each grammar with (common.lark is only imported).
STARTS: dict[str, object] = {
    "hlo.lark": list(HLO_STARTS),
    "buffer_assignment.lark": list(BUFFER_ASSIGNMENT_STARTS),
    "memory_report.lark": "report",
    "common.lark": "shape",
}
DUMPS = DUMP_FILES


def _build(name: str, **options: object) -> Lark:
    return Lark.open(str(grammar_dir() / name), parser="lalr", start=STARTS[name], postlex=BracketNewlines(),
                     maybe_placeholders=False, **options)


def _kind(path: Path) -> FileKind:
    return detect_kind(path.name, path.read_text())


def test_every_lark_file_has_a_known_start() -> None:
    assert sorted(p.name for p in grammar_dir().glob("*.lark")) == sorted(STARTS)


@pytest.mark.parametrize("name", sorted(STARTS))
def test_grammar_loads(name: str) -> None:
    assert isinstance(_build(name), Lark)


def test_the_engine_builds_its_three_parsers() -> None:
    assert hlo_parser().options.parser == "lalr"
    assert buffer_assignment_parser().options.parser == "lalr"
    assert memory_report_parser().options.parser == "lalr"


@pytest.mark.parametrize("name", ["hlo.lark", "common.lark"])
def test_grammar_loads_in_strict_mode(name: str) -> None:
    assert isinstance(_build(name, strict=True), Lark)


def _messages_while_building(name: str) -> list[str]:
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    handler, level = Collect(), lark_logger.level
    lark_logger.addHandler(handler)
    lark_logger.setLevel(logging.DEBUG)
    try:
        _build(name)
    finally:
        lark_logger.removeHandler(handler)
        lark_logger.setLevel(level)
    return records


def _collisions(messages: list[str]) -> Iterator[tuple[str, str, str]]:
    for message in messages:
        match = re.match(r"Collision between Terminals (\S+) and (\S+)\..*Example Collision: (.*)", message, re.S)
        if match:
            yield match.group(1), match.group(2), match.group(3).strip()


@pytest.mark.parametrize("name", ["buffer_assignment.lark", "memory_report.lark"])
def test_line_grammar_collisions_are_only_with_ignored_terminals(name: str) -> None:
    # strict=True refuses these two grammars (lark 1.3). What it reports: free-text terminals
    # (a stack-frame label, the rest of a `not available (...)` line, a memory-report
    # property) that also match a blank or an empty `/**/`, i.e. an %ignore'd terminal. The
    # lexer's choice there only decides whether a blank goes into the free text: the token
    # sequence, and so the parse, stays the same. Any other collision fails here.
    assert interegular  # with it installed, lark checks every pair of terminals
    parser = _build(name)
    ignored = set(parser.ignore_tokens)
    patterns = {t.name: t.pattern.value for t in parser.terminals}
    for first, second, example in _collisions(_messages_while_building(name)):
        pair = {first, second}
        assert pair & ignored, (first, second)
        (other,) = pair - ignored or {second}
        assert example in ("/**/", "\\t", " "), (first, second, example)
        assert "[^" in patterns[other], f"{other} ({patterns[other]}) is not a free-text terminal"


def test_memory_report_conflicts_are_only_the_value_table_after_an_allocation() -> None:
    messages = _messages_while_building("memory_report.lark")
    conflicts = [m for m in messages if "Shift/Reduce" in m or "Reduce/Reduce" in m]
    for message in conflicts:
        assert "Shift/Reduce conflict for terminal CUMULATIVE_SIZE" in message and "shift" in message


def test_memory_report_value_tables_belong_to_their_allocation() -> None:
    # The shift chosen for the conflict above: a table right after `allocation N: ...` is that
    # allocation's, never a top-level table.
    text = Path(str(COMBINED_MLP) + "-memory-usage-report.txt").read_text()
    tree = memory_report_parser().parse(text)
    sections = [child.data for child in tree.children]
    assert sections == ["totals", "allocations_by_size", "allocations_with_values"]
    with_values = tree.children[2].children
    owners = [with_values[i - 1].children[0] for i, c in enumerate(with_values) if c.data == "value_table"]
    assert owners == ["14", "4"]  # allocation 14 (temp) and allocation 4 (output) list their values


def test_newest_memory_report_tables_follow_the_memory_space() -> None:
    tree = memory_report_parser().parse(Path(str(SPLIT_MLP) + "-memory-usage-report.txt").read_text())
    sections = [child.data for child in tree.children]
    assert sections[0] == "memory_space"
    assert sections[1:] == ["value_table"] * 15


def test_frame_labels_keep_their_text_despite_collisions() -> None:
    text = Path(str(SPLIT_MLP) + "-live-range.txt").read_text()
    tree = buffer_assignment_parser().parse(text, start="dump")
    labels = ["".join(label.children) for label in tree.find_data("frame_label")]
    assert labels[:4] == ["main.5", "ws[1]", "ws[0]", "jit(mlp)/dot_general"]
    assert labels[-1] == "bs[2]"


@pytest.mark.parametrize("line,rule", [
    ("HloLiveRange not available (finalized or constructed from proto)\n", "live_range_unavailable"),
    ("HloLiveRange (max 1):\n  InstructionSequence:\n    0:x\n  BufferLiveRange:\n    x{}:0-1\n"
     "  Peak memory could not be determined due to unbounded dynamic shape.\n", "peak_unknown"),
])
def test_free_text_lines_of_the_newest_live_range_parse(line: str, rule: str) -> None:
    tree = buffer_assignment_parser().parse(line, start="dump")
    assert isinstance(tree, Tree)
    assert list(tree.find_data(rule))


@pytest.mark.parametrize("path", [p for p in DUMPS if _kind(p) is FileKind.HLO_MODULE], ids=lambda p: p.name)
def test_every_bundled_hlo_module_parses(path: Path) -> None:
    text = path.read_text()
    result = parse_module(text)
    assert not isinstance(result, ParseError), result
    assert isinstance(result[0], ModuleHeader)
    headers = [item[0] for item in result[1:] if isinstance(item[0], ComputationHeader)]
    assert len(headers) == len(re.findall(r"^(?:ENTRY )?%?[\w.\-]+ .*\{$", text, re.M))
    assert sum(h.is_entry for h in headers) == 1


@pytest.mark.parametrize("path", [p for p in DUMPS if _kind(p).is_buffer_assignment_family], ids=lambda p: p.name)
def test_every_bundled_buffer_assignment_file_parses(path: Path) -> None:
    assert buffer_assignment_error(path.read_text()) is None


@pytest.mark.parametrize("path", [p for p in DUMPS if _kind(p) is FileKind.MEMORY_USAGE_REPORT], ids=lambda p: p.name)
def test_every_bundled_memory_report_parses(path: Path) -> None:
    assert memory_report_error(path.read_text()) is None


def test_bundled_dumps_cover_every_file_kind() -> None:
    kinds = {_kind(p) for p in DUMPS}
    assert kinds == {kind for kind in FileKind if kind.is_dump}


def test_a_broken_buffer_assignment_is_refused_where_it_breaks() -> None:
    text = Path(str(SPLIT_MLP) + "-buffer-assignment.txt").read_text()
    broken = text.replace("(size=", "(sise=", 1)
    error = buffer_assignment_error(broken)
    assert error is not None
    assert error.start == broken.index("sise=")


def test_a_broken_memory_report_is_refused() -> None:
    text = Path(str(SPLIT_MLP) + "-memory-usage-report.txt").read_text()
    error = memory_report_error(text.replace("(color=0)", "(colour=0)"))
    assert error is not None
    assert error.start == text.index("(color=0)") + 1


def test_handwritten_module_parses_with_comments_no_signatures_and_a_multiline_literal() -> None:
    result = parse_module(HANDWRITTEN.read_text())
    assert not isinstance(result, ParseError), result
    header, *computations = result
    assert header.name == "while_and_constants"
    names = [c[0].name for c in computations]
    assert names == ["add", "cond", "body", "on_true", "on_false", "main"]
    assert all(c[0].parameters is None and c[0].result is None for c in computations)
    assert [c[0].is_entry for c in computations] == [False] * 5 + [True]
    body = dict((c[0].name, c[1]) for c in computations)["body"]
    assert [i.name for i in body] == ["state", "i", "one", "next", "m", "w", "product", "out"]
    w = next(i for i in body if i.name == "w")
    assert isinstance(w, Instruction) and w.opcode == "constant" and str(w.shape) == "f32[2,2]"


def test_a_module_with_an_unclosed_computation_is_refused() -> None:
    text = HANDWRITTEN.read_text()
    broken = text.replace("  ROOT sum = f32[] add(lhs, rhs)\n}\n", "  ROOT sum = f32[] add(lhs, rhs)\n", 1)
    assert broken != text
    error = parse_module(broken)
    assert isinstance(error, ParseError)
    assert error.start == broken.index("cond {") + len("cond ")  # `cond` read as an instruction name
    assert "`=`" in error.message


# ---- The HLO grammar's tables (grammar/hlo.tables, written by scripts/grammar-tables) ----------------------


def test_the_shipped_tables_are_those_of_the_grammar() -> None:
    shipped = _DataOnly(io.BytesIO((grammar_dir() / HLO_TABLES).read_bytes())).load()
    assert shipped["digest"] == hlo_grammar_digest(), "grammar/hlo.tables is stale: run scripts/grammar-tables"


def _reading(parser: Lark, text: str, start: str) -> object:
    try:
        return parser.parse(text, start=start)
    except UnexpectedInput as error:
        return parse_error_of(text, error)
    except Exception as error:  # (what the grammar takes and XLA's parser does not, found by the transformer)
        return f"{type(error).__name__}: {error}"


def test_the_parser_loaded_from_the_tables_reads_as_the_one_built_from_the_grammar() -> None:
    loaded = _loaded_hlo_parser(HloTransformer())
    assert loaded is not None, "the tables did not load"
    built = Lark.open(str(grammar_dir() / "hlo.lark"), postlex=BracketNewlines(), transformer=HloTransformer(),
                      parser="lalr", start=list(HLO_STARTS), maybe_placeholders=False)
    texts = [(entry.text, "module") for entry in CATALOGUE]
    for path in DUMPS:
        if _kind(path) is FileKind.HLO_MODULE:
            text = path.read_text()
            if len(text) < 40_000:  # (lark parses 1-3 MB/s: the larger modules' first lines below)
                texts.append((text, "module"))
            texts += [(line.strip(), "instruction") for line in text.split("\n")[:300] if " = " in line]
    for text, start in texts:
        assert _reading(loaded, text, start) == _reading(built, text, start), text[:200]


def test_without_tables_or_with_stale_ones_the_parser_is_built_from_the_grammar(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("hlo.lark", "common.lark"):
        (tmp_path / name).write_text((grammar_dir() / name).read_text())
    monkeypatch.setattr(grammars, "grammar_dir", lambda: tmp_path)
    assert _loaded_hlo_parser(None) is None  # none there
    (tmp_path / HLO_TABLES).write_bytes(hlo_tables())
    assert _loaded_hlo_parser(None) is not None
    (tmp_path / "common.lark").write_text((grammar_dir() / "common.lark").read_text() + "\n// edited\n")
    assert _loaded_hlo_parser(None) is None  # the grammar changed after the tables were written


def test_tables_that_would_build_objects_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("hlo.lark", "common.lark"):
        (tmp_path / name).write_text((grammar_dir() / name).read_text())
    (tmp_path / HLO_TABLES).write_bytes(pickle.dumps({"digest": Path("x")}))
    monkeypatch.setattr(grammars, "grammar_dir", lambda: tmp_path)
    assert _loaded_hlo_parser(None) is None

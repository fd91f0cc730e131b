"""Failures the fuzzer found, each with its minimized input. Marked xfail(strict) until the server is fixed:
when a fix lands, the test passes, strict xfail turns that into a failure, and the mark comes off."""

from __future__ import annotations

import contextlib
import io
import re
import time
from pathlib import Path

import pytest
from harness import _watchdog

from helpers import SPLIT_MLP, TPU_MATMUL, copy_module, problems_of
from hlo_lsp import cli
from hlo_lsp.analysis.checks import hlo_structure, undefined_names
from hlo_lsp.analysis.run import PROBLEM_LIMIT, check_module
from hlo_lsp.features import targets
from hlo_lsp.features.hover import hover
from hlo_lsp.features.memory_svg import timeline_svg
from hlo_lsp.features.memory_timeline import memory_report
from hlo_lsp.features.symbols import document_symbols
from hlo_lsp.features.targets import target_at
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.model.glance import ModuleGlance
from hlo_lsp.parsing import hlo_syntax, text_search
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.syntax import Instruction
from hlo_lsp.problems import Problem
from hlo_lsp.text import Position
from hlo_lsp.workspace.loader import load, module_files, read_document

HUGE = "1" + "0" * 400  # > the largest float: human_bytes() divides it by 1024.0

# Minimized by harness.minimize from a mutant of tests/data/seeds/tpu-allreduce-mlp.buffer-assignment.txt.
HUGE_ALLOCATION_WITH_TOTAL = f"BufferAssignment:\nallocation 0: size {HUGE}:\nTotal bytes used: 8 (8B)"
HUGE_ALLOCATION = f"BufferAssignment:\nallocation 0: size {HUGE}, parameter 0, shape |f32[4]| at ShapeIndex {{}}:\n"


def _module(text: str, kind: FileKind, name: str) -> tuple[ModuleDump, Document]:
    document = Document(text, kind, name)
    return ModuleDump("m", {kind: document}), document


def test_outline_of_an_allocation_with_a_huge_size() -> None:
    """A size longer than an int64 is not read as a number: the header is a syntax problem, the outline answers."""
    module, document = _module(HUGE_ALLOCATION, FileKind.BUFFER_ASSIGNMENT, "m.buffer-assignment.txt")
    document_symbols(module, document)
    assert [(p.range.start.line, p.code) for p in document.scan_problems()] == [(1, "syntax")]


def test_checks_of_an_allocation_with_a_huge_size(tmp_path: Path) -> None:
    path = tmp_path / "m.buffer-assignment.txt"
    path.write_text(HUGE_ALLOCATION_WITH_TOTAL)
    loaded = load([str(tmp_path)])
    problems = [p for module in loaded.modules for p in check_module(module)]
    assert not [p for p in problems if p.code == "internal-error"], [p.message for p in problems]
    assert problems  # the total (8 bytes) does not add up: that is the problem to report


def test_cli_on_an_allocation_with_a_huge_size(tmp_path: Path) -> None:
    """The CLI itself stays well-behaved (the check's exception is turned into a warning)."""
    (tmp_path / "m.buffer-assignment.txt").write_text(HUGE_ALLOCATION_WITH_TOTAL)
    for command in ("check", "memory"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = cli.main([command, str(tmp_path)])
        assert code in (0, 1) and "Traceback" not in out.getvalue()


# 900 dimensions of 99999: 4500 digits of elements, past Python's int->str limit of 4300 digits.
LONG_SHAPE = "f32[" + ",".join(["99999"] * 900) + "]"
MANY_ELEMENTS = f"HloModule m\n\nENTRY %e () -> f32[] {{\n  ROOT %p = {LONG_SHAPE} parameter(0)\n}}\n"


def test_hover_on_a_shape_with_a_huge_element_count() -> None:
    module, document = _module(MANY_ELEMENTS, FileKind.HLO_MODULE, "m.txt")
    target = target_at(document, Position(3, 14))
    assert target is not None and target.kind == "shape"
    info = hover(module, target)
    assert info is not None and "f32" in info.markdown


def test_target_at_on_a_long_run_of_letters_is_fast() -> None:
    document = Document("x" * 200_000, FileKind.HLO_MODULE, "m.txt")  # ~35 s before the fix
    started = time.perf_counter()
    with _watchdog(2.0):
        target_at(document, Position(0, 0))
    assert time.perf_counter() - started < 2.0


# Minimized from a mutant (4 flipped bytes, swapped lines) of a corpus live-range file.
BAD_BREAKDOWN = ("Stack trace breakdown for peak usage: 0 bytes\n"
                 "x (5%, total: 6 bytes, current: 5 bytes, remaining:   bytes)")


def test_loading_a_breakdown_line_with_a_blank_number(tmp_path: Path) -> None:
    path = tmp_path / "m.cpu_after_optimizations-live-range.txt"
    path.write_text(BAD_BREAKDOWN)
    loaded = load([str(tmp_path)])
    assert len(loaded.modules) == 1
    problems = check_module(loaded.modules[0])
    assert not [p for p in problems if p.code == "internal-error"]


# Minimized from a mutant (duplicated lines, truncated) of a corpus before_optimizations module.
def test_syntax_problem_ranges_are_ordered(tmp_path: Path) -> None:
    (tmp_path / "m.before_optimizations.txt").write_text("n{\ns= ")
    loaded = load([str(tmp_path)])
    problems = [p for module in loaded.modules for p in check_module(module)]
    assert problems
    for problem in problems:
        start, end = problem.range.start, problem.range.end
        assert (start.line, start.character) <= (end.line, end.character), problem


# Minimized from a mutant (truncated, huge integers) of the jax-tpu-reference-attention seed.
TILED_HUGE_DIM = ("BufferAssignment:\n"
                  f"value: <5 o> (size=2,offset=0): d[8,8,{HUGE[:310]}]{{1,2,0:T(4,1)}}\n"
                  "allocation 2: size 8:")


def test_checks_of_a_tiled_shape_with_a_huge_dimension(tmp_path: Path) -> None:
    (tmp_path / "m.buffer-assignment.txt").write_text(TILED_HUGE_DIM)
    loaded = load([str(tmp_path)])
    problems = [p for module in loaded.modules for p in check_module(module)]
    assert not [p for p in problems if p.code == "internal-error"], [p.message for p in problems]


# Reduced by hand from mutant #541446 of tests/data/seeds/jax-tpu-reference-attention.buffer-assignment.txt
# (flipped bytes): a tile of size 0 divided the dimension it tiles by zero.
ZERO_TILE = "BufferAssignment:\nallocation 0: size 8:\n value: <5 o> (size=8,offset=0): f32[8,128]{1,0:T(0,128)}\n"


def test_checks_of_a_shape_tiled_by_zero(tmp_path: Path) -> None:
    (tmp_path / "m.buffer-assignment.txt").write_text(ZERO_TILE)
    loaded = load([str(tmp_path)])
    problems = [p for module in loaded.modules for p in check_module(module)]
    assert not [p for p in problems if p.code == "internal-error"], [p.message for p in problems]
    document = loaded.modules[0].documents[FileKind.BUFFER_ASSIGNMENT]
    shape_at = Position(2, document.line(2).index("f32[") + 1)
    target = target_at(document, shape_at)
    assert target is not None and target.kind == "shape"
    assert hover(loaded.modules[0], target) is not None


# Reduced by hand from mutant #4679 (a 40 KB operand line in a corpus module with letters outside the BMP):
# every name's UTF-16 column was counted from the start of its line, O(n²) in the line's length.
WIDE_OPERANDS = ", ".join(f"%p{n}" for n in range(5000))
LONG_ASTRAL_LINE = ("HloModule m\n\nENTRY %e () -> f32[] {\n  %p0 = f32[] parameter(0)\n"
                    f"  ROOT %t = f32[] add({WIDE_OPERANDS}), metadata={{op_name=\"𝔣\"}}\n}}\n")


def timed_check(tmp_path: Path, text: str, watchdog: float) -> tuple[list[Problem], float]:
    """The problems of a module of one file holding `text`, and the seconds its check took."""
    (tmp_path / "m.before_optimizations.txt").write_text(text)
    module = load([str(tmp_path)]).modules[0]
    started = time.perf_counter()
    with _watchdog(watchdog):
        problems = check_module(module)
    return problems, time.perf_counter() - started


def test_checks_of_a_long_line_with_letters_outside_the_bmp_are_fast(tmp_path: Path) -> None:
    problems, seconds = timed_check(tmp_path, LONG_ASTRAL_LINE, 5.0)
    assert seconds < 2.0  # ~20 s before the fix
    undefined = [p for p in problems if p.code == "undefined-instruction"]
    assert len(undefined) == PROBLEM_LIMIT
    assert undefined[-1].range.start.character == LONG_ASTRAL_LINE.split("\n")[4].index("%p1000,") + 1


def _problems_made_by_hlo_structure(text: str, tmp_path: Path, maker: str, monkeypatch: pytest.MonkeyPatch,
                                    module: object = hlo_structure) -> tuple[list[Problem], int]:
    """The module's problems, and how many times hlo-structure's `maker` (of `module`) built one."""
    (tmp_path / "m.before_optimizations.txt").write_text(text)
    made: list[object] = []
    real = getattr(module, maker)
    monkeypatch.setattr(module, maker, lambda *args: made.append(args) or real(*args))
    return check_module(load([str(tmp_path)]).modules[0]), len(made)


def test_a_line_of_a_million_undefined_operands_stops_at_the_problem_limit(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant #16868 (a 9 MB line of operands): hlo-structure kept every problem of a chunk before the
    check's limit applied, 1.3 million problems made for the 1,000 shown (7.0 s instead of 1.0 s)."""
    operands = ", ".join(f"%q{n}" for n in range(20 * PROBLEM_LIMIT))
    text = f"HloModule m\n\nENTRY %e () -> f32[] {{\n  ROOT %t = f32[] add({operands})\n}}\n"
    problems, made = _problems_made_by_hlo_structure(text, tmp_path, "_undefined", monkeypatch,
                                                     undefined_names)
    assert len([p for p in problems if p.code == "undefined-instruction"]) == PROBLEM_LIMIT
    assert made == PROBLEM_LIMIT + 1


def test_an_attribute_value_nested_deep_has_each_token_collected_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant #8801 (braces 20,000 deep in a values-file line): each bracketed group copied all the
    tokens inside it into its parent's list, work in the square of the depth (5.3 s for the check)."""
    depth = 2000
    value = "{" * depth + "x" + "}" * depth
    text = f"%t = f32[] add(%a, %b), backend_config={value}"
    collected: list[int] = []
    real = hlo_syntax._tokens
    monkeypatch.setattr(hlo_syntax, "_tokens", lambda items: collected.append(len(found := real(items))) or found)
    instruction = hlo_syntax.parse_instruction(text)
    assert isinstance(instruction, Instruction)
    attribute = instruction.attribute("backend_config")
    assert attribute is not None and text[slice(*attribute.value_span)] == value
    assert attribute.names == (("x", (text.index("x"), text.index("x") + 1)),)
    assert sum(collected) == 2 * depth + 1


def test_a_file_of_one_instruction_repeated_makes_no_more_problems_than_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Like the line above, for the duplicate-instruction problems the structure's memo keeps."""
    head = "HloModule m\n\nENTRY %e () -> f32[] {\n  ROOT %r = f32[] parameter(0)\n"
    text = head + "  %p = f32[] parameter(0)\n" * 20 * PROBLEM_LIMIT + "}\n"
    problems, made = _problems_made_by_hlo_structure(text, tmp_path, "_problem", monkeypatch)
    assert len([p for p in problems if p.code == "duplicate-instruction"]) == PROBLEM_LIMIT
    assert made == PROBLEM_LIMIT + 1


# Minimized from mutant #598 (flipped bytes, spliced lines) of the control_flow values file: a blank
# line while a `from instruction:` line's brackets are still open.
BLANK_IN_OPEN_BRACKETS = ('Used values:\n<1 x @0>\n positions:\n  x\n uses:\n'
                          ' from instruction: %x = f32[2]{0} parameter(0), metadata={op_name="a"\n\n<2 y @0>\n')


def test_a_blank_line_inside_open_brackets_of_a_values_file() -> None:
    document = Document(BLANK_IN_OPEN_BRACKETS, FileKind.BUFFER_ASSIGNMENT_VALUES, "m-buffer-assignment-values.txt")
    kinds = [scan.kind for _, scan in document.scans()]
    assert kinds[5:8] == ["from_instruction", "continuation", "used_value"]  # the next value is still read


def test_memory_timeline_picture_of_a_buffer_larger_than_a_float(tmp_path: Path) -> None:
    """Minimized from mutant #2604 (seed 20240611) of corpus/jax-0.4.38/vmap_remat: a shape with a
    300-digit dimension made the axis labels divide beyond a float's range."""
    stem = tmp_path / "module_0001.jit_loss.cpu_after_optimizations"
    Path(f"{stem}.txt").write_text("n{\ntanh.20 = f32[1" + "0" * 300 + "64]{} h(")
    Path(f"{stem}-buffer-assignment.txt").write_text("HloLiveRange (max 9):\nBufferLiveRange:\ntanh.20{}:2-1")
    [module] = load([str(tmp_path)]).modules
    report = memory_report(module)
    assert report is not None
    svg = timeline_svg(report)
    assert svg.startswith("<svg") and "&gt;1EiB<" in svg  # the byte axis


# Minimized from mutant #332939 (the first two lines swapped) of corpus/jax-0.10.2/sharded_jit's
# buffer assignment: a value line before any allocation's header was counted in the next allocation.
VALUE_BEFORE_ANY_ALLOCATION = ("allocation 0: size 4:\nBufferAssignment:\n value: <6 a @0> (size=4,offset=0): f32[]\n"
                               "allocation 1: size 4:\n value: <4 b @0> (size=4,offset=0): f32[]\n")


def test_a_value_before_any_allocation_belongs_to_none() -> None:
    module, document = _module(VALUE_BEFORE_ANY_ALLOCATION, FileKind.BUFFER_ASSIGNMENT, "m-buffer-assignment.txt")
    info = hover(module, target_at(document, Position(3, 1)))  # type: ignore[arg-type]
    assert info is not None and info.markdown.startswith("**allocation 1**: 4 bytes, 1 value")
    assert "<4 b @0>" in info.markdown and "<6 a @0>" not in info.markdown


# Reduced by hand from mutant #634129 (a value line of the allocations written 3,000 times over on one
# 200 KB line): the glance read that line again for each time it names the instruction, 16 s.
def test_a_glance_at_a_value_line_naming_its_instruction_thousands_of_times_is_fast(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    allocations = Path(f"{stem}-buffer-assignment.txt")
    value = " value: <62 ynn_fusion.1 @0> (size=32768,offset=0): f32[32,256]{1,0}"
    text = allocations.read_text()
    assert text.count(value + "\n") == 1
    allocations.write_text(text.replace(value + "\n", value * 3000 + "\n"))
    hlo_path = f"{stem}.txt"
    documents = {kind: read_document(path, kind)[0] for kind, path in module_files(hlo_path).items()}
    glance = ModuleGlance.of(module_stem(hlo_path), documents)
    assert glance is not None
    with _watchdog(5.0):
        glanced = glance.instruction_module("ynn_fusion.1")
    whole = load([str(tmp_path)]).modules[0]
    target = target_at(whole.hlo_document, Position(whole.hlo.line_of("ynn_fusion.1"), 5))
    assert glanced is not None and target is not None and hover(glanced, target) == hover(whole, target)


def test_a_companion_whose_first_line_reads_like_a_module_stays_a_companion(tmp_path: Path) -> None:
    """Fuzzer mutant #3488 (a values file whose text was replaced by `HloModule`s): read by its first line,
    it became the module's HLO file in the loader (sorted before the real one) but not in a glance,
    whose hovers then differed. XLA's naming tells a companion's kind whatever its first line says."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    values = Path(f"{stem}-buffer-assignment-values.txt")
    values.write_text("HloModule" + values.read_text())
    (module,) = load([str(tmp_path)]).modules
    assert module.hlo_document is not None and module.hlo_document.source == f"{stem}.txt"
    assert module.documents[FileKind.BUFFER_ASSIGNMENT_VALUES].source == str(values)


def test_a_huge_sub_byte_shape_has_an_exact_size() -> None:
    """Fuzzer mutant #18911: `u2[10^37...]{...:E(2)}` took a float division of its element count (OverflowError)."""
    from hlo_lsp.model.sizes import dense_size

    shape = hlo_syntax.parse_shape("u2[" + "1" + "0" * 40 + "]{0:E(2)}")
    assert dense_size(shape) == 10 ** 40 // 4  # type: ignore[arg-type]


def test_a_glance_leaves_a_copy_start_to_the_whole_module(tmp_path: Path) -> None:
    """Fuzzer mutant #34813 (a TPU buffer assignment cut before its allocations of other colors): a glance
    said a copy-start copies `to color 1`, the whole module, which reads the memory-usage report, `to vmem`.
    What a copy moves between spaces needs the report: a glance declines a copy-start, as a *-done."""
    stem = copy_module(TPU_MATMUL, tmp_path)
    allocations = Path(f"{stem}-buffer-assignment.txt")
    lines = allocations.read_text().split("\n")
    allocations.write_text("\n".join(line for line in lines if ", color " not in line))
    documents = {kind: document for kind, path in module_files(f"{stem}.txt").items()
                 if (document := read_document(path, kind)[0]) is not None}
    glance = ModuleGlance.of(module_stem(f"{stem}.txt"), documents)
    assert glance is not None and glance.instruction_module("fusion") is not None
    assert glance.instruction_module("copy-start") is None and glance.instruction_module("copy-done") is None


def test_a_brace_inside_a_shapes_dimensions_is_a_syntax_error_not_a_crash(tmp_path: Path) -> None:
    """Fuzzer mutant #195031 (`f32[2{,4,64,64]{3,2,1,0}`): the layout rule looked for the `]` of the part
    before the first `{` and found none (ValueError)."""
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  param_0.41 = f32[2{,4,64,64]{3,2,1,0} parameter(0)\n}\n")
    problems = [(p.range.start.line, p.code) for p in problems_of(path)]
    assert problems == [(1, "unclosed-computation"), (2, "syntax")]  # its `}` closes the `{`, as XLA reads it


def test_a_glance_leaves_lines_below_an_open_block_comment_to_the_whole_module(tmp_path: Path) -> None:
    """Fuzzer mutant #190537 (`/*` typed at the start of a line and never closed): the rest of the file is
    a comment to the module, but a glance read an instruction line below it alone, as an instruction."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo = Path(f"{stem}.txt")
    lines = hlo.read_text().split("\n")
    opened = next(number for number, text in enumerate(lines) if text.startswith("  %"))
    lines[opened] = "/*" + lines[opened]
    hlo.write_text("\n".join(lines))
    documents = {kind: document for kind, path in module_files(str(hlo)).items()
                 if (document := read_document(path, kind)[0]) is not None}
    glance = ModuleGlance.of(module_stem(str(hlo)), documents)
    assert glance is not None
    below = next(number for number in range(opened + 5, len(lines)) if lines[number].startswith("  %"))
    line_document = glance.line_document(below)
    assert line_document is None or not glance.reads_as_whole(line_document, below)
    assert glance.instruction_module(lines[below].split()[0].lstrip("%")) is None


def test_a_shape_on_a_long_line_that_is_not_ascii_is_found_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant #329332 (a 240 KB dump read as one line: only carriage returns, and one astral character):
    finding the shape under the cursor converted each shape's columns by a scan of the line's prefix,
    work in the square of the line's length (2.7 s for one definition request)."""
    line = "\U0001f600 " + " ".join(f"%v{n} = f32[{n},8]{{1,0}} add(%a, %b)" for n in range(3000))
    character = len(line) - len(line.split(" ")[-3]) + 1  # in the last shape, in UTF-16 units (the emoji: 2)
    converted: list[int] = []
    real = targets.utf16_column
    monkeypatch.setattr(targets, "utf16_column", lambda text, index: converted.append(index) or real(text, index))
    found = target_at(Document(line, FileKind.HLO_MODULE, "m.txt"), Position(0, character))
    assert found is not None and (found.kind, found.name) == ("shape", "f32[2999,8]{1,0}")
    assert len(converted) <= 2  # the target's own range only


# Reduced by hand from mutant #563400 (a 200 KB module header: the header repeated, with bytes that are not
# UTF-8): the opcode rules' findings on it were thousands, and each one's UTF-16 column was counted from
# the start of the line, O(n²) in its length.
HEADER = ("HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}, "
          "allow_spmd_sharding_propagation_to_output={true}")
LONG_HEADER = " ".join([HEADER] * 3000) + " /* 𝔣 */\n\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n"


def test_checks_of_a_long_header_with_a_letter_outside_the_bmp_are_fast(tmp_path: Path) -> None:
    problems, seconds = timed_check(tmp_path, LONG_HEADER, 10.0)
    assert seconds < 3.0  # ~8 s before the fix
    assert [p.range.start.line for p in problems] and {p.range.start.line for p in problems} == {0}


class _CountedMatches:
    """A compiled pattern whose `match` calls are counted."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.calls = pattern, 0

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        self.calls += 1
        return self.pattern.match(text, pos)


def test_a_name_repeated_on_a_long_line_is_looked_up_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant #862379 (a TF dump's parameter line repeated to 200 KB): looking up where `lhs` is defined
    read the line's text before each of its 5,851 names again (2.6 s for one hover); its blanks are
    read once now."""
    line = "  " + "  ".join(["%lhs = s32[] parameter(1)"] * 3000)
    text = f"HloModule m\n\nENTRY e {{\n  %p = s32[] parameter(0)\n{line}\n  ROOT %r = s32[] add(%p, %lhs)\n}}\n"
    counted = _CountedMatches(text_search.BLANKS)
    monkeypatch.setattr(text_search, "BLANKS", counted)
    document = Document(text, FileKind.HLO_MODULE, "m.txt")
    glance = ModuleGlance.of("m", {FileKind.HLO_MODULE: document})
    use = Position(5, text.split("\n")[5].index("%lhs") + 1)
    target = target_at(document, use)
    assert glance is not None and target is not None
    glanced = glance.instruction_module("lhs")
    assert counted.calls == 1  # the long line's blanks, once
    assert glanced is not None
    assert hover(glanced, target) == hover(ModuleDump("m", {FileKind.HLO_MODULE: document}), target)


def test_a_name_alone_on_a_line_the_module_head_holds_as_a_continuation_is_declined() -> None:
    """Mutant #877366: an instruction above the first computation leaves its operands open, so the lines
    below it (`FileNames`...) continue it; asked where `FileNames` is defined, the glance took that line,
    held already as a continuation, for an instruction (IndexError on its missing name)."""
    text = ('HloModule m\n  %a.1 = f32[4]{0} parameter(09\n\nFileNames\n1 "a.py"\n\n'
            'ENTRY e {\n  ROOT r = f32[4] negate(p)\n}\n')
    glance = ModuleGlance.of("m", {FileKind.HLO_MODULE: Document(text, FileKind.HLO_MODULE, "m.txt")})
    assert glance is not None
    assert glance.instruction_module("FileNames") is None


def test_a_shape_longer_than_any_xla_prints_is_not_parsed_for_a_hover(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant #904856 (a 200 KB line of dimensions): hovering the shape ran the grammar over it (1.3 s alone,
    3.7 s under load); the hover says how long it is instead."""
    shape = "f32[" + ",".join(["2"] * 40_000) + "]"
    line = f"  %p = {shape} parameter(0)"
    text = f"HloModule m\n\nENTRY e {{\n{line}\n}}\n"
    document = Document(text, FileKind.HLO_MODULE, "m.txt")
    target = target_at(document, Position(3, line.index(shape) + 10))
    assert target is not None and target.kind == "shape"
    monkeypatch.setattr(hlo_syntax, "parse_rule", lambda *_: pytest.fail("the grammar ran"))
    shown = hover(ModuleDump("m", {FileKind.HLO_MODULE: document}), target)
    assert shown is not None and "a shape of 80,004 characters, longer than a hover reads" in shown.markdown


def test_a_definition_below_a_string_left_open_is_left_to_the_whole_module() -> None:
    """Mutant #985792: a quote typed in a line's metadata leaves a string open over the line below, which
    defines the name hovered, to the next line with a quote; the glance read that line alone, as a
    definition (the whole module, as the string's)."""
    text = ('HloModule m\n\nENTRY e {\n  a = f32[4] parameter(0), metadata={source_file="/q"uote/x.py"}\n'
            '  b = f32[4] %%x(1)\n  ROOT c = f32[4] add(a, b), metadata={op_name="c"}\n}\n')  # (an opcode garbled too)
    document = Document(text, FileKind.HLO_MODULE, "m.txt")
    glance = ModuleGlance.of("m", {FileKind.HLO_MODULE: document})
    target = target_at(document, Position(5, text.split("\n")[5].index("b)")))
    assert glance is not None and target is not None
    assert hover(ModuleDump("m", {FileKind.HLO_MODULE: document}), target) is None  # `b` is in the string
    assert glance.instruction_module("b") is None


def test_a_name_after_a_comma_is_an_attribute_key_not_the_next_instruction(tmp_path: Path) -> None:
    """Fuzzer mutant #1012295: a byte flipped in `use_global_device_ids` left `use_global_d%vice_ids=true`;
    the piece before the glued `%vice_ids=` read as a line of items of its own, nested in the line's, and
    every lookup of the instruction on it raised StopIteration (the memory report crashed)."""
    line = "  %r = f32[4] all-reduce(%p), use_global_d%vice_ids=true, to_apply=%add"
    text = ("HloModule m\n\n%add {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
            "  ROOT %s = f32[] add(%x, %y)\n}\n\nENTRY %e {\n  %p = f32[4] parameter(0)\n" + line + "\n"
            "  ROOT %n = f32[4] negate(%r)\n}\n")
    (tmp_path / "m.txt").write_text(text)
    module = load([str(tmp_path)]).modules[0]
    assert module.hlo is not None
    items = module.hlo.document.scan(10).data
    assert [(start, item.kind) for start, item in items] == [(0, "instruction"), (line.index("%vice"), "instruction")]
    site = module.hlo.site("r")
    assert site is not None and (site.line, site.opcode) == (10, "all-reduce")

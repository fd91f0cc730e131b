"""A glance at a module's text answers exactly as the whole module would, or not at all."""

from __future__ import annotations

import gc
import random
import re
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import CORPUS, DATA, HANDWRITTEN, SPLIT_MLP, copy_module, plant
from hlo_lsp.features.definition import definition
from hlo_lsp.features.hover import hover
from hlo_lsp.features.targets import target_at
from hlo_lsp.features.types import Target
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.model.glance import ModuleGlance
from hlo_lsp.model.pairing import paired_module
from hlo_lsp.parsing import block_names, text_search
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.loader import module_files, read_document

PER_MODULE = 25  # instructions compared per module (a seeded sample)
OTHER = DATA / "jax-0.10.2" / "control_flow" / "module_0000.jit_f.cpu_after_optimizations"


def fresh_documents(hlo_path: Path | str) -> dict[FileKind, Document]:
    documents = {}
    for kind, path in module_files(str(hlo_path)).items():
        document, _ = read_document(path, kind)
        if document is not None:
            documents[kind] = document
    return documents


def glance_at(hlo_path: Path | str) -> ModuleGlance:
    glance = ModuleGlance.of(module_stem(str(hlo_path)), fresh_documents(hlo_path))
    assert glance is not None
    return glance


def whole_module(hlo_path: Path | str) -> ModuleDump:
    return ModuleDump(module_stem(str(hlo_path)), fresh_documents(hlo_path))


def hlo_files() -> list[Path]:
    """The HLO files of every bundled and shared module with a buffer assignment (a TPU compilation's
    `after_codegen` reads its `after_optimizations`' buffer assignment)."""
    found = []
    for root in (DATA, CORPUS, CORPUS.parent / "producers"):
        if root.is_dir():
            found += sorted(root.rglob("*after_optimizations.txt")) + sorted(root.rglob("*after_codegen.txt"))
            found += sorted(root.rglob("*.hlo"))
    return found


def glanced_hover(glance: ModuleGlance, position: Position) -> tuple[Target | None, object]:
    line = glance.line_document(position.line)
    target = target_at(line, position) if line is not None else None
    module = glance.instruction_module(target.name) if target is not None else None
    return target, hover(module, target) if module is not None and target is not None else None


def instruction_positions(module: ModuleDump, count: int) -> list[Position]:
    """Seeded sample of cursor positions: on instructions' names and on their operands."""
    assert module.hlo is not None
    lines = [(line, scan) for line, scan in module.hlo.document.scans() if scan.kind == "instruction"]
    random.Random(7).shuffle(lines)
    positions = []
    for line, scan in lines[:count]:
        positions.append(Position(line, scan.refs[0].start))
        operands = [ref for ref in module.hlo.document.uses_on_line(line) if ref.role.name == "OPERAND"]
        if operands:
            positions.append(Position(line, operands[0].start + 1))
    return positions


@pytest.mark.parametrize("hlo_path", hlo_files(), ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}")
def test_a_glance_hovers_and_jumps_as_the_whole_module_does(hlo_path: Path) -> None:
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    answered = 0
    positions = instruction_positions(module, PER_MODULE)
    several_spaces = module.memory_spaces.several  # the peak of each space needs the whole module
    for number, position in enumerate(positions):
        if number == len(positions) // 2:
            glance.read_indexes()  # the first half by searches of the whole texts, the second in the indexes' blocks
        target, glanced = glanced_hover(glance, position)
        name = target_at(module.hlo_document, position).name  # type: ignore[arg-type, union-attr]
        defined_twice = len(module.hlo.definition_lines(name)) > 1  # type: ignore[union-attr]
        site = module.hlo.site(name)  # type: ignore[union-attr]
        async_done = site is not None and (site.opcode.endswith("-done") or site.opcode == "copy-start")
        if glanced is None:  # declined only for a name several computations define, several spaces, a *-done
            assert defined_twice or several_spaces or async_done, f"{hlo_path.name}:{position.line + 1}"
        else:
            assert target is not None
            assert target == target_at(module.hlo_document, position)  # type: ignore[arg-type]
            assert glanced == hover(module, target), f"{hlo_path.name}:{position.line + 1}"
            answered += 1
        if not defined_twice:
            assert target is not None
            jumped = glance.instruction_module(target.name, memory=False)
            assert jumped is not None and definition(jumped, target) == definition(module, target)
    assert answered >= len(positions) // 2 or several_spaces


def computation_positions(module: ModuleDump, count: int) -> list[Position]:
    """Seeded sample of cursor positions on computations' names: their headers, and the instructions
    that call them (calls=, to_apply=, body=, ...)."""
    assert module.hlo is not None
    document = module.hlo.document
    headers = [Position(c.line, c.name_range.start.character) for c in module.hlo.all_computations()]
    uses = [Position(line, ref.start + 1) for line, scan in document.scans() if scan.kind == "instruction"
            for ref in document.uses_on_line(line) if ref.role.name == "COMPUTATION_USE"]
    rng = random.Random(11)
    return rng.sample(headers, min(count, len(headers))) + rng.sample(uses, min(count, len(uses)))


def glanced_computation(glance: ModuleGlance, position: Position, whole: bool) -> tuple[Target | None, object]:
    line = glance.line_document(position.line)
    target = target_at(line, position) if line is not None else None
    if target is None or target.kind != "computation":
        return target, None
    module = glance.module_about(target.kind, target.name, whole)
    return target, (hover(module, target) if whole else definition(module, target)) if module is not None else None


@pytest.mark.usefixtures("small_blocks")  # (the computations' headers and callers found in the blocks holding them)
@pytest.mark.parametrize("hlo_path", hlo_files(), ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}")
def test_a_glance_hovers_and_jumps_on_computations_as_the_whole_module_does(hlo_path: Path) -> None:
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    positions = computation_positions(module, PER_MODULE)
    random.Random(3).shuffle(positions)  # (headers and calls in both halves)
    answered = 0
    for number, position in enumerate(positions):
        if number == len(positions) // 2:
            glance.read_indexes()  # the first half by searches of the whole texts, the second in the indexes' blocks
        target = target_at(module.hlo_document, position)  # type: ignore[arg-type]
        assert target is not None and target.kind == "computation", (hlo_path.name, position)
        for whole, ask in ((True, hover), (False, definition)):
            glanced_target, glanced = glanced_computation(glance, position, whole)
            assert glanced_target == target
            if glanced is not None:
                assert glanced == ask(module, target), f"{hlo_path.name}:{position.line + 1} {target.name}"
                answered += 1
    assert answered == 2 * len(positions)  # no computation of these dumps is declined


def generated_dump(folder: Path, style: str) -> Path:
    """The HLO file of a 1 MB dump written by benchmarks/make_large_dump.py, with its companions."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import make_large_dump

    if not all(Path(f"{stem}.txt").exists() for stem in make_large_dump.SOURCES.values()):
        pytest.skip("needs the large_fwd_unrolled dumps of ../shared/corpus")
    return make_large_dump.make_large_dump(1.0, style, folder)["hlo"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("style", ["0.10.2", "0.4.38"])
def test_a_glance_at_a_generated_large_dump_hovers_as_the_whole_module_does(tmp_path: Path, style: str) -> None:
    hlo_path = generated_dump(tmp_path, style)
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    positions = instruction_positions(module, 200)
    for number, position in enumerate(positions):
        if number == 100:
            glance.read_indexes()
        target, glanced = glanced_hover(glance, position)
        assert glanced is not None and target is not None, position
        assert glanced == hover(module, target), position
    for position in computation_positions(module, 50):
        target, glanced = glanced_computation(glance, position, whole=True)
        assert glanced is not None and target is not None, position
        assert glanced == hover(module, target), position


def test_the_memory_in_a_glanced_hover_is_the_buffer_assignments() -> None:
    hlo_path = Path(f"{SPLIT_MLP}.txt")
    text = hlo_path.read_text().split("\n")
    line = next(number for number, content in enumerate(text) if "%ynn_fusion.1 = " in content)
    target, glanced = glanced_hover(glance_at(hlo_path), Position(line, text[line].index("ynn_fusion.1")))
    assert target is not None and target.name == "ynn_fusion.1"
    assert glanced is not None
    assert glanced.markdown.split("\n")[:6] == [  # type: ignore[attr-defined]
        "**ynn_fusion.1** = `f32[32,256]{1,0}` fusion",
        "",
        "`<62 ynn_fusion.1 @0>`",
        "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0",
        "- live [9, 10]: from `ynn_fusion.1` to `add_maximum_fusion`",
        "- live at the peak (time 9, `ynn_fusion.1`): counted as 32,768 of 487,464 bytes (476.0KiB)",
    ]


def test_every_question_of_a_glance_shares_one_reading_of_the_peak_list() -> None:
    hlo_path = Path(f"{SPLIT_MLP}.txt")
    glance = glance_at(hlo_path)
    first, second = (glance.instruction_module(name) for name in ("ynn_fusion.1", "add_maximum_fusion"))
    assert first is not None and second is not None
    peaks = [module.buffer_assignment.live_range.peak  # type: ignore[union-attr]
             for module in (first, second, whole_module(hlo_path))]
    assert len(peaks[0]) > 1 and peaks[0] == peaks[1] == peaks[2]  # the whole list, as the whole file reads it
    assert peaks[0] is peaks[1]  # read once: the list itself is shared, and what is counted of it
    assert peaks[0].sizes is peaks[1].sizes and peaks[0].sizes == peaks[2].sizes


def _position_of_definition(hlo_path: Path, name: str) -> Position:
    text = hlo_path.read_text().split("\n")
    line = next(number for number, content in enumerate(text) if f"%{name} = " in content)
    return Position(line, text[line].index(name))


def test_a_name_defined_twice_is_declined(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    text = hlo_path.read_text()
    name = "ynn_fusion.1"
    first = text.index(f"  %{name} = ")
    line_end = text.index("\n", first)
    hlo_path.write_text(text[: line_end + 1] + text[first : line_end + 1] + text[line_end + 1 :])
    glance = glance_at(hlo_path)
    assert glance.instruction_module(name) is None
    assert glance.instruction_module(name, memory=False) is None


@pytest.mark.parametrize("written", ["state =(", "state=(", "state\t= (", "state =0("])
def test_a_name_defined_twice_is_declined_however_its_equals_sign_is_spaced(tmp_path: Path, written: str) -> None:
    """The scanner reads `name`, any spaces or tabs, then `=` as a definition: a second definition of
    `state` written without the usual spaces still makes it defined twice. (The last one is the
    fuzzer's mutant: a byte flipped to `0`.)"""
    hlo_path = tmp_path / HANDWRITTEN.name
    text = HANDWRITTEN.read_text()
    assert text.count("  state = (") == 2
    hlo_path.write_text(text.replace("  state = (", "  " + written, 1))
    module = whole_module(hlo_path)
    assert module.hlo is not None and len(module.hlo.definition_lines("state")) == 2
    assert glance_at(hlo_path).instruction_module("state", memory=False) is None


def test_files_of_another_compilation_are_declined(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    shutil.copyfile(Path(f"{OTHER}-live-range.txt"), Path(f"{stem}-live-range.txt"))
    hlo_path = Path(f"{stem}.txt")
    position = _position_of_definition(hlo_path, "ynn_fusion.1")
    glance = glance_at(hlo_path)
    assert glanced_hover(glance, position)[1] is None
    assert glance.instruction_module("ynn_fusion.1", memory=False) is not None  # its definition is still sure


def test_a_peak_xla_did_not_print_is_declined(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    live_range = Path(f"{stem}-live-range.txt")
    text = live_range.read_text()
    live_range.write_text(text[: text.index("  Live ranges at")])
    assert glance_at(Path(f"{stem}.txt")).instruction_module("ynn_fusion.1") is None


def test_tables_printed_below_a_computation_are_left_to_the_whole_module(tmp_path: Path) -> None:
    """The glance reads the stack-frame tables above the first computation; the module reads them at
    any top-level line. With a computation moved above the tables, the glance declines what needs
    them: an instruction's memory (its hover shows the source and the Python stack), and a frame."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    text = hlo_path.read_text()
    after_header, tables = text.index("\n") + 1, text.index("\nFileNames") + 1
    computation = text.index("\n%", tables) + 1
    end = text.index("\n}\n", computation) + 3
    hlo_path.write_text(text[:after_header] + text[computation:end] + text[after_header:computation] + text[end:])
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    assert module.hlo is not None and module.hlo.stack_frame(1) is not None
    assert glance.frames_module() is None
    assert glance.instruction_module("ynn_fusion.1") is None


def test_no_glance_once_a_file_is_scanned() -> None:
    documents = fresh_documents(f"{SPLIT_MLP}.txt")
    documents[FileKind.LIVE_RANGE].chunks  # noqa: B018 - scanning it is the point
    assert ModuleGlance.of(module_stem(f"{SPLIT_MLP}.txt"), documents) is None


def test_a_glance_never_reads_the_values_file() -> None:
    documents = fresh_documents(f"{SPLIT_MLP}.txt")
    glance = ModuleGlance.of(module_stem(f"{SPLIT_MLP}.txt"), documents)
    assert glance is not None
    module = glance.instruction_module("ynn_fusion.1")
    assert module is not None and FileKind.BUFFER_ASSIGNMENT_VALUES not in module.documents
    assert documents[FileKind.BUFFER_ASSIGNMENT_VALUES].unscanned_text() is not None


@pytest.mark.parametrize("suffix", ["-buffer-assignment.txt", "-live-range.txt", ".txt"])
def test_cut_files_give_the_whole_modules_answer_or_none(tmp_path: Path, suffix: str) -> None:
    """A file cut anywhere (a dump still being written): what a glance says, the whole module says."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    path = Path(f"{stem}{suffix}")
    original = path.read_text()
    hlo_path = Path(f"{stem}.txt")
    for cut in range(len(original) // 7, len(original), len(original) // 7):
        path.write_text(original[:cut])
        module, glance = whole_module(hlo_path), ModuleGlance.of(module_stem(str(hlo_path)),
                                                                   fresh_documents(hlo_path))
        assert glance is not None
        for position in instruction_positions(module, 6):
            target, glanced = glanced_hover(glance, position)
            if glanced is not None:
                assert glanced == hover(module, target), (cut, position)  # type: ignore[arg-type]


def test_a_garbled_line_under_the_cursor_is_read_as_the_whole_module_reads_it(tmp_path: Path) -> None:
    """`%ynn_fusion.1 == f32[...]` still defines the instruction for the scanner (its shape starts with
    `=`): the glance finds that definition too, and says what the whole module says."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    line = plant(hlo_path, "  %ynn_fusion.1 = ", "  %ynn_fusion.1 == ")
    target, glanced = glanced_hover(glance_at(hlo_path), Position(line, 5))
    module = whole_module(hlo_path)
    assert target is not None and glanced is not None and glanced == hover(module, target)
    assert "`= f32[32,256]{1,0}`" in glanced.markdown


def test_a_top_level_line_not_below_a_closing_brace_is_left_to_the_whole_module(tmp_path: Path) -> None:
    """An instruction whose op_name goes on over a line end, to a line of its own, unindented:
    `jit(mlp)/add" ...}` reads as a computation header on its own, while the whole file reads it as the
    rest of the string. A glance reads a line at the top level only below a `}`. (Found by the fuzzer, the
    string's opening quote lost: a jump from it went to itself.)"""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    text = hlo_path.read_text()
    cut = text.index('op_name="jit(mlp)/add"') + len('op_name="')
    hlo_path.write_text(text[:cut] + "\n" + text[cut:])
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    assert module.hlo_document is not None
    rest = text[:cut].count("\n") + 1
    assert module.hlo_document.scan(rest).kind == "continuation"
    assert target_at(module.hlo_document, Position(rest, 1)) is None
    assert glance.line_document(rest) is None
    header = next(c.line for c in module.hlo.all_computations() if c.line > rest)  # type: ignore[union-attr]
    glanced = glance.line_document(header)
    assert glanced is not None and glanced.scan(header) == module.hlo_document.scan(header)


def test_a_line_inside_a_string_left_open_above_is_left_to_the_whole_module(tmp_path: Path) -> None:
    """Fuzzer mutant #486951: a quote lost in one op_name leaves a string open to the next line, which
    the file reads as part of that string; alone, its `%bitcast.3 =` read as an instruction (with a
    problem), and the glance hovered and jumped where the file names nothing."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    lines = hlo_path.read_text().split("\n")
    opened = next(n for n, line in enumerate(lines) if 'op_name="' in line and lines[n + 1].startswith("  %"))
    lines[opened] = lines[opened].replace('op_name="', "op_name=", 1)
    lines[opened + 1] = lines[opened + 1].replace("(", "L", 1)  # no longer a whole instruction alone
    hlo_path.write_text("\n".join(lines))
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    assert module.hlo_document is not None
    inside = Position(opened + 1, 3)
    assert module.hlo_document.scan(opened + 1).kind == "continuation"
    assert target_at(module.hlo_document, inside) is None
    assert glance.line_document(inside.line) is None


def test_an_instruction_line_inside_a_string_over_lines_is_left_to_the_whole_module(tmp_path: Path) -> None:
    """XLA reads a string on over line ends, through a line that alone reads as an instruction: the
    glance declines it (and still answers above the string)."""
    text = ("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n"
            '  a = f32[4] abs(p), frontend_attributes={note="x\n  q = f32[4] negate(p)\ny"}\n'
            '  ROOT n = f32[4] negate(a), metadata={op_name="n"}\n}\n')
    hlo_path = tmp_path / "m.hlo"
    hlo_path.write_text(text)
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    assert module.hlo_document is not None and module.hlo_document.scan(5).kind == "continuation"
    assert target_at(module.hlo_document, Position(5, 3)) is None
    assert glance.line_document(5) is None and glance.instruction_module("q") is None
    target, glanced = glanced_hover(glance, Position(3, 3))
    assert target is not None and glanced is not None and glanced == hover(module, target)


def test_a_closing_brace_with_an_instruction_after_it_is_left_to_the_whole_module(tmp_path: Path) -> None:
    """Fuzzer mutant #542855 (`}` typed before an instruction of ENTRY: `  }%reduce = ...`): the file ends
    ENTRY there, so a caller below it is in no computation; the glance, which reads no such line, said
    the caller was in ENTRY. A `}` with more after it on its line is a form the glance declines."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    lines = hlo_path.read_text().split("\n")
    entry = next(n for n, line in enumerate(lines) if line.startswith("ENTRY"))
    lines[entry + 2] = "  }" + lines[entry + 2].lstrip()
    hlo_path.write_text("\n".join(lines))
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    assert module.hlo is not None
    header = next(c for c in module.hlo.all_computations() if not c.is_entry)
    position = Position(header.line, header.name_range.start.character)
    line = glance.line_document(header.line)
    target = target_at(line, position) if line is not None else None
    glanced = glance.module_at(line, header.line, target.kind, target.name) if line and target else None
    assert glanced is None


def test_a_caller_below_a_line_that_closes_more_braces_than_it_opens_is_left_to_the_whole_module(
        tmp_path: Path) -> None:
    """Fuzzer mutants #582875 and #612482 (bytes flipped in a layout of ENTRY: `f32[]{:T(}28)}`): the file
    reads the line's last `}` as ENDing ENTRY and what follows as another computation, which then holds
    the callers below; the glance took ENTRY's header as theirs."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    lines = hlo_path.read_text().split("\n")
    entry = next(n for n, line in enumerate(lines) if line.startswith("ENTRY"))
    garbled = next(n for n in range(entry + 1, len(lines)) if "{1,0}" in lines[n])
    lines[garbled] = lines[garbled].replace("{1,0}", "{1,(}0)}", 1)
    hlo_path.write_text("\n".join(lines))
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    assert module.hlo is not None
    called = [c for c in module.hlo.all_computations() if not c.is_entry and c.line < entry]
    assert called
    for computation in called:
        target = target_at(module.hlo_document, Position(computation.line, computation.name_range.start.character))
        assert target is not None
        glanced = glance.module_about("computation", computation.name)
        assert glanced is None or hover(glanced, target) == hover(module, target), computation.name


def test_a_name_alone_on_a_line_is_a_definition_the_glance_counts(tmp_path: Path) -> None:
    """Fuzzer mutant #596970 (a splice left `  p_0__1_.1` alone on a line of a fused computation): the file
    reads it as that name's definition, above its `=`, the first of two; the glance found only the other."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    lines = hlo_path.read_text().split("\n")
    entry = next(n for n, line in enumerate(lines) if line.startswith("ENTRY"))
    name = next(line.split()[0].lstrip("%") for line in lines[entry + 1:] if " parameter(" in line)
    fused = next(n for n, line in enumerate(lines) if line.startswith("%fused_computation"))
    lines.insert(fused + 2, f"  {name}")
    hlo_path.write_text("\n".join(lines))
    module, glance = whole_module(hlo_path), glance_at(hlo_path)
    assert module.hlo is not None and len(module.hlo.definition_lines(name)) == 2
    assert glance.instruction_module(name) is None


def test_a_computation_defined_twice_is_declined(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    text = hlo_path.read_text()
    name = "fused_computation.1"
    header = text.index(f"\n%{name} ") + 1
    body_end = text.index("\n}\n", header) + 3
    hlo_path.write_text(text[:body_end] + "\n" + text[header:body_end] + text[body_end:])
    glance = glance_at(hlo_path)
    assert glance.computation_module(name) is None
    assert glance.computation_module(name, whole=False) is None


def test_a_computation_called_from_a_continued_instruction_is_left_to_the_whole_module(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    text = hlo_path.read_text()
    operand = text.index(" %ws_1_.1), kind=kCustom, calls=%fused_computation.1,")
    hlo_path.write_text(text[:operand] + "\n   " + text[operand:])  # the caller's operands go on to a second line
    glance = glance_at(hlo_path)
    assert glance.computation_module("fused_computation.1") is None
    assert glance.computation_module("fused_computation.1", whole=False) is not None  # its header is still sure


def corpus_copy(stem: str, tmp_path: Path) -> tuple[Path, str]:
    """A copy of a corpus module's files (the test is skipped without the corpus): its HLO file and text."""
    source = CORPUS / stem
    if not Path(f"{source}.txt").exists():
        pytest.skip("needs ../shared/corpus")
    hlo_path = Path(f"{copy_module(source, tmp_path)}.txt")
    return hlo_path, hlo_path.read_text()


def test_instructions_left_outside_any_computation_make_the_pairing_too_unsure(tmp_path: Path) -> None:
    """A `}` just after the instruction at the peak in the ENTRY computation leaves most of the
    schedule outside any computation: the module no longer counts those instructions as its own,
    and its buffer assignment no longer pairs with it. The glance, whose vote by text would still
    count them, leaves memory hovers to the module. (Found by the fuzzer on this dump.)"""
    hlo_path, text = corpus_copy("jax-0.4.38/transformer_f32/module_0001.jit__lambda_.cpu_after_optimizations",
                                 tmp_path)
    module = whole_module(hlo_path)
    assert module.buffer_assignment is not None and module.buffer_assignment.live_range is not None
    peak = module.buffer_assignment.live_range.peak_time
    at_peak = next(entry.name for entry in module.buffer_assignment.live_range.schedule if entry.time == peak)
    line_end = text.index("\n", text.index(f"\n  {at_peak} = ")) + 1
    hlo_path.write_text(text[:line_end] + "}\n" + text[line_end:])
    glance, module = glance_at(hlo_path), whole_module(hlo_path)
    assert paired_module(module.hlo, module.buffer_assignment) is None
    fused = next(c for c in module.hlo.all_computations() if not c.is_entry)  # type: ignore[union-attr]
    name = module.hlo.site_at_line(fused.instruction_lines[0]).name  # type: ignore[union-attr]
    assert glance.instruction_module(name) is None
    assert glance.instruction_module(name, memory=False) is not None  # where it is defined is still sure


def test_instructions_under_a_header_without_its_brace_stay_in_their_computation(tmp_path: Path) -> None:
    """`ENTRY mai//n.82 {` is the header `ENTRY mai` with its `{` missing (XLA reads a header over lines
    until its `{`): the instructions below stay in that computation and the module still pairs with its
    buffer assignment. The glance, which does not read the header, leaves memory hovers to the module.
    (Found by the fuzzer on this dump.)"""
    hlo_path, text = corpus_copy("jax-0.4.38/vmap_remat/module_0001.jit_loss.cpu_after_optimizations", tmp_path)
    name_at = text.index("\nENTRY ") + len("\nENTRY ") + 3
    hlo_path.write_text(text[:name_at] + "//" + text[name_at:])
    glance, module = glance_at(hlo_path), whole_module(hlo_path)
    assert paired_module(module.hlo, module.buffer_assignment) is not None
    entry = next(computation for computation in module.hlo.all_computations() if computation.name == "mai")
    assert entry.is_entry and len(entry.instruction_lines) > 10
    assert glance.instruction_module("constant.0") is None
    assert glance.instruction_module("constant.0", memory=False) is not None  # where it is defined is still sure


def test_a_caller_after_an_unclosed_computation_is_placed_in_its_own(tmp_path: Path) -> None:
    """Without the `}` before ENTRY, the computation above runs on to the ENTRY header: the callers
    in ENTRY are in ENTRY, for the glance as for the module. (Found by the fuzzer.)"""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    text = hlo_path.read_text()
    entry = text.index("\nENTRY ")
    closing = text.rindex("\n}", 0, entry)
    hlo_path.write_text(text[: closing + 1] + text[text.index("\n", closing + 1) + 1 :])
    glance, module = glance_at(hlo_path), whole_module(hlo_path)
    lines = hlo_path.read_text().split("\n")
    line = next(number for number, content in enumerate(lines) if "calls=%fused_computation.1," in content)
    position = Position(line, lines[line].index("calls=%fused_computation.1") + len("calls=%") + 1)
    target, glanced = glanced_computation(glance, position, whole=True)
    assert target is not None and glanced is not None
    assert glanced == hover(module, target)
    assert "in `main.5`" in glanced.markdown  # type: ignore[attr-defined]


# ---- a cursor in a buffer-assignment file ----------------------------------------------------

COMPANION_KINDS = ModuleGlance.CURSOR_KINDS - {FileKind.HLO_MODULE}
COMPANION_LINES = 60  # lines compared per companion file (a seeded sample)


def companion_glance(hlo_path: Path | str) -> tuple[ModuleDump, ModuleGlance, list[Document]]:
    """The whole module, a glance at fresh copies of its files, and the whole module's companions."""
    module, documents = whole_module(hlo_path), fresh_documents(hlo_path)
    glance = ModuleGlance.of(module_stem(str(hlo_path)), documents)
    assert glance is not None
    return module, glance, [document for kind, document in module.documents.items() if kind in COMPANION_KINDS]


def sampled_lines(document: Document, count: int, seed: int = 5) -> list[int]:
    lines = list(range(document.line_count))
    random.Random(seed).shuffle(lines)
    return lines[:count]


def is_paired(module: ModuleDump) -> bool:
    return module.hlo is None or module.buffer_assignment is None or \
        paired_module(module.hlo, module.buffer_assignment) is not None


def companion_hlo_files() -> list[Path]:
    return [path for path in hlo_files() if any(kind in COMPANION_KINDS for kind in module_files(str(path)))]


@pytest.mark.parametrize("hlo_path", companion_hlo_files(),
                         ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}")
def test_a_glance_reads_a_buffer_assignment_line_as_the_whole_file_does(hlo_path: Path) -> None:
    """Any line of a buffer-assignment, values or live-range file: the glance scans it in the state the
    whole file's scan enters it in (or declines, for a module whose files may not be one compilation)."""
    module, glance, companions = companion_glance(hlo_path)
    read = 0
    for document in companions:
        for line in sampled_lines(document, COMPANION_LINES):
            glanced = glance.line_document(line, document.source)
            if glanced is None:
                assert not is_paired(module) or not document.line(line).strip(), f"{document.source}:{line + 1}"
                continue
            assert glanced.scan(line) == document.scan(line), f"{document.source}:{line + 1}"
            assert glanced.uses_on_line(line) == document.uses_on_line(line), f"{document.source}:{line + 1}"
            read += 1
    assert read > 0 or not is_paired(module)


def companion_positions(document: Document, count: int) -> list[Position]:
    """Seeded sample of cursor positions on the instructions and computations a file names."""
    named = [Position(line, ref.start) for line in range(document.line_count)
             for ref in (*document.scan(line).refs, *document.uses_on_line(line))
             if ref.role.name in ("INSTRUCTION_MENTION", "INSTRUCTION_USE", "COMPUTATION_MENTION", "COMPUTATION_USE")]
    return random.Random(3).sample(named, min(count, len(named)))


@pytest.mark.parametrize("hlo_path", companion_hlo_files(),
                         ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}")
def test_a_glance_hovers_and_jumps_from_a_buffer_assignment_file_as_the_whole_module_does(hlo_path: Path) -> None:
    module, glance, companions = companion_glance(hlo_path)
    answered = 0
    for document in companions:
        for position in companion_positions(document, PER_MODULE):
            target = target_at(document, position)
            assert target is not None and target.kind in ("instruction", "computation")
            line = glance.line_document(position.line, document.source)
            if line is None:
                assert not is_paired(module)
                continue
            assert target_at(line, position) == target
            for whole, ask in ((True, hover), (False, definition)):
                glanced = glance.module_about(target.kind, target.name, whole)
                if glanced is not None:
                    assert ask(glanced, target) == ask(module, target), f"{document.source}:{position.line + 1}"
                    answered += 1
    assert answered > 0 or not is_paired(module) or not any(companion_positions(d, 1) for d in companions)


def value_positions(document: Document, count: int) -> list[Position]:
    """Seeded sample of cursor positions on the value ids a file prints."""
    named = [Position(line, ref.start) for line in range(document.line_count)
             for ref in (*document.scan(line).refs, *document.uses_on_line(line))
             if ref.role.name in ("VALUE_DEF", "VALUE_MENTION")]
    return random.Random(4).sample(named, min(count, len(named)))


@pytest.mark.parametrize("hlo_path", companion_hlo_files(),
                         ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}")
def test_a_glance_hovers_a_value_as_the_whole_module_does(hlo_path: Path) -> None:
    """A value's id on its allocation's line or in the values file: the memory of the value's
    instruction, glanced, holds what the whole module says of the value."""
    asked, answered = glanced_hovers_alike(hlo_path, value_positions, "value")
    assert answered > 0 or asked == 0 or whole_module(hlo_path).memory_spaces.several


def glanced_hovers_alike(hlo_path: Path, positions_of: Callable[[Document, int], list[Position]],
                         kind: str) -> tuple[int, int]:
    """At positions on `kind` in each companion of the module: how many the glance placed, and how
    many of those it answered, each as the whole module does."""
    module, glance, companions = companion_glance(hlo_path)
    asked = answered = 0
    for document in companions:
        for position in positions_of(document, PER_MODULE):
            target = target_at(document, position)
            assert target is not None and target.kind == kind
            line = glance.line_document(position.line, document.source)
            if line is None:
                assert not is_paired(module)
                continue
            asked += 1
            glanced = glance.module_at(line, position.line, target.kind, target.name)
            said = hover(glanced, target) if glanced is not None else None
            if said is not None:
                assert said == hover(module, target), f"{document.source}:{position.line + 1}"
                answered += 1
    return asked, answered


@pytest.mark.parametrize("style", ["0.10.2", "0.4.38"])
def test_a_glance_hovers_from_the_buffer_assignment_files_of_a_generated_dump(tmp_path: Path, style: str) -> None:
    hlo_path = generated_dump(tmp_path, style)
    module, glance, companions = companion_glance(hlo_path)
    assert companions
    for document in companions:
        for position in companion_positions(document, 100):
            target = target_at(document, position)
            line = glance.line_document(position.line, document.source)
            assert line is not None and target is not None and target_at(line, position) == target
            glanced = glance.module_about(target.kind, target.name)
            assert glanced is not None and hover(glanced, target) == hover(module, target), position
        for position in value_positions(document, 100):
            target = target_at(document, position)
            line = glance.line_document(position.line, document.source)
            assert line is not None and target is not None
            glanced = glance.value_module(line, position.line, target.name)
            assert glanced is not None and hover(glanced, target) == hover(module, target), position


def test_a_cursor_far_from_where_its_state_is_known_is_declined(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a value's long list of uses, a glance would scan back to the value's first line: over a
    bound, the whole file answers."""
    module, glance, _ = companion_glance(f"{SPLIT_MLP}.txt")
    values = module.documents[FileKind.BUFFER_ASSIGNMENT_VALUES]
    use = next(line for line in range(values.line_count) if values.scan(line).kind == "use"
               and values.scan(line - 1).kind == "use")
    first = max(line for line in range(use) if values.scan(line).kind == "used_value")
    monkeypatch.setattr("hlo_lsp.model.glance.buffers_text.RESYNC_LINES", use - first - 1)
    assert glance.line_document(use, values.source) is None
    monkeypatch.setattr("hlo_lsp.model.glance.buffers_text.RESYNC_LINES", use - first)
    assert glance.line_document(use, values.source) is not None


def test_no_glance_from_a_buffer_assignment_of_another_compilation(tmp_path: Path) -> None:
    """Its instructions may not be the HLO file's: the whole module answers from the buffer assignment."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    shutil.copyfile(Path(f"{OTHER}-live-range.txt"), Path(f"{stem}-live-range.txt"))
    module, glance, companions = companion_glance(f"{stem}.txt")
    assert not is_paired(module)
    assert all(glance.line_document(line, document.source) is None
               for document in companions for line in range(document.line_count))


def test_a_glance_from_the_values_file_scans_no_file() -> None:
    """What makes it sooner: the cursor's line, the instruction's lines and its memory are read by text
    search; every file of the module is still unscanned after the answer."""
    hlo_path = f"{SPLIT_MLP}.txt"
    documents = fresh_documents(hlo_path)
    glance = ModuleGlance.of(module_stem(hlo_path), documents)
    assert glance is not None
    values = documents[FileKind.BUFFER_ASSIGNMENT_VALUES]
    text = Path(values.source).read_text().split("\n")
    line = next(number for number, content in enumerate(text)
                if content.startswith("<") and " ynn_fusion.1 " in content)
    position = Position(line, text[line].index("ynn_fusion.1"))
    glanced_line = glance.line_document(line, values.source)
    assert glanced_line is not None
    target = target_at(glanced_line, position)
    assert target is not None and (target.kind, target.name) == ("instruction", "ynn_fusion.1")
    module = glance.module_about(target.kind, target.name)
    assert module is not None
    assert hover(module, target) == hover(whole_module(hlo_path), target)
    assert all(document.unscanned_text() is not None for document in documents.values())


def every_column(document: Document, line: int) -> list[Position]:
    return [Position(line, column) for column in range(len(document.line(line)) + 2)]


@pytest.mark.parametrize("hlo_path", hlo_files(), ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}")
def test_a_line_a_glance_reads_as_the_whole_file_has_its_targets_at_every_column(hlo_path: Path) -> None:
    """What lets a glance say at once that the cursor is on nothing, or on a shape: where it says the
    line surely reads as in the whole file, each column names what it names there."""
    module, glance, companions = companion_glance(hlo_path)
    assert module.hlo_document is not None
    surely = 0
    for document in [module.hlo_document, *companions]:
        for line in sampled_lines(document, COMPANION_LINES):
            glanced = glance.line_document(line, document.source)
            if glanced is None or not glance.reads_as_whole(glanced, line):
                continue
            for position in every_column(document, line):
                assert target_at(glanced, position) == target_at(document, position), (document.source, position)
            surely += 1
    assert surely > 0


def test_a_glance_reads_the_tables_above_the_first_computation_as_the_whole_file_does() -> None:
    """A table's row is indented like an instruction: read in order from the top, it is the row the
    whole file reads there (a frame, a location, a file or function name), and surely so."""
    module, glance, _ = companion_glance(f"{SPLIT_MLP}.txt")
    document = module.hlo_document
    assert document is not None
    rows = [line for line in range(document.line_count) if document.scan(line).kind == "table_row"]
    assert rows
    for row in rows:
        glanced = glance.line_document(row, document.source)
        assert glanced is not None and glanced.scan(row) == document.scan(row)
        assert glance.reads_as_whole(glanced, row)


def test_a_glance_is_not_sure_of_a_line_it_guesses_wrong(tmp_path: Path) -> None:
    """Below the first computation a line is read in the state its indent suggests: the second line of
    an instruction printed over two lines reads as a broken instruction, not as the continuation the
    whole file reads, and the glance declines it (a line that reads with a problem alone)."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo_path = Path(f"{stem}.txt")
    text = hlo_path.read_text()
    split = text.index(", %", text.index(" fusion(%"))
    hlo_path.write_text(text[:split] + ",\n      %" + text[split + len(", %"):])
    module, glance, _ = companion_glance(hlo_path)
    document = module.hlo_document
    assert document is not None
    second = document.line_count - hlo_path.read_text()[split + 2:].count("\n") - 1
    assert document.scan(second).kind == "continuation"
    assert glance.line_document(second, document.source) is None


TABLE_ROLES = frozenset(("FRAME_DEF", "FRAME_USE", "LOCATION_DEF", "LOCATION_USE", "FILE_NAME_DEF", "FILE_NAME_USE",
                         "FUNCTION_NAME_DEF", "FUNCTION_NAME_USE"))


def table_positions(document: Document, count: int) -> list[Position]:
    """Seeded sample of cursor positions on what the tables define (stack frames, file locations, file
    and function names): their rows and the ids that name them."""
    named = [Position(line, ref.start) for line in range(document.line_count)
             for ref in (*document.scan(line).refs, *document.uses_on_line(line)) if ref.role.name in TABLE_ROLES]
    return random.Random(6).sample(named, min(count, len(named)))


@pytest.mark.parametrize("hlo_path", hlo_files(), ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}")
def test_a_glance_hovers_and_jumps_on_the_tables_as_the_whole_module_does(hlo_path: Path) -> None:
    """A stack frame, a file location, a file or function name, on its row or where an id names it in
    any file of the module: the tables above the first computation say all its hover and its jump say."""
    module, glance, companions = companion_glance(hlo_path)
    assert module.hlo_document is not None
    asked = 0
    for document in [module.hlo_document, *companions]:
        for position in table_positions(document, PER_MODULE):
            target = target_at(document, position)
            line = glance.line_document(position.line, document.source)
            where = f"{document.source}:{position.line + 1}"
            if document.scan(position.line).kind == "table_row":  # above the first computation: read as a row
                assert line is not None, where
            elif line is None or (target_at(line, position) != target
                                  and not glance.reads_as_whole(line, position.line)):
                continue  # declined, or an id on a line whose reading the glance guessed wrong (it waits then)
            assert target is not None and target_at(line, position) == target, where
            glanced = glance.module_at(line, position.line, target.kind, target.name)
            jumped = glance.module_about(target.kind, target.name, whole=False)
            assert glanced is not None and jumped is not None, where
            assert hover(glanced, target) == hover(module, target), where
            assert definition(jumped, target) == definition(module, target) != [], where
            asked += 1
    assert asked > 0 or not table_positions(module.hlo_document, 1)


def allocation_positions(document: Document, count: int) -> list[Position]:
    """Seeded sample of cursor positions on allocations' headers (on their `allocation N`)."""
    headers = [Position(line, document.line(line).index("allocation") + 1) for line in range(document.line_count)
               if document.scan(line).kind == "allocation"]
    return random.Random(8).sample(headers, min(count, len(headers)))


@pytest.mark.parametrize("hlo_path", companion_hlo_files(),
                         ids=lambda path: f"{path.parent.parent.name}/{path.parent.name}")
def test_a_glance_hovers_an_allocation_as_the_whole_module_does(hlo_path: Path) -> None:
    """The lines from an allocation's header to the next one's hold all its hover says."""
    asked, answered = glanced_hovers_alike(hlo_path, allocation_positions, "allocation")
    # no allocation of these dumps is longer than a glance reads; one outside the default space waits for
    # the memory report's name of its space
    module = whole_module(hlo_path)
    outside_default = sum(1 for allocation in module.buffer_assignment.allocations if allocation.color) \
        if module.buffer_assignment is not None else 0
    assert asked - outside_default <= answered <= asked


def test_an_allocation_longer_than_a_glance_reads_is_declined(monkeypatch: pytest.MonkeyPatch) -> None:
    module, glance, _ = companion_glance(f"{SPLIT_MLP}.txt")
    document = module.documents[FileKind.BUFFER_ASSIGNMENT]
    header = next(line for line in range(document.line_count) if document.scan(line).kind == "allocation"
                  and document.scan(line + 2).kind == "value")
    line = glance.line_document(header, document.source)
    assert line is not None
    monkeypatch.setattr("hlo_lsp.model.glance.buffers_text.RESYNC_LINES", 2)
    assert glance.allocation_module(line, header) is None
    monkeypatch.setattr("hlo_lsp.model.glance.buffers_text.RESYNC_LINES", 50)
    assert glance.allocation_module(line, header) is not None


def _allocations_of_ynn_fusion(tmp_path: Path) -> tuple[Path, Path, list[str], int, int]:
    """A copy of the split MLP module: its stem, its buffer assignment's path and lines, the line of
    ynn_fusion.1's value and that of its allocation's header."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    allocations = Path(f"{stem}-buffer-assignment.txt")
    lines = allocations.read_text().split("\n")
    value = next(number for number, text in enumerate(lines) if " ynn_fusion.1 " in text)
    header = max(number for number in range(value) if lines[number].startswith("allocation "))
    return stem, allocations, lines, value, header


def test_an_allocation_numbered_twice_is_declined(tmp_path: Path) -> None:
    """Which of the two a hover means, the whole module says (its first); a glance reads only one."""
    stem, allocations, lines, value, header = _allocations_of_ynn_fusion(tmp_path)
    allocations.write_text("\n".join(lines[: header + 1] + lines[header:]))  # the header printed twice
    module, glance, _ = companion_glance(f"{stem}.txt")
    document = module.documents[FileKind.BUFFER_ASSIGNMENT]
    line = glance.line_document(header + 1, document.source)
    assert line is not None and line.scan(header + 1).kind == "allocation"
    assert glance.allocation_module(line, header + 1) is None
    assert glance.instruction_module("ynn_fusion.1") is None
    assert glance.instruction_module("ynn_fusion.1", memory=False) is not None


def test_an_allocation_numbered_with_a_leading_zero_is_one_numbered_twice(tmp_path: Path) -> None:
    """`allocation 0` and `allocation 00` are one number to the whole module, which means the first."""
    stem, allocations, lines, value, header = _allocations_of_ynn_fusion(tmp_path)
    first = next(text for text in lines if text.startswith("allocation "))
    number = first.split()[1].rstrip(":")
    lines[header] = f"allocation 0{number}:" + lines[header].split(":", 1)[1]
    allocations.write_text("\n".join(lines))
    module, glance, _ = companion_glance(f"{stem}.txt")
    document = module.documents[FileKind.BUFFER_ASSIGNMENT]
    line = glance.line_document(header, document.source)
    assert line is not None and line.scan(header).kind == "allocation"
    assert glance.allocation_module(line, header) is None
    assert glance.instruction_module("ynn_fusion.1") is None


def test_a_value_under_an_allocation_header_after_a_tab_is_that_allocations(tmp_path: Path) -> None:
    """The scanner reads `\tallocation 3: ...` as a header (fuzz mutant #718674); the glance looked for
    headers at the start of a line and gave the value to the allocation above."""
    stem, allocations, lines, value, header = _allocations_of_ynn_fusion(tmp_path)
    assert any(text.startswith("allocation ") for text in lines[:header])  # an allocation above it
    lines[header] = "\t" + lines[header]
    allocations.write_text("\n".join(lines))
    module, glance, _ = companion_glance(f"{stem}.txt")
    document = module.documents[FileKind.BUFFER_ASSIGNMENT]
    position = Position(value, lines[value].index("ynn_fusion.1") + 1)
    target = target_at(document, position)
    line = glance.line_document(value, document.source)
    assert target is not None and line is not None
    glanced = glance.module_at(line, value, target.kind, target.name)
    assert glanced is not None
    assert hover(glanced, target) == hover(module, target)


def test_a_value_id_printed_twice_is_declined(tmp_path: Path) -> None:
    """Fuzz mutant #893244: two values of the allocations print the same id; the whole module takes the
    last, a glance at the first answered for its own."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    allocations = Path(f"{stem}-buffer-assignment.txt")
    lines = allocations.read_text().split("\n")
    values = [number for number, text in enumerate(lines) if text.startswith(" value: <")]
    first, last = values[0], values[-1]
    last_id = lines[last].split("<")[1].split()[0]
    lines[first] = lines[first].replace(lines[first].split("<")[1].split()[0], last_id, 1)
    allocations.write_text("\n".join(lines))
    module, glance, _ = companion_glance(f"{stem}.txt")
    document = module.documents[FileKind.BUFFER_ASSIGNMENT]
    for number in (first, last):
        line = glance.line_document(number, document.source)
        assert line is not None
        assert glance.value_module(line, number, last_id) is None


# ---- a glance carried past an edit -------------------------------------------------------------------

EDITED_DUMPS = [DATA / "jax-0.10.2" / "mlp3" / "module_0000.jit_mlp.cpu_after_optimizations.txt",
                OTHER.with_name(OTHER.name + ".txt"),
                DATA / "jax-0.10.2" / "pair_mlp_wide" / "module_0000.jit__lambda.cpu_after_optimizations.txt",
                DATA / "producers" / "torch-xla-2.9.0" / "mlp_hlo_debug"
                / "module_0003.SyncTensorsGraph.175.cpu_after_optimizations.txt"]
# What a user changes on one line: a letter of an op_name, a stack frame's id, a digit of a constant.
_OP_NAME_LETTER = re.compile(r'op_name="[^"]*?([A-Za-z])"')
_FRAME_ID = re.compile(r"stack_frame_id=([0-9]+)")
_CONSTANT_DIGIT = re.compile(r"constant\(-?([0-9])")
# Lazies of the HLO text and of the glance that read its whole text (a carried one must be what a fresh one reads).
_HLO_READS = ("head", "has_cross_line_forms", "has_instructions_outside_computations")


def user_edit(rng: random.Random, text: str) -> tuple[Range, str] | None:
    """One edit of the kinds a user makes, on a random line that has one (None: the text has none of that kind)."""
    form = rng.choice((_OP_NAME_LETTER, _FRAME_ID, _CONSTANT_DIGIT))
    found = list(form.finditer(text))
    if not found:
        return None
    match = rng.choice(found)
    line = text.count("\n", 0, match.start(1))
    column = match.start(1) - text.rfind("\n", 0, match.start(1)) - 1
    old = match.group(1)
    if form is _FRAME_ID:  # another frame the module prints, or one it does not
        new = rng.choice(sorted({other.group(1) for other in found} - {old}) or [str(int(old) + 1000)])
    else:
        new = ("xy" if form is _OP_NAME_LETTER else "19")[old in "x1"]
    return Range.on_line(line, column, column + len(old)), new


def edited_glances(hlo_path: Path, edit: tuple[Range, str], glance: ModuleGlance,
                   documents: dict[FileKind, Document]) -> tuple[ModuleGlance | None, ModuleGlance, Document]:
    """(the glance carried past `edit`, a fresh glance at the edited text, the edited HLO document)."""
    edited = documents[FileKind.HLO_MODULE].apply_edit(*edit)
    carried = glance.after_edit(documents[FileKind.HLO_MODULE], edited, edit[0])
    text = edited.unscanned_text()
    assert text is not None
    fresh_hlo = Document(text, FileKind.HLO_MODULE, edited.source)
    return carried, ModuleGlance.of(glance.stem, {**documents, FileKind.HLO_MODULE: fresh_hlo}), edited


def assert_reads_as_fresh(carried: ModuleGlance, fresh: ModuleGlance) -> None:
    """What the carried glance kept of its reads of the whole text is what the fresh one reads."""
    kept_hlo, fresh_hlo = carried._hlo.__dict__, fresh._hlo
    for name in _HLO_READS:
        if name in kept_hlo:
            assert kept_hlo[name] == getattr(fresh_hlo, name), name
    if "_paired" in carried.__dict__:
        assert carried.__dict__["_paired"] == fresh._paired


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Indexes of many blocks in a small text, as at 40 MB: an edit moves the blocks after it."""
    monkeypatch.setattr(block_names, "_INDEX_BLOCK", 2048)
    monkeypatch.setattr(text_search, "_LINE_SAMPLE", 256)


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("hlo_path", EDITED_DUMPS, ids=lambda path: path.parent.name)
def test_a_glance_carried_past_one_line_edits_answers_as_a_fresh_glance(hlo_path: Path) -> None:
    """After each of a user's one-line edits, the glance carried past it hovers and jumps at instructions
    (those after the edit among them) as a fresh glance at the edited text does, and scans no whole text."""
    documents = fresh_documents(hlo_path)
    glance = ModuleGlance.of(module_stem(str(hlo_path)), documents)
    assert glance is not None
    rng = random.Random(hlo_path.name)
    for position in instruction_positions(whole_module(hlo_path), 6):
        glanced_hover(glance, position)
    glance.read_indexes()  # (what a second question reads)
    for _ in range(6):
        text = documents[FileKind.HLO_MODULE].unscanned_text()
        assert text is not None
        edit = user_edit(rng, text)
        if edit is None:
            continue
        carried, fresh, edited = edited_glances(hlo_path, edit, glance, documents)
        assert carried is not None
        assert carried._hlo.__dict__["_names"]._blocks is not None  # the index read before the edit
        edited_module = ModuleDump(glance.stem, {**documents, FileKind.HLO_MODULE: Document(edited.text,
                                                                                            FileKind.HLO_MODULE)})
        positions = instruction_positions(edited_module, 8)
        positions += [position for position in instruction_positions(edited_module, 60)
                      if position.line >= edit[0].start.line][:8]
        for position in positions:
            assert glanced_hover(carried, position) == glanced_hover(fresh, position), (hlo_path.name, position)
            target = glanced_hover(fresh, position)[0]
            if target is not None:
                jumped = (carried.instruction_module(target.name, memory=False),
                          fresh.instruction_module(target.name, memory=False))
                assert (jumped[0] is None) == (jumped[1] is None)
                if jumped[0] is not None:
                    assert definition(jumped[0], target) == definition(jumped[1], target)  # type: ignore[arg-type]
        assert_reads_as_fresh(carried, fresh)
        assert edited.unscanned_text() is not None  # nothing scanned the edited text
        glance, documents = carried, {**documents, FileKind.HLO_MODULE: edited}


# Edits that change what a whole-text read finds: a name defined, a table's header, a block comment left
# open, a lone ROOT, a line made unindented, a header's line; (a text on the line or the line below it, the
# text replaced, what replaces it).
_CHANGING_EDITS = [
    ("%mul.19 = ", "%mul.19", "%mul.91"),
    ("%mul.19 = ", "  %mul.19", "%mul.19"),
    ("%mul.19 = ", 'op_name="', 'op_name="/*'),
    ("%mul.19 = ", "  %mul.19", "  ROOT//"),
    ("%region_8.10 (", "%region_8.10", "  %region_8.10"),
    ("%region_8.10 (", "", "FileNames\n"),
    ("%region_8.10 (", "", "x\n"),
    ("ROOT %add.23 = ", "ROOT ", ""),
]


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("anchor_old_new", _CHANGING_EDITS, ids=[new for _, _, new in _CHANGING_EDITS])
def test_a_glance_carried_past_an_edit_that_changes_a_whole_text_read_reads_it_again(
        anchor_old_new: tuple[str, str, str]) -> None:
    anchor, old, new = anchor_old_new
    documents = fresh_documents(OTHER.with_name(OTHER.name + ".txt"))
    hlo_path = documents[FileKind.HLO_MODULE].source
    glance = ModuleGlance.of(module_stem(hlo_path), documents)
    assert glance is not None
    module = whole_module(hlo_path)
    for position in instruction_positions(module, 6):
        glanced_hover(glance, position)
    for name in _HLO_READS:
        getattr(glance._hlo, name)
    assert glance._paired is True
    text = documents[FileKind.HLO_MODULE].text
    line = next(number for number, line_text in enumerate(text.split("\n")) if anchor in line_text)
    if new.endswith("\n"):  # on the blank line above
        line, new = line - 1, new[:-1]
    column = text.split("\n")[line].index(old)
    carried, fresh, edited = edited_glances(Path(hlo_path), (Range.on_line(line, column, column + len(old)), new),
                                           glance, documents)
    assert carried is not None
    assert_reads_as_fresh(carried, fresh)
    edited_module = ModuleDump(glance.stem, {**documents, FileKind.HLO_MODULE: Document(edited.text,
                                                                                        FileKind.HLO_MODULE)})
    for position in instruction_positions(edited_module, 40):
        assert glanced_hover(carried, position) == glanced_hover(fresh, position), position


@pytest.mark.parametrize(("old", "new", "kept"), [('op_name="', 'op_name="x', True), ("%mul.19", "%mul.91", False)])
def test_the_pairing_vote_is_carried_past_an_edit_that_leaves_the_names_defined(old: str, new: str, kept: bool) -> None:
    """The vote counts the schedule's names the HLO text defines: an edit of another part of a line keeps it, one
    of a name defined has it counted again."""
    documents = fresh_documents(OTHER.with_name(OTHER.name + ".txt"))
    glance = ModuleGlance.of(module_stem(documents[FileKind.HLO_MODULE].source), documents)
    assert glance is not None and glance._paired is True
    _ = glance._hlo.has_instructions_outside_computations, glance._hlo.head
    text = documents[FileKind.HLO_MODULE].text
    line = next(number for number, line_text in enumerate(text.split("\n")) if "%mul.19 = " in line_text)
    column = text.split("\n")[line].index(old)
    carried, fresh, _ = edited_glances(Path(documents[FileKind.HLO_MODULE].source),
                                       (Range.on_line(line, column, column + len(old)), new), glance, documents)
    assert carried is not None
    assert ("_paired" in carried.__dict__) is kept
    assert carried._paired is fresh._paired is True


def test_an_edit_over_lines_is_not_carried() -> None:
    documents = fresh_documents(SPLIT_MLP.with_name(SPLIT_MLP.name + ".txt"))
    glance = ModuleGlance.of(module_stem(documents[FileKind.HLO_MODULE].source), documents)
    assert glance is not None
    hlo = documents[FileKind.HLO_MODULE]
    for edit, new in ((Range(Position(20, 0), Position(21, 0)), ""), (Range.on_line(20, 0, 0), "\n")):
        assert glance.after_edit(hlo, hlo.apply_edit(edit, new), edit) is None
    other = Document(hlo.text, FileKind.HLO_MODULE, hlo.source)  # not the glance's document
    assert glance.after_edit(other, other.apply_edit(Range.on_line(20, 0, 0), "x"), Range.on_line(20, 0, 0)) is None


def _indexes_read(glance: ModuleGlance) -> bool:
    names = glance._hlo.__dict__.get("_names")
    return names is not None and names._blocks is not None


def test_the_indexes_are_read_in_the_background_once_the_first_questions_are_answered() -> None:
    """An editor asks for a hover and a definition at once as it opens a file: neither reads the indexes, nor does
    anything while they are answered (it would share the interpreter with them); once both are, a thread reads
    them all, and the question after it reads nothing of the whole texts."""
    glance = glance_at(f"{SPLIT_MLP}.txt")
    with glance.question():
        with glance.question():
            assert not glance.indexes.started
        assert not glance.indexes.started
    assert glance.indexes.started
    assert glance.indexes.wait(60)
    assert _indexes_read(glance)
    assert "peak_list" in glance._live_range.__dict__  # type: ignore[union-attr]
    read = dict(glance._hlo.__dict__)
    with glance.question():
        assert glance.instruction_module("ws_2_.1") is not None
    assert glance._hlo.__dict__["_names"] is read["_names"]


def test_a_question_asked_while_the_indexes_are_read_waits_for_them(monkeypatch: pytest.MonkeyPatch) -> None:
    glance = glance_at(f"{SPLIT_MLP}.txt")
    let_go, steps = threading.Event(), []
    read_index = ModuleGlance.read_index

    def held_read(self: ModuleGlance, step: int) -> bool:
        let_go.wait(60)
        steps.append(step)
        return read_index(self, step)

    monkeypatch.setattr(ModuleGlance, "read_index", held_read)
    with glance.question():
        pass
    asked = threading.Thread(target=lambda: glance.question().__enter__())
    asked.start()
    asked.join(0.2)
    assert asked.is_alive() and not steps  # waiting for the reading, which waits to be let go
    let_go.set()
    asked.join(60)
    assert not asked.is_alive() and _indexes_read(glance) and steps == list(range(len(steps)))


def test_a_glance_let_go_reads_no_more_of_its_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    glance = glance_at(f"{SPLIT_MLP}.txt")
    first_step, steps = threading.Event(), []
    read_index = ModuleGlance.read_index

    def slow_read(self: ModuleGlance, step: int) -> bool:
        steps.append(step)
        first_step.wait(60)
        return read_index(self, step)

    monkeypatch.setattr(ModuleGlance, "read_index", slow_read)
    with glance.question():
        pass
    reading = glance.indexes
    del glance  # (the module closed, or built: the store lets its glance go)
    gc.collect()
    first_step.set()
    assert reading.wait(60)
    assert steps == [0]  # the step under way when it was let go, and no other

"""hlo-lsp's verdict on a text and the model it reads, as `hlo-lsp check` reads a `.hlo` file.

    reader = OurReader(folder)
    reading = reader.read(text)  # Reading(rejects, model, internal_errors)

A text is rejected when `hlo-lsp check` gives an ERROR whose code says the text is not HLO as XLA's
parser reads it (`REJECT_CODES`); the memory and buffer-assignment checks do not apply to a lone module.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from hlo_lsp.analysis.checks.opcodes.inline_bodies import body_module, inline_bodies
from hlo_lsp.analysis.checks.opcodes.nested import nested_instructions
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, read_instruction
from hlo_lsp.analysis.run import check_module
from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_module import Computation, HloModule
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import (
    blank_comments,
    continued_instruction_data,
    goes_on_from_above,
    hlo_line_uses,
    item_text,
)
from hlo_lsp.parsing.hlo_scanner.forms import LITERAL_OPCODES
from hlo_lsp.parsing.line_scan import LineScan, Ref, Role, as_one_line
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.workspace.loader import load

# The codes of an ERROR that rejects a text: the grammar and the line scanner, the structure check
# (hlo_structure.py), the per-opcode check (checks/opcodes/), and a file not read as an HLO module at all.
REJECT_CODES = frozenset((
    "syntax", "unbalanced-brackets", "instruction-outside-computation", "unclosed-computation", "unmatched-brace",
    "root-count", "no-entry", "empty-computation", "empty-module",
    "unknown-opcode", "operand-count", "unknown-attribute", "duplicate-attribute", "missing-attribute",
    "attribute-value", "literal-range", "literal-shape", "shape-required", "async-chain", "parameter-number",
    "result-shape", "operand-shape", "layout", "instruction-name", "unknown-file", "binary-file",
))
REJECT_PREFIXES = ("duplicate-", "undefined-")  # duplicate-entry/-computation/-instruction, undefined-*


def rejects(problem: Problem) -> bool:
    code = problem.code
    return problem.severity is Severity.ERROR and (code in REJECT_CODES or code.startswith(REJECT_PREFIXES))


@dataclass(frozen=True)
class Instruction:
    name: str
    opcode: str
    shape: str | None  # as written; None where the text leaves it out
    operands: tuple[str, ...]  # every instruction name used (operands, control-predecessors), in order
    called: tuple[str, ...]  # the computations named (to_apply=, calls=, ...), in order
    root: bool


@dataclass(frozen=True)
class ComputationModel:
    name: str
    entry: bool
    instructions: tuple[Instruction, ...]


Model = tuple[ComputationModel, ...]


@dataclass(frozen=True)
class Reading:
    problems: tuple[Problem, ...]
    model: Model

    @property
    def rejects(self) -> list[Problem]:
        return [problem for problem in self.problems if rejects(problem)]

    @property
    def internal_errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.code == "internal-error"]


class OurReader:
    """Reads texts as `hlo-lsp check folder/module.hlo` does, one file rewritten for each text."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / "module.hlo"

    def read(self, text: str) -> Reading:
        self.path.write_bytes(text.encode("utf-8", errors="replace"))
        loaded = load([str(self.path)])
        problems = list(loaded.problems)
        model: Model = ()
        for module in loaded.modules:
            problems.extend(check_module(module))
            if module.hlo is not None:
                model = model_of(module.hlo, dropped_operands(problems))
        return Reading(tuple(problems), model)


def dropped_operands(problems: list[Problem]) -> frozenset[tuple[int, int]]:
    """Where the operands are that hlo-lsp says XLA's parser drops: (line, UTF-16 column)."""
    return frozenset((p.range.start.line, p.range.start.character) for p in problems if p.code == "dropped-operand")


def model_of(hlo: HloModule, dropped: frozenset[tuple[int, int]] = frozenset(),
             inline_names: Iterator[str] | None = None) -> Model:
    """Each computation as the scanner reads it: its name, ENTRY or not, its instructions (without the
    operands at `dropped`); before each, the computations its instructions write inline, as the
    hlo-opcodes check reads them (XLA builds them first, and names them `_`, `_.1`, ...)."""
    names = inline_names or (f"_.{number}" if number else "_" for number in itertools.count())
    if hlo.lone_instruction is not None:
        return _lone_instruction(hlo, hlo.lone_instruction, names, dropped)
    found: list[ComputationModel] = []
    for computation in hlo.all_computations():
        instructions = _instructions(hlo, computation, names, found, dropped)
        found.append(ComputationModel(computation.name, computation.is_entry, instructions))
    return tuple(found)


def _inline_computations(hlo: HloModule, line: int, name: str, scan: LineScan, names: Iterator[str],
                         found: list[ComputationModel]) -> tuple[str, ...]:
    """The names given to the computations the instruction writes inline, each added to `found` after those
    written inline in it."""
    text = hlo.instruction_text(line, name)
    read = read_instruction(text, continued_instruction_data(text, scan.data))
    called = []
    for body in inline_bodies(read) if read is not None else ():
        document = Document(body_module(text, body).text, FileKind.HLO_MODULE, "inline.hlo")
        inner = model_of(HloModule(document), inline_names=names)
        found.extend(inner[:-1])
        called.append(next(names))
        found.append(replace(inner[-1], name=called[-1]))
    return tuple(called)


def _instructions(hlo: HloModule, computation: Computation, names: Iterator[str],
                  found_computations: list[ComputationModel],
                  dropped: frozenset[tuple[int, int]]) -> tuple[Instruction, ...]:
    return tuple(_instruction(hlo, line, start, scan, names, found_computations, dropped)
                 for line, start, scan in hlo.instruction_items(computation))


def _instruction(hlo: HloModule, line: int, start: int, scan: LineScan, names: Iterator[str],
                 found_computations: list[ComputationModel], dropped: frozenset[tuple[int, int]]) -> Instruction:
    name, shape_start, opcode_start, opcode, root = scan.data
    shape = hlo.written_shape(line, scan) or None
    if not opcode:  # `v =` with its shape and opcode on the lines below: read from its whole text
        whole = as_one_line(blank_comments(hlo.instruction_text(line, name))[0])
        _, shape_start, opcode_start, opcode, _ = continued_instruction_data(whole, scan.data)
        shape = whole[shape_start:opcode_start].strip() or None
    uses = _uses(hlo, line, start, scan)
    operands = tuple(ref.name for at, ref in uses
                     if ref.role is Role.INSTRUCTION_USE and (at, ref.start) not in dropped)
    called = tuple(ref.name for _, ref in uses if ref.role is Role.COMPUTATION_USE)
    if "{" in hlo.instruction_text(line, name):
        called += _inline_computations(hlo, line, name, scan, names, found_computations)
    return Instruction(name, opcode, shape, operands, called, bool(root))


def _lone_instruction(hlo: HloModule, line: int, names: Iterator[str], dropped: frozenset[tuple[int, int]]) -> Model:
    """A text of one instruction as XLA builds it: a computation `_` of a parameter for each operand written
    with its shape, then the instruction, its root."""
    inline: list[ComputationModel] = []
    scan = hlo.document.scan(line)
    instruction = _instruction(hlo, line, 0, scan, names, inline, dropped)
    text = as_one_line(blank_comments(hlo.instruction_text(line))[0])
    read = read_instruction(text, continued_instruction_data(text, scan.data))
    made = list(dict.fromkeys(_parameters_made(read))) if read is not None else list(instruction.operands)
    parameters = tuple(Instruction(name, "parameter", None, (), (), False) for name in made)
    return (*inline, ComputationModel("_", True, (*parameters, replace(instruction, root=True))))


def _parameters_made(read: InstructionParts) -> Iterator[str]:
    """The names XLA's parser makes a parameter of, in the order it reads them: each operand written with its
    shape (`f32[] y`), and, as it first tries a nested instruction written with its shape (`f32[] abs(...)`) as
    such an operand, that instruction's opcode too; then the nested instruction's own operands."""
    nested = {parts.operands_span[0]: parts for parts in nested_instructions(read)}
    for start, end in read.operands if read.opcode not in LITERAL_OPCODES else ():
        inner = next((parts for open_paren, parts in nested.items() if start <= open_paren < end), None)
        if inner is None:
            words = read.text[start:end].split()
            if len(words) > 1:  # a shape, then the name
                yield words[-1].removeprefix("%")
            continue
        if inner.shape:
            yield inner.opcode
        yield from _parameters_made(inner)


def _uses(hlo: HloModule, line: int, start: int, scan: LineScan) -> list[tuple[int, Ref]]:
    """(line, use) of each name the instruction `scan` uses: on its line (its own item's, on a line of several
    items), and on the lines that go on with it below (when it is its line's last item)."""
    document = hlo.document
    line_scan = document.scan(line)
    if line_scan.kind != "items":
        own = [(line, ref) for ref in document.uses_on_line(line)]
    elif line_scan.data[0][1].kind == "continuation" and start == 0:
        return []  # the end of the instruction above: its uses are that instruction's
    else:
        own = [(line, ref) for ref in hlo_line_uses(item_text(document.line(line), line_scan, start), scan)]
        if start != line_scan.data[-1][0]:
            return own
    return own + _uses_below(hlo, line)


def _uses_below(hlo: HloModule, line: int) -> list[tuple[int, Ref]]:
    """(line, use) on the lines that go on with the item that ends `line`: whole lines, then the first item of
    a line that ends it and starts others."""
    document, found = hlo.document, []
    for number in range(line + 1, document.line_count):
        below = document.scan(number)
        if below.kind == "continuation":
            found += [(number, ref) for ref in document.uses_on_line(number)]
            continue
        if goes_on_from_above(below):
            uses = hlo_line_uses(item_text(document.line(number), below, 0), below.data[0][1])
            found += [(number, ref) for ref in uses]
        break
    return found

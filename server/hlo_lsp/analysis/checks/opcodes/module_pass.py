"""The pass of the hlo-opcodes check over a module, chunk by chunk.

A chunk's findings are kept with the chunk, for the structure they were read in: an edit that keeps
the structure re-reads the chunks it replaced only. The pass over all chunks (and the parameters of
computations no chunk holds whole) is kept per document: an edit that moves no line starts from the
last one. What depends on other lines' text (async chains, channels) is read again on every run.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

from hlo_lsp.analysis.checks import hlo_structure
from hlo_lsp.analysis.checks.opcodes.async_chains import async_problems
from hlo_lsp.analysis.checks.opcodes.channels import channel_problems
from hlo_lsp.analysis.checks.opcodes.cross_line import cross_line_findings, reshape_problem
from hlo_lsp.analysis.checks.opcodes.declared_operands import declared_operand_findings
from hlo_lsp.analysis.checks.opcodes.dropped_operands import OPCODE_OPERANDS, without_dropped_operands
from hlo_lsp.analysis.checks.opcodes.findings import problems
from hlo_lsp.analysis.checks.opcodes.inline_bodies import body_module, inline_bodies, is_body_problem, moved_down
from hlo_lsp.analysis.checks.opcodes.other_lines import instructions_on
from hlo_lsp.analysis.checks.opcodes.parameters import ORDERED, number_span, numbered_in_order, numbering_problems
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, read_instruction
from hlo_lsp.analysis.checks.opcodes.signatures import signature_problems
from hlo_lsp.analysis.checks.opcodes.text_keys import line_keys
from hlo_lsp.analysis.checks.opcodes.verdicts import EVALUATE, HEADER, VERDICTS, Verdict
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.analysis.edits import LastRuns, spliced
from hlo_lsp.analysis.syntax import syntax_problems
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.document import Chunk, EditedFrom
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import continued_instruction_data, item_text
from hlo_lsp.parsing.line_scan import LineScan
from hlo_lsp.problems import Problem

_PER_RUN = frozenset(("async", "channel", "shapeless"))  # read again on every run: they depend on other lines' text


@dataclass(slots=True)
class _ChunkFacts:
    problems: list[Problem] = field(default_factory=list)
    # The parameters of the computations the chunk does not hold whole, by their header line.
    open_parameters: dict[int, list[str]] = field(default_factory=dict)
    per_run: list[int] = field(default_factory=list)  # lines of async ops, send-done and recv-done


@dataclass(slots=True)
class _Pass:
    """What a pass found, kept to derive the next version's after an edit that moved no line."""

    facts: list[_ChunkFacts]  # per chunk
    chunk_problems: list[Problem]
    open_problems: list[Problem]  # of the computations no chunk holds whole
    per_run: list[int]


_last_passes: LastRuns[_Pass] = LastRuns("opcode pass")


def check(context: CheckContext) -> Iterator[Problem]:
    hlo = context.hlo
    if hlo is None:
        return
    last = _last_passes.after_edit(hlo.document, hlo.structure_id)
    done = _after_edit(hlo, *last) if last is not None else None
    if done is None:
        done = yield from _whole_pass(hlo)
    else:
        yield from done.chunk_problems
    _last_passes.remember(hlo.document, hlo.structure_id, done)
    yield from done.open_problems
    yield from _per_run_problems(hlo, done.per_run)
    yield from signature_problems(hlo)
    if hlo.lone_instruction is not None:  # read as XLA reads a text of one instruction: a module of it
        yield from _lone_instruction_problems(hlo, hlo.lone_instruction)


def _lone_instruction_problems(hlo: HloModule, line: int) -> list[Problem]:
    """The findings of an instruction the pass leaves out, as one outside any computation."""
    facts = _ChunkFacts()
    _evaluate(hlo, line, hlo.instruction_scan(line).data, facts, hlo.instruction_text(line), whole=True)
    return facts.problems


def _whole_pass(hlo: HloModule) -> Generator[Problem, None, _Pass]:
    """Every chunk's findings, yielded as they come (a garbled module's run stops at the problem limit)."""
    done = _Pass([], [], [], [])
    open_parameters: dict[int, list[str]] = {}
    for start, chunk in hlo.document.chunks_with_starts():
        let_questions_first()
        facts = _kept_facts(hlo, start, chunk)
        done.facts.append(facts)
        done.chunk_problems += facts.problems
        yield from facts.problems
        for header, numbers in facts.open_parameters.items():
            open_parameters.setdefault(header, []).extend(numbers)
        done.per_run += facts.per_run
    for header, numbers in open_parameters.items():
        if not numbered_in_order(numbers):
            done.open_problems += numbering_problems(hlo, header)
    return done


def _after_edit(hlo: HloModule, edit: EditedFrom, before: _Pass) -> _Pass | None:
    """The pass of an edited document from its previous version's, when the edit moved no line and
    left every computation's parameter numbers as they were (else None: a whole pass). With the
    structure, the numbers and the lines of the parameters the same, so are their problems."""
    document = hlo.document
    first, end = edit.first, edit.new_end
    if end == first or end != edit.old_end or document.chunk_start(end) != edit.previous.chunk_start(end):
        return None
    while first > 0 and isinstance(document.chunks[first - 1].end_state, tuple):
        first -= 1  # an instruction continued into the edited chunks is read again with them
    spans = document.chunks_with_starts()[first:end]
    facts = [_kept_facts(hlo, start, chunk) for start, chunk in spans]
    if any(new.open_parameters != old.open_parameters for new, old in zip(facts, before.facts[first:end])):
        return None
    lines = range(spans[0][0], document.chunk_start(end))
    return _Pass(before.facts[:first] + facts + before.facts[end:],
                 spliced(document, edit, before.chunk_problems, first, [p for new in facts for p in new.problems]),
                 before.open_problems,
                 [line for line in before.per_run if line < lines.start]
                 + [line for new in facts for line in new.per_run]
                 + [line for line in before.per_run if line >= lines.stop])


_DERIVED_KEY: DerivedKey[tuple[object, int, _ChunkFacts]] = DerivedKey("opcode facts")  # a chunk's, for a structure


def _kept_facts(hlo: HloModule, start: int, chunk: Chunk) -> _ChunkFacts:
    kept = chunk.derived.get(_DERIVED_KEY)
    if kept is not None and kept[0] is hlo.structure_id and kept[1] == start:
        return kept[2]
    facts = _chunk_facts(hlo, start, chunk)
    if not isinstance(chunk.end_state, tuple):  # an instruction continued in the next chunk depends on it
        chunk.derived.put(_DERIVED_KEY, (hlo.structure_id, start, facts))
    return facts


def _chunk_facts(hlo: HloModule, start: int, chunk: Chunk) -> _ChunkFacts:
    """The chunk's findings: its lines' texts are judged once (digits zeroed, all lines at once), and
    only the lines whose text asks for more (found in C) are looked at. The loop is inlined: a 40 MB
    module has 100,000 parameters in 40,000 computations."""
    lines = chunk.lines
    keys = line_keys(lines)
    VERDICTS.learn(chunk, keys)
    facts = _ChunkFacts()
    opened = hlo.computation_at(start)
    header, numbers = (opened.line if opened is not None else -1), []
    spans, headers, verdicts = VERDICTS.parameter_spans, VERDICTS.header_keys, VERDICTS.verdicts
    for local in itertools.compress(itertools.count(), map(VERDICTS.active.__contains__, keys)):
        if chunk.scans[local].problem is not None:
            continue  # a line out of place, which teaches the verdicts nothing: its key may be known from elsewhere
        key, kind = keys[local], chunk.scans[local].kind
        span = spans.get(key)
        if span is not None and kind == "instruction":
            numbers.append(lines[local][span])
        elif kind == "computation" or (key in headers and kind not in _NO_HEADER_KINDS):
            # (or a header whose text is not known as one: `*/e {`)
            header, numbers = _next_computation(hlo, facts, start, header, numbers, start + local)
        elif kind == "instruction":  # the same text may read otherwise elsewhere: `a // c` heads a computation
            verdict = verdicts.get(key, EVALUATE)  # at the top, and is an instruction's name in one
            number = _apply(hlo, start + local, lines[local].rstrip("\r"), chunk.scans[local].data,
                            EVALUATE if verdict == HEADER else verdict, facts)
            if number is not None:
                numbers.append(number)
        elif chunk.scans[local].kind == "items":
            header, numbers = _evaluate_items(hlo, start, start + local, chunk.scans[local], facts, header, numbers)
    if numbers:
        _close_computation(hlo, facts, header, numbers, True)
    return facts


# (a header's text may be a line of an item: in a string over lines, `"a` / `c {` / `b"`)
_NO_HEADER_KINDS = frozenset(("instruction", "items", "continuation"))


def _next_computation(hlo: HloModule, facts: _ChunkFacts, start: int, header: int, numbers: list[str],
                      next_header: int) -> tuple[int, list[str]]:
    """The computation before the header on `next_header` (in the chunk from `start`) ends: its
    parameters are checked (unless numbered in order, the common case); the next one's start."""
    if numbers and (header < start or numbers != ORDERED.get(len(numbers))):
        _close_computation(hlo, facts, header, numbers, header < start)
    return next_header, []


def _close_computation(hlo: HloModule, facts: _ChunkFacts, header: int, numbers: list[str], left_open: bool) -> None:
    """A computation's parameters are checked now when the chunk holds it whole, else with the run."""
    if left_open:
        facts.open_parameters[header] = numbers
    elif not numbered_in_order(numbers):
        facts.problems.extend(numbering_problems(hlo, header))


def _apply(hlo: HloModule, line: int, text: str, data: tuple[object, ...], verdict: Verdict,
           facts: _ChunkFacts) -> str | None:
    """Does what the line's verdict asks; returns the number of a parameter read on the way."""
    if "evaluate" in verdict:
        return _evaluate(hlo, line, data, facts, text)
    if any(action in _PER_RUN for action in verdict):
        facts.per_run.append(line)
    if "inline" in verdict:
        read = read_instruction(text, data)
        facts.problems.extend(_inline_problems(hlo, line, text, read) if read else [])
    if "reshape" in verdict:
        facts.problems.extend(problems(hlo, line, text, list(filter(None, [reshape_problem(hlo, line, text, data)]))))
    if "cross" in verdict or "broadcast" in verdict:
        read = read_instruction(text, data)
        facts.problems.extend(problems(hlo, line, text, cross_line_findings(hlo, line, read) if read else []))
    return None


def _evaluate_items(hlo: HloModule, chunk_start: int, line: int, scan: LineScan, facts: _ChunkFacts, header: int,
                    numbers: list[str]) -> tuple[int, list[str]]:
    """Reads each instruction of a line that holds several items, its parameter numbers added to those of
    its computation (`header`, `numbers`); a computation's header among them starts the next (`} ENTRY e {`).
    Returns the computation open after the line and its numbers."""
    text = hlo.whole_text(line)
    for start, item in scan.data:
        if item.kind == "computation":
            header, numbers = _next_computation(hlo, facts, chunk_start, header, numbers, line)
        elif item.kind == "instruction" and item.problem is None:
            number = _evaluate(hlo, line, item.data, facts, item_text(text, scan, start), whole=True)
            numbers += [number] if number is not None else []
    return header, numbers


def _evaluate(hlo: HloModule, line: int, data: tuple[object, ...], facts: _ChunkFacts, text: str,
              whole: bool = False) -> str | None:
    """Reads the line's own instruction (its findings may differ from its key's other lines'); `whole`:
    `text` is all of it already (an item of a line that holds several)."""
    if whole:
        data = continued_instruction_data(text, data)
    elif isinstance(hlo.document.scan(line).end_state, tuple):  # continued on the next lines, its opcode too
        text = hlo.instruction_text(line)
        data = continued_instruction_data(text, data)
    judged = VERDICTS.judgement(text, data)
    if judged is not None and OPCODE_OPERANDS in judged[1]:
        text = without_dropped_operands(hlo, line, text, data)
        judged = VERDICTS.judgement(text, data)
    if judged is None:
        return None
    findings, actions = judged
    if whole and actions & _PER_RUN and line not in facts.per_run[-1:]:
        facts.per_run.append(line)  # the run reads the line's items again, each by its name
    _apply(hlo, line, text, data, tuple(actions - {"parameter"} - (_PER_RUN if whole else set())), facts)
    facts.problems.extend(problems(hlo, line, text, findings))
    if "parameter" not in actions:
        return None
    number_start, number_end = number_span(text, data)
    return text[number_start:number_end]


def _inline_problems(hlo: HloModule, line: int, text: str, read: InstructionParts) -> list[Problem]:
    """The problems of each computation the instruction on `line` writes inline, checked as a module (a
    body's own inline computations too, as deep as any hand-written module nests them)."""
    found: list[Problem] = []
    if getattr(_nesting, "depth", 0) >= _DEEPEST_INLINE:
        return found
    _nesting.depth = getattr(_nesting, "depth", 0) + 1
    try:
        for body in map(functools.partial(body_module, text), inline_bodies(read)):
            module = body.dump(hlo.document.source)
            context = CheckContext(module)
            checked = [*syntax_problems(module.documents[FileKind.HLO_MODULE]), *hlo_structure.check(context),
                       *check(context)]
            found += [moved_down(problem, body, line) for problem in checked if is_body_problem(problem.code)]
    finally:
        _nesting.depth -= 1
    return found


_nesting = threading.local()  # how deep in computations written inline the check is, in this thread
_DEEPEST_INLINE = 8  # each level reads its instruction's whole text again


def _per_run_problems(hlo: HloModule, lines: list[int]) -> Iterator[Problem]:
    reads: dict[tuple[int, str], InstructionParts] = {}
    for line in lines:
        for name, text, data in instructions_on(hlo, line):
            read = read_instruction(text, continued_instruction_data(text, data))
            if read is not None:
                reads[line, name] = read
    for (line, name), finding in async_problems(hlo, reads):
        yield from problems(hlo, line, reads[line, name].text, [finding])
    for (line, name), read in reads.items():
        if read.opcode in ("send-done", "recv-done"):
            yield from problems(hlo, line, read.text, channel_problems(hlo, line, read))
        if not read.shape:
            for user_line, text, finding in declared_operand_findings(hlo, line, name):
                yield from problems(hlo, user_line, text, [finding])

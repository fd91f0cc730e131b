"""HLO module structure: ROOT and ENTRY, closed computations, and names that resolve nowhere."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from hlo_lsp.analysis.checks.undefined_names import undefined_name_problems
from hlo_lsp.analysis.context import CheckContext, StructureMemo
from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_module import Computation, HloModule
from hlo_lsp.parsing.hlo_scanner import ATTRIBUTES, blank_comments, in_block_comment, without_comments
from hlo_lsp.parsing.line_scan import State
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range, python_index


def check(context: CheckContext) -> Iterator[Problem]:
    hlo = context.hlo
    if hlo is None:
        return
    yield from _computation_problems(hlo)
    undefined = undefined_name_problems(hlo)
    yield from undefined if hlo.lone_instruction is None else _as_one_instruction(hlo, undefined)
    yield from _unclosed_comment(hlo)
    yield from _attributes_first(hlo)
    yield from _unfinished_mark(hlo)


def _as_one_instruction(hlo: HloModule, problems: Iterable[Problem]) -> Iterator[Problem]:
    """XLA reads a text of one instruction as a module of it, with a parameter for each operand written with
    its shape (`abs(f32[] y)`): that is defined; an operand without one is not."""
    for problem in problems:
        if problem.code != "undefined-instruction":
            yield problem
            continue
        if not _written_with_shape(hlo, problem.range.start):
            yield replace(problem, message=problem.message + ": a text of one instruction has a parameter only "
                                                             "for an operand written with its shape (`f32[] y`)")


def _written_with_shape(hlo: HloModule, start: Position) -> bool:
    """Whether the operand at `start` has its shape before it (perhaps on a line above, comments between)."""
    first = hlo.lone_instruction
    lines = hlo.whole_text(first).split("\n")[: start.line - first + 1] if first is not None else []
    if not lines:
        return False
    lines[-1] = lines[-1][: python_index(lines[-1], start.character)]
    before = without_comments("\n".join(lines)).rstrip().removesuffix("%").rstrip()
    return before.endswith(("]", "}", ")"))


def _unclosed_comment(hlo: HloModule) -> Iterator[Problem]:
    """A block comment still open at the end of the text: XLA's lexer never finds its `*/`."""
    document = hlo.document
    last = document.line_count - 1
    if last < 0 or not in_block_comment(document.scan(last).end_state):
        return
    opened = last
    while opened > 0 and in_block_comment(document.scan(opened - 1).end_state):
        opened -= 1
    text = document.line(opened)
    column = max(text.find("/*", len(blank_comments(text)[0].rstrip())), 0)  # where the blanking to the end starts
    yield _problem(hlo, Range.on_line(opened, column, column + 2), Severity.ERROR, "syntax",
                   "block comment without its `*/`: it runs to the end of the text")


def _attributes_first(hlo: HloModule) -> Iterator[Problem]:
    """A text that starts with `, key=value`: attributes of no item (XLA's parser expects a name first)."""
    document = hlo.document
    line = 0
    while line < document.line_count and document.scan(line).kind in ("blank", "comment"):
        line += 1
    if line < document.line_count and document.scan(line).data == (ATTRIBUTES,):
        text = document.line(line)
        comma = blank_comments(text)[0].find(",")
        yield _problem(hlo, Range.on_line(line, comma, comma + 1), Severity.ERROR, "syntax",
                       "attributes before any item: the text starts with the module's name (`HloModule m`) "
                       "or a computation")


def _unfinished_mark(hlo: HloModule) -> Iterator[Problem]:
    """A lone `ROOT` or `ENTRY` with nothing after it (comments aside): XLA's parser expects a name."""
    document = hlo.document
    last = document.line_count - 1
    pending = _pending_mark(document.scan(last).end_state) if last >= 0 else None
    if pending is None:
        return
    line = last
    while line > 0 and _pending_mark(document.scan(line - 1).end_state) == pending:
        line -= 1
    text = without_comments(document.line(line))
    keyword = "ROOT" if pending == "root" else "ENTRY"
    column = max(text.find(keyword), 0)
    yield _problem(hlo, Range.on_line(line, column, column + len(keyword)), Severity.ERROR, "syntax",
                   f"`{keyword}` marks no {'instruction' if keyword == 'ROOT' else 'computation'}: "
                   "the text ends after it")


def _pending_mark(state: State) -> str | None:
    """The keyword (`root` or `entry`) a line's end state waits on for the item it marks, else None."""
    if in_block_comment(state):
        state = state[1]
    return state[0] if isinstance(state, tuple) and state[0] in ("root", "entry") else None


# What this check found for a structure: after an edit that keeps the structure (see HloModule.edited),
# only the edited chunk is checked again.
_COMPUTATION_PROBLEMS = StructureMemo("computation problems")


def _computation_problems(hlo: HloModule) -> list[Problem]:
    return _COMPUTATION_PROBLEMS.problems(hlo, _check_computations)


def _brace_taken_by_an_item(hlo: HloModule, computation: Computation) -> int | None:
    """The line of a `}` alone that the computation's last lines read as closing a bracket of an item
    (`metadata={...` above it): the `}` the computation was likely meant to end with."""
    document = hlo.document
    last = max((computation.line, *computation.instruction_lines))
    for line in range(last, min(last + _BRACE_LOOKAHEAD, document.line_count)):
        if document.scan(line).kind == "continuation" and \
                blank_comments(document.line(line))[0].split("//")[0].strip() == "}":
            return line
    return None


_BRACE_LOOKAHEAD = 64  # lines after a computation's last instruction where its `}` is looked for
_LINES_TO_BRACE = 64  # blank and comment lines read between a headless module's first name and its `{`


def _problem(hlo: HloModule, where: Range, severity: Severity, code: str, message: str) -> Problem:
    return Problem(hlo.document.source, where, severity, code, message)


def _check_computations(hlo: HloModule) -> Iterator[Problem]:
    """As XLA's parser: a module without ENTRY takes its last computation, a computation without ROOT
    its last instruction; a module needs a computation, a computation an instruction."""
    entries = [c for c in hlo.all_computations() if c.is_entry]
    if not hlo.all_computations() and hlo.header_line is not None:
        line = hlo.header_line
        yield _problem(hlo, Range.on_line(line, 0, len(hlo.document.line(line))), Severity.ERROR,
                       "empty-module", "the module has no computation")
    elif hlo.header_line is None:
        yield from _headless_problems(hlo)
    for extra in entries[1:]:
        yield _problem(hlo, extra.name_range, Severity.ERROR, "duplicate-entry",
                       f"second ENTRY computation {extra.name} (the first is {entries[0].name})")
    seen: dict[str, int] = {}
    for computation in hlo.all_computations():
        if computation.name in seen:
            yield _problem(hlo, computation.name_range, Severity.ERROR, "duplicate-computation",
                           f"computation {computation.name} is defined again "
                           f"(first on line {seen[computation.name] + 1})")
        seen.setdefault(computation.name, computation.line)
        if computation.end_line is None:
            taken = _brace_taken_by_an_item(hlo, computation)
            why = "" if taken is None else (f": the `}}` on line {taken + 1} closes a bracket left open above it, "
                                            "as XLA reads it")
            yield _problem(hlo, computation.name_range, Severity.ERROR, "unclosed-computation",
                           f"computation {computation.name} has no closing `}}`{why}")
        if len(computation.root_lines) > 1:
            yield _problem(hlo, computation.name_range, Severity.ERROR, "root-count",
                           f"computation {computation.name} has {len(computation.root_lines)} ROOT instructions; "
                           "it may have one (without, its last instruction is its root)")
        if not computation.instruction_lines and computation.end_line is not None:
            yield _problem(hlo, computation.name_range, Severity.ERROR, "empty-computation",
                           f"computation {computation.name} has no instruction")
    yield from _check_duplicate_instructions(hlo)


def _headless_problems(hlo: HloModule) -> Iterator[Problem]:
    """A text without `HloModule`: XLA reads it as a module only when it starts with `ENTRY` or
    `name {`, and as a single instruction otherwise."""
    document = hlo.document
    first = next(((line, scan) for line, scan in document.scans() if scan.kind not in ("blank", "comment")), None)
    if first is None:
        if any(document.line(line).strip() for line in range(document.line_count)):  # else: empty-file
            yield _problem(hlo, Range.on_line(0, 0, 1), Severity.ERROR, "empty-module",
                           "the file holds no HLO module (`HloModule name` and a computation)")
        return
    line, scan = first
    if scan.kind == "table_header":
        yield _problem(hlo, Range.on_line(line, 0, len(document.line(line).rstrip())), Severity.ERROR, "syntax",
                       "stack-frame tables follow a module header: add `HloModule name` above")
        return
    computation = hlo.computation_at(line) if scan.kind == "computation" else None
    if computation is None or computation.is_entry:
        return
    if not _token_after(document, line, computation.name_range.end.character).startswith("{"):
        yield _problem(hlo, computation.name_range, Severity.ERROR, "syntax",
                       "without `HloModule` first, XLA reads a module only when it starts with `ENTRY` or "
                       f"`{computation.name} {{`: add `HloModule name` above")


def _token_after(document: Document, line: int, character: int) -> str:
    """The text after a header's name, from its next token on (on a line below when none follows it on
    its line: XLA's lexer reads lines and comments as spaces)."""
    lines = [document.line(number) for number in range(line, min(line + _LINES_TO_BRACE, document.line_count))]
    return without_comments("\n".join(lines))[character:].lstrip(": \t\r\n")  # (a comment may span lines)


def _check_duplicate_instructions(hlo: HloModule) -> Iterator[Problem]:
    if hlo.names_are_unique:
        return
    seen: dict[str, int] = {}
    current = None
    for computation, line, scan in hlo.instruction_scans():
        if computation is not current:
            seen, current = {}, computation
        ref = scan.refs[0]
        if ref.name in seen:
            yield _problem(hlo, Range.on_line(line, ref.start, ref.end), Severity.ERROR, "duplicate-instruction",
                           f"{ref.name} is defined twice in this computation (first on line {seen[ref.name] + 1})")
        seen.setdefault(ref.name, line)

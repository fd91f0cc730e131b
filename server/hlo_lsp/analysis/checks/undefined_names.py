"""hlo-structure's names that resolve nowhere: every use of an instruction within its computation (XLA's parser
scope), of the rest module-wide; kept per chunk, and derived from the previous version's after an edit."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Set

from hlo_lsp.analysis.checks.opcodes.dropped_operands import spelt_like_opcode
from hlo_lsp.analysis.context import PROBLEM_LIMIT
from hlo_lsp.analysis.edits import LastRuns, spliced
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.document import Chunk
from hlo_lsp.model.hlo_module import Computation, HloModule
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.hlo_scanner import KnownUses, without_comments
from hlo_lsp.parsing.line_scan import LineScan, Ref, Role, new_tuple
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Range, python_index, utf16_column

_DEFINES = {
    Role.INSTRUCTION_USE: (Role.INSTRUCTION_DEF, "instruction"),
    Role.COMPUTATION_USE: (Role.COMPUTATION_DEF, "computation"),
    Role.FRAME_USE: (Role.FRAME_DEF, "stack frame"),
    Role.LOCATION_USE: (Role.LOCATION_DEF, "file location"),
    Role.FILE_NAME_USE: (Role.FILE_NAME_DEF, "file name"),
    Role.FUNCTION_NAME_USE: (Role.FUNCTION_NAME_DEF, "function name"),
}

# A chunk's undefined names: (structure_id, first line, problems)
_DERIVED_KEY: DerivedKey[tuple[object, int, list[Problem]]] = DerivedKey("undefined names")


def undefined_name_problems(hlo: HloModule) -> Iterator[Problem]:
    """Every use resolves: instructions within their computation (XLA's parser scope), the rest module-wide.
    After an edit that kept the structure, from the previous version's problems and the edited chunks'."""
    document = hlo.document
    last = _undefined_names.after_edit(document, hlo.structure_id)
    if last is not None:
        edit, before = last
        spans = document.chunks_with_starts()[edit.first : edit.new_end]
        found = spliced(document, edit, before, edit.first, list(_chunks_undefined_names(hlo, spans)))
    else:
        found = []
        for problem in _chunks_undefined_names(hlo, document.chunks_with_starts()):
            found.append(problem)
            if len(found) > PROBLEM_LIMIT:  # a garbled module: the run stops here, nothing is remembered
                yield from found
                return
    _undefined_names.remember(document, hlo.structure_id, found)
    yield from found


_undefined_names: LastRuns[list[Problem]] = LastRuns("undefined names")


def _chunks_undefined_names(hlo: HloModule, spans: list[tuple[int, Chunk]]) -> Iterator[Problem]:
    defined = hlo.defined_names()
    for start, chunk in spans:
        let_questions_first()
        kept = _kept_undefined_names(hlo, start, chunk)
        if kept is not None:
            yield from kept
            continue
        # a garbled chunk (a 10 MB line of operands) may have millions: the check stops at the limit
        problems = list(itertools.islice(_chunk_undefined_names(hlo, defined, start, chunk), PROBLEM_LIMIT + 1))
        chunk.derived.put(_DERIVED_KEY, (hlo.structure_id, start, problems))
        yield from problems


def _kept_undefined_names(hlo: HloModule, start: int, chunk: Chunk) -> list[Problem] | None:
    """The chunk's problems found before for this structure: its own, or, for a chunk edited line for
    line, those of the chunk it was edited from on its unchanged lines and its changed lines' own."""
    kept = chunk.derived.get(_DERIVED_KEY)
    if kept is not None and kept[0] is hlo.structure_id and kept[1] == start:
        return kept[2]
    before = chunk.before()
    kept = before.derived.get(_DERIVED_KEY) if before is not None else None
    if (before is None or kept is None or kept[0] is not hlo.structure_id or kept[1] != start
            or len(kept[2]) > PROBLEM_LIMIT):  # the chunk's problems were cut short: all read again
        return None
    changed = chunk.changed_lines(before)
    unchanged = set(range(len(chunk.lines))).difference(changed)
    found = [problem for problem in kept[2] if problem.range.start.line - start in unchanged]
    found += _chunk_undefined_names(hlo, hlo.defined_names(), start, chunk, changed)
    problems = sorted(found, key=Problem.sort_key)[: PROBLEM_LIMIT + 1]
    chunk.derived.put(_DERIVED_KEY, (hlo.structure_id, start, problems))
    return problems


def _chunk_undefined_names(hlo: HloModule, defined: dict[Role, Set[str]], start: int,
                           chunk: Chunk, lines: list[int] | None = None) -> Iterator[Problem]:
    """The chunk's uses that resolve nowhere, on its `lines` (local numbers; all by default)."""
    instructions = defined.get(Role.INSTRUCTION_DEF, frozenset())
    scopes = _Scopes(hlo, instructions)
    uses = chunk.uses_in_passing()
    first_definitions = hlo.first_definitions.get
    # The names each other role's table defines (a role without a table names nothing to resolve).
    tables = {role: defined.get(definition[0], frozenset()) for role, definition in _DEFINES.items()}
    scope_line, scope, scope_end = 0, 0, -1
    for local in range(len(uses)) if lines is None else lines:
        refs = uses[local]
        if not isinstance(refs, KnownUses):
            if refs:
                yield from _refs_undefined(hlo, defined, tables, scopes, start + local, chunk.scans[local], refs)
            continue
        if refs.in_signature:
            continue  # a signature's names: XLA's parser reads the signature and throws it away
        # Most lines: an instruction alone on its line, its names read at their places; the checks of
        # `_refs_undefined` inlined (a 40 MB module has 600,000 uses).
        line, text = start + local, chunk.lines[local]
        if not scope_line <= line <= scope_end:
            scope_line, (scope, scope_end) = line, scopes.scope_at(line)
        for role, begin, end in refs.places:
            name = text[begin:end]
            if role is _INSTRUCTION_USE:
                if scope <= first_definitions(name, -1) < line or scopes.has(name, line):
                    continue
            elif role is _COMPUTATION_USE:
                if _computation_before(hlo, name, begin, line, defined):
                    continue
            else:
                table = tables.get(role)
                if table is None or name in table:
                    continue
            yield _undefined(hlo, line, new_tuple(Ref, (role, name, begin, end)), instructions)


def _refs_undefined(hlo: HloModule, defined: dict[Role, Set[str]], tables: dict[Role, Set[str]], scopes: _Scopes,
                    line: int, scan: LineScan, refs: tuple[Ref, ...]) -> Iterator[Problem]:
    """The uses `refs` of `line` that resolve nowhere (`tables`: as `_chunk_undefined_names` has them)."""
    kind = scan.kind
    if kind == "computation":
        return  # a signature's names: XLA's parser reads the signature and throws it away
    for ref in refs:
        if ref.role is _INSTRUCTION_USE:
            if kind == "items" and scopes.has_among_items(ref.name, line, ref.start, scan):
                continue
            if kind != "items" and scopes.has(ref.name, line):
                continue
        elif ref.role is _COMPUTATION_USE:
            if _computation_before(hlo, ref.name, ref.start, line, defined):
                continue
        else:
            table = tables.get(ref.role)
            if table is None or ref.name in table:
                continue
        yield _undefined(hlo, line, ref, defined.get(Role.INSTRUCTION_DEF, frozenset()))


# (a member of an enum is slower to reach than a name of the module: these are read per use, and a 40 MB
# module has 600,000 uses)
_INSTRUCTION_USE, _COMPUTATION_USE = Role.INSTRUCTION_USE, Role.COMPUTATION_USE


class _Scopes:
    """Whether an instruction name is in scope on a line: the computation of the line is kept while
    lines stay inside it."""

    __slots__ = ("_hlo", "_outside", "_first", "_last", "_computation")

    def __init__(self, hlo: HloModule, outside: Set[str]) -> None:
        self._hlo, self._outside = hlo, outside
        self._first, self._last = 0, -1
        self._computation: Computation | None = None

    def has_among_items(self, name: str, line: int, character: int, scan: LineScan) -> bool:
        """On a line of several items, perhaps of two computations: defined above, or before on the line."""
        computation = self._hlo.computation_at(line, character)
        if computation is None:
            return name in self._outside
        before = any(ref.name == name and ref.role is Role.INSTRUCTION_DEF and ref.start < character
                     for ref in scan.refs)
        return before or self._hlo.defines(computation, name, line)

    def has(self, name: str, line: int) -> bool:
        computation = self._at(line)
        if computation is None:
            return name in self._outside
        return self._hlo.defines(computation, name, before=line)

    def scope_at(self, line: int) -> tuple[int, int]:
        """For instruction lines from `line` on: the first line of the computation holding them, from which a name
        first defined on a line above them is in scope (`has`; past `line` outside any computation: none is thus),
        and the last line this holds for."""
        computation = self._at(line)
        if computation is None or not computation.instruction_lines:
            return line + 1, line
        return computation.instruction_lines[0], self._last

    def _at(self, line: int) -> Computation | None:
        if not self._first <= line <= self._last:
            computation = self._hlo.computation_at(line)
            if computation is None:
                self._first, self._last = line, line
            else:  # an unclosed computation ends where the next one starts: not kept
                end = computation.end_line
                self._first, self._last = (computation.line, end) if end is not None else (line, line)
            self._computation = computation
        return self._computation


def _computation_before(hlo: HloModule, name: str, column: int, line: int, defined: dict[Role, Set[str]]) -> bool:
    """Whether the computation `name` used at `column` of `line` is defined before it: XLA's parser takes a
    computation once it has read it to its `}` (not inside itself)."""
    if name not in defined.get(Role.COMPUTATION_DEF, ()):
        return False
    computation = hlo.computations.get(name)
    if computation is None or computation.line > line:
        return False
    if computation.end_line is None:  # an unclosed one: its own error
        return True
    if computation.end_line == line:  # after its `}`, on a line of several items (`} ENTRY e { ... to_apply=c`)?
        return column > _closing_column(hlo, line)
    return computation.end_line < line


def _closing_column(hlo: HloModule, line: int) -> int:
    """Where the `}` that ends a computation on `line` is (its column, as a ref's; past the line where a line
    of several items holds none)."""
    scan = hlo.document.scan(line)
    if scan.kind != "items":
        return 1 << 30
    start = next((start for start, item in scan.data if item.kind == "computation_end"), None)
    return (1 << 30) if start is None else utf16_column(hlo.document.line(line), start)


def _undefined(hlo: HloModule, line: int, ref: Ref, instructions: Set[str]) -> Problem:
    if ref.role is Role.INSTRUCTION_USE and spelt_like_opcode(ref.name) and _bare_operand(hlo, line, ref):
        return Problem(hlo.document.source, Range.on_line(line, ref.start, ref.end), Severity.WARNING,
                       "dropped-operand", f"{ref.name} names no instruction defined above in this computation: XLA's "
                       "parser reads it as an opcode and drops the operand")
    role, what = _DEFINES[ref.role]
    elsewhere = ref.role is Role.INSTRUCTION_USE and ref.name in instructions
    later = _defined_later(hlo, ref, line)
    computation = hlo.computations.get(ref.name) if ref.role is Role.COMPUTATION_USE else None
    inside = computation is not None and computation.line <= line <= (computation.end_line or -1)
    message = (f"computation {ref.name} is used inside itself: XLA's parser takes a computation once it has read "
               "it to its `}`" if inside else
               f"{what} {ref.name} is used before it is defined (on line {later + 1})" if later is not None
               else f"instruction {ref.name} is defined in another computation, not in this one" if elsewhere
               else f"{what} {ref.name} is not defined in this module")
    severity = Severity.ERROR if role in (Role.INSTRUCTION_DEF, Role.COMPUTATION_DEF) else Severity.WARNING
    return Problem(hlo.document.source, Range.on_line(line, ref.start, ref.end), severity,
                   f"undefined-{what.replace(' ', '-')}", message)


def _bare_operand(hlo: HloModule, line: int, ref: Ref) -> bool:
    """Whether `ref` is an operand written without `%` (not a control predecessor): the innermost bracket
    open before it on its line is a `(`, or none is (an operand list going on from the line above)."""
    text = without_comments(hlo.document.line(line))
    start = python_index(text, ref.start)
    if text[:start].rstrip().endswith("%"):
        return False
    depth = 0
    for character in reversed(text[:start]):
        if character in ")}]":
            depth += 1
        elif character in "({[":
            if depth == 0:
                return character == "("
            depth -= 1
    return True


def _defined_later(hlo: HloModule, ref: Ref, line: int) -> int | None:
    """The line, `line` or below, that defines what `ref` names in its scope, if it is defined only there."""
    if ref.role is Role.COMPUTATION_USE:
        computation = hlo.computations.get(ref.name)
        return computation.line if computation is not None and computation.line > line else None
    if ref.role is not Role.INSTRUCTION_USE:
        return None
    computation = hlo.computation_at(line)
    if computation is None or not hlo.defines(computation, ref.name):
        return None
    return next((found for found in hlo.definition_lines(ref.name)
                 if found >= line and hlo.computation_at(found) is computation), None)

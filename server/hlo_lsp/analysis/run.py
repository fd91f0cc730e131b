"""Runs every check over a module; returns problems and never raises."""

from __future__ import annotations

import functools
import itertools
import traceback
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from hlo_lsp.analysis import syntax
from hlo_lsp.analysis.checks import (
    allocations,
    computation_attributes,
    cross_file,
    hlo_structure,
    instruction_names,
    live_ranges,
    module_header,
    opcodes,
    overlap,
    peak,
    totals,
    used_values,
)
from hlo_lsp.analysis.context import PROBLEM_LIMIT, CheckContext
from hlo_lsp.analysis.syntax import syntax_problems
from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import Derived, DerivedKey
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.priority import stepping
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range

Check = Callable[[CheckContext], Iterable[Problem]]


Progress = Callable[[float], None]
"""Told the fraction of a run done (0 to 1) as it goes; it may raise CheckCancelled to stop the run."""

# The grammar's pass over every line is most of a run on a large module.
SYNTAX_SHARE = 0.8


class CheckCancelled(Exception):
    """Raised by a Progress callback: the run's result is no longer wanted."""


T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Running(Protocol[T_co]):
    def told(self) -> float:
        """The share of the run the work has told its Progress so far."""

    def result(self) -> T_co | None:
        """What the work returned, once it has (None: it failed there, and is to be done here)."""

    def stop(self) -> None:
        """Stops the work if it still runs."""


class Beside(Protocol):
    """Runs a part of a check on the machine's other core, while the rest runs here (the session's `ForkedPart`):
    on an HLO file of `from_lines` lines or more."""

    from_lines: int

    def start(self, work: Callable[[Progress], T], owners: Callable[[], Sequence[Derived]],
              shared: Callable[[], Sequence[object]]) -> Running[T] | None:
        """`work` started there (None: it cannot be), given the Progress it reports to (read by `Running.told`).
        What it derives on `owners()` (the `derived` of a document, its chunks, its structure: each process has its
        own, in the same order) is put on this process's when the result is taken; the objects of `shared()` it
        holds (identity tokens: a `structure_id`) are this one's own here."""

CHECKS: tuple[tuple[str, Check], ...] = (
    ("hlo-structure", hlo_structure.check),
    ("hlo-opcodes", opcodes.check),
    ("hlo-header", module_header.check),
    ("hlo-computation-attributes", computation_attributes.check),
    ("hlo-instruction-names", instruction_names.check),
    ("allocations", allocations.check),
    ("totals", totals.check),
    ("used-values", used_values.check),
    ("live-ranges", live_ranges.check),
    ("overlap", overlap.check),
    ("peak", peak.check),
    ("cross-file", cross_file.check),
)


def check_module(module: ModuleDump, progress: Progress | None = None,
                 hlo_file: tuple[Document, list[Problem]] | None = None, beside: Beside | None = None) -> list[Problem]:
    """Syntax problems of every document, then every invariant check, sorted by place: the HLO file's first
    (`hlo_file_problems`), then the others'. `hlo_file`: the problems `hlo_file_problems` found in an HLO
    document, taken as they are when it is this module's. `beside`: where part of a large HLO file's check may
    run meanwhile (`_hlo_file_part`)."""
    done = _Done(module, progress or _ignore)
    hlo = module.hlo_document
    last_run = _LastRun(module)
    if hlo is not None and hlo_file is not None and hlo_file[0] is hlo:
        first = hlo_file[1]
        done.skipped(hlo, len(_names(in_hlo_file=True)))
        found: dict[str, list[Problem]] = {}
    elif hlo is None:
        first, found = [], last_run.run(_names(in_hlo_file=True), done)
    else:
        first, found = _hlo_file_part(module, hlo, done, last_run, beside)
    rest = [problem for document in module.all_documents() if document is not hlo
            for problem in _syntax(document, done)]
    found.update(last_run.run(_names(in_hlo_file=False), done))
    last_run.keep(found)
    done.report(1.0)
    return sorted({*first, *rest, *(problem for problems in found.values() for problem in problems)},
                  key=Problem.sort_key)


def hlo_file_problems(module: ModuleDump, progress: Progress | None = None,
                      beside: Beside | None = None) -> list[Problem]:
    """The problems of the module's HLO file, sorted: its syntax and the checks that read it alone
    (HLO_FILE_CHECKS). They need none of the buffer assignment's files, several times its lines: a check
    finds them first, to show them while it reads the rest (`check_module`'s `hlo_file`)."""
    hlo = module.hlo_document
    if hlo is None:
        return []
    found, checks = _hlo_file_part(module, hlo, _Done(module, progress or _ignore), _LastRun(module), beside)
    for problems in checks.values():
        found.extend(problems)
    return sorted(set(found), key=Problem.sort_key)


def _hlo_file_part(module: ModuleDump, hlo: Document, done: _Done, last_run: _LastRun,
                   beside: Beside | None) -> tuple[list[Problem], dict[str, list[Problem]]]:
    """The HLO file's syntax problems, and those of HLO_FILE_CHECKS. A large file read for the first time is
    read on two cores when `beside` is given: the syntax pass and hlo-opcodes there, the other checks here
    (hlo-structure reads every line's uses), each about half of the work once the file is scanned and its
    structure read."""
    names = _names(in_hlo_file=True)
    running = _started_beside(module, hlo, last_run, beside, list(_BESIDE))
    if running is None:
        return _syntax(hlo, done), last_run.run(names, done)
    try:
        with stepping(_told_meanwhile(done, running)):
            found = last_run.run([name for name in names if name not in _BESIDE], done)
            there = running.result()
    finally:
        running.stop()
    if there is None:
        return _syntax(hlo, done), {**found, **last_run.run(list(_BESIDE), done)}
    done.skipped(hlo, len(_BESIDE))
    return there[0], {**found, **there[1]}


_BESIDE = ("hlo-opcodes",)  # the checks run beside with the syntax pass


def _told_meanwhile(done: _Done, running: Running[object]) -> Callable[[], None]:
    """A step for `let_questions_first` (`model.priority.stepping`) that reports the share of the run done here and
    beside: the editor's bar moves while both parts run. (Reporting may let questions first: not again from there.)"""
    inside = False

    def step() -> None:
        nonlocal inside
        if not inside:
            inside = True
            try:
                done.report(done.fraction() + running.told())
            finally:
                inside = False

    return step


def _started_beside(module: ModuleDump, hlo: Document, last_run: _LastRun, beside: Beside | None,
                    names: list[str]) -> Running[tuple[list[Problem], dict[str, list[Problem]]]] | None:
    """The syntax pass and the checks `names` started beside, on a large HLO file with nothing read before (after
    an edit they start from the last version's, in proportion to the edit). Started once the file is scanned (the
    copy shares its lines and their scans), before its structure is read: each process reads it on its own core."""
    if beside is None or hlo.line_count < beside.from_lines or syntax.read_before(hlo):
        return None
    hlo.chunks  # noqa: B018 - scanned here, once

    def owners() -> list[Derived]:
        structure = module.hlo
        return [hlo.derived, *(chunk.derived for chunk in hlo.chunks), *([structure.derived] if structure else [])]

    def shared() -> tuple[object, ...]:
        return (module.hlo.structure_id,) if module.hlo is not None else ()

    def work(told: Progress) -> tuple[list[Problem], dict[str, list[Problem]]]:
        there = _Done(module, told)  # (the share of the run done there, from nothing)
        return _syntax(hlo, there), last_run.run(names, there)

    return beside.start(work, owners, shared)


# The checks that read the HLO file alone and report in it alone (but for an internal error, which goes to the
# module's stem): run first, and no other check reports in the HLO file.
HLO_FILE_CHECKS = frozenset(("hlo-structure", "hlo-opcodes", "hlo-header", "hlo-computation-attributes",
                             "hlo-instruction-names"))


def _names(in_hlo_file: bool) -> list[str]:
    """The names of the checks (in CHECKS' order) that are, or are not, HLO_FILE_CHECKS."""
    return [name for name, _ in CHECKS if (name in HLO_FILE_CHECKS) == in_hlo_file]


class _Done:
    """How much of a run is done, told to its Progress: the syntax pass by lines (SYNTAX_SHARE of the
    whole), the invariant checks by count."""

    def __init__(self, module: ModuleDump, report: Progress) -> None:
        self.report = report
        self._total_lines = sum(document.line_count for document in module.all_documents()) or 1
        self._lines = self._checks = 0

    def fraction(self, lines: int = 0) -> float:
        return (SYNTAX_SHARE * (self._lines + lines) / self._total_lines
                + (1 - SYNTAX_SHARE) * self._checks / len(CHECKS))

    def lines_read(self, lines: int) -> None:
        self._lines += lines

    def check_done(self) -> None:
        self._checks += 1

    def skipped(self, document: Document, checks: int) -> None:
        """A document's syntax and `checks` checks, done before."""
        self._lines += document.line_count
        self._checks += checks


def _syntax(document: Document, done: _Done) -> list[Problem]:
    def on_lines(lines: int) -> None:
        done.report(done.fraction(lines))

    syntax = functools.partial(syntax_problems, on_lines=on_lines)
    problems = _guarded(syntax, document, document.source, "syntax")
    done.lines_read(document.line_count)
    return problems


class _LastRun:
    """The invariant checks of a run, and their last run's problems: a check that reads nothing the module's
    last edit changed gives them again."""

    def __init__(self, module: ModuleDump) -> None:
        self._module = module
        self._context = CheckContext(module)

    @functools.cached_property
    def _home(self) -> tuple[Derived, tuple[weakref.ref[Document], ...]]:
        """(read at the first run, which builds the module's structure: a part forked before reads its own)"""
        return _last_run_home(self._module)

    @functools.cached_property
    def _reusable(self) -> dict[str, list[Problem]]:
        home, others = self._home
        last = home.get(_LAST_RUN)
        return last[1] if last is not None and _same(last[0], others) else {}

    def run(self, names: list[str], done: _Done) -> dict[str, list[Problem]]:
        checks = dict(CHECKS)
        found: dict[str, list[Problem]] = {}
        for name in names:
            done.report(done.fraction())
            kept = self._reusable.get(name)
            found[name] = kept if kept is not None else _guarded(checks[name], self._context, self._module.stem, name)
            done.check_done()
        return found

    def keep(self, found: dict[str, list[Problem]]) -> None:
        home, others = self._home
        home.put(_LAST_RUN, (others, {name: found[name] for name in found if name not in RERUN}))


def _last_run_home(module: ModuleDump) -> tuple[Derived, tuple[weakref.ref[Document], ...]]:
    """Where the invariant checks' last problems are kept, and the documents they read besides it: the
    HLO module's structure (the same across edits that change no name, kind or shape), or without an
    HLO file the first document; the others are held weakly (a closed module's files are not kept alive
    by its last problems)."""
    hlo, documents = module.hlo, module.all_documents()
    if hlo is None and not documents:
        return Derived(), ()
    home = hlo.derived if hlo is not None else documents[0].derived
    first = module.hlo_document if hlo is not None else documents[0]
    return home, tuple(weakref.ref(document) for document in documents if document is not first)


def _same(last: tuple[weakref.ref[Document], ...], now: tuple[weakref.ref[Document], ...]) -> bool:
    return len(last) == len(now) and all(a() is b() for a, b in zip(last, now))


# The invariant checks' last problems, kept on the module (see _last_run_home): after an edit that changed
# only text the checks do not read (an op_name, say), the module's problems are the same, and re-checking
# every allocation of a 40 MB module would take seconds. hlo-structure reports at the columns of uses,
# which such an edit may move, and hlo-opcodes reads attribute values and literals, which it may
# change: they run again, and keep their own results per chunk. The header, closing-line and
# instruction-name checks read a few lines (or the set of names) and run again too.
RERUN = frozenset(("hlo-structure", "hlo-opcodes", "hlo-header", "hlo-computation-attributes",
                   "hlo-instruction-names"))
_LAST_RUN: DerivedKey[tuple[tuple[weakref.ref[Document], ...], dict[str, list[Problem]]]] = DerivedKey("last run")


def _ignore(fraction: float) -> None:
    pass


def _guarded(run: Callable[[Any], Iterable[Problem]], subject: object, source: str, name: str) -> list[Problem]:
    try:
        with paused_collector():  # a check of a large module builds hundreds of thousands of objects
            return _limited(run(subject), name)
    except CheckCancelled:
        raise
    except Exception as error:  # a bug in one check must not hide the others' results
        where = traceback.extract_tb(error.__traceback__)[-1]
        message = f"internal error in the {name} check: {error!r} at {where.filename}:{where.lineno}"
        return [Problem(source, Range(Position(0, 0), Position(0, 0)), Severity.WARNING, "internal-error", message)]


def _limited(problems: Iterable[Problem], name: str) -> list[Problem]:
    """The first PROBLEM_LIMIT problems, then a note where the check stopped."""
    found = list(itertools.islice(problems, PROBLEM_LIMIT + 1))
    if len(found) <= PROBLEM_LIMIT:
        return found
    last = found[PROBLEM_LIMIT - 1]
    message = f"the {name} check stopped after {PROBLEM_LIMIT} problems; fix these to see the rest"
    return [*found[:PROBLEM_LIMIT], Problem(last.source, last.range, Severity.INFO, "too-many-problems", message)]

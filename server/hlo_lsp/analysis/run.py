"""Runs every check over a module; returns problems and never raises."""

from __future__ import annotations

import functools
import itertools
import traceback
import weakref
from collections.abc import Callable, Iterable
from typing import Any

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
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range

Check = Callable[[CheckContext], Iterable[Problem]]


Progress = Callable[[float], None]
"""Told the fraction of a run done (0 to 1) as it goes; it may raise CheckCancelled to stop the run."""

# The grammar's pass over every line is most of a run on a large module.
SYNTAX_SHARE = 0.8


class CheckCancelled(Exception):
    """Raised by a Progress callback: the run's result is no longer wanted."""

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


def check_module(module: ModuleDump, progress: Progress | None = None) -> list[Problem]:
    """Syntax problems of every document, then every invariant check, sorted by place."""
    report = progress or _ignore
    problems: list[Problem] = []
    documents = module.all_documents()
    total_lines = sum(document.line_count for document in documents) or 1
    lines_before = 0
    for document in documents:
        def on_lines(lines: int, before: int = lines_before) -> None:
            report(SYNTAX_SHARE * (before + lines) / total_lines)

        syntax = functools.partial(syntax_problems, on_lines=on_lines)
        problems.extend(_guarded(syntax, document, document.source, "syntax"))
        lines_before += document.line_count
    problems.extend(_invariant_problems(module, report))
    report(1.0)
    return sorted(set(problems), key=Problem.sort_key)


def _invariant_problems(module: ModuleDump, report: Progress) -> list[Problem]:
    """Every invariant check's problems; a check that reads nothing the module's last edit
    changed gives its last run's problems again."""
    home, others = _last_run_home(module)
    last = home.get(_LAST_RUN)
    reusable = last[1] if last is not None and _same(last[0], others) else {}
    context = CheckContext(module)
    found: dict[str, list[Problem]] = {}
    for done, (name, check) in enumerate(CHECKS):
        report(SYNTAX_SHARE + (1 - SYNTAX_SHARE) * done / len(CHECKS))
        kept = reusable.get(name)
        found[name] = kept if kept is not None else _guarded(check, context, module.stem, name)
    home.put(_LAST_RUN, (others, {name: found[name] for name in found if name not in RERUN}))
    return [problem for problems in found.values() for problem in problems]


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

"""Runs every check over a module; returns problems and never raises."""

from __future__ import annotations

import itertools
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from hlo_lsp.analysis.checks import (
    allocations,
    cross_file,
    hlo_structure,
    live_ranges,
    overlap,
    peak,
    totals,
    used_values,
)
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.analysis.syntax import syntax_problems
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range

Check = Callable[[CheckContext], Iterable[Problem]]

# Like a compiler's error limit: a file that is not a dump at all (one line repeated a
# million times, say) would otherwise give a million diagnostics no editor can show.
PROBLEM_LIMIT = 1000

CHECKS: tuple[tuple[str, Check], ...] = (
    ("hlo-structure", hlo_structure.check),
    ("allocations", allocations.check),
    ("totals", totals.check),
    ("used-values", used_values.check),
    ("live-ranges", live_ranges.check),
    ("overlap", overlap.check),
    ("peak", peak.check),
    ("cross-file", cross_file.check),
)


def check_module(module: ModuleDump) -> list[Problem]:
    """Syntax problems of every document, then every invariant check, sorted by place."""
    problems: list[Problem] = []
    for document in module.all_documents():
        problems.extend(_guarded(syntax_problems, document, document.source, "syntax"))
    context = CheckContext(module)
    for name, check in CHECKS:
        problems.extend(_guarded(check, context, module.stem, name))
    return sorted(set(problems), key=Problem.sort_key)


def _guarded(run: Callable[[Any], Iterable[Problem]], subject: object, source: str, name: str) -> list[Problem]:
    try:
        return _limited(run(subject), name)
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

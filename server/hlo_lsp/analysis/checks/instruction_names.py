"""hlo-instruction-names: the names XLA's HLO text parser (jaxlib 0.10.2) refuses for an instruction,
those it would rename: an element type's name (`f32`, `token`; `tuple` is allowed) and a name that
starts with `__` (not `__xla_`, which backends reserve for XLA), and a keyword of its lexer written without
its `%` (`inf`, `true`, `ROOT`, ...). Computations may have any name.
The module's set of instruction names is read, not its lines.
"""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.analysis.checks.opcodes.literals import ELEMENT_TYPES
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_scanner.forms import KEYWORDS
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Range


def check(context: CheckContext) -> Iterator[Problem]:
    hlo = context.hlo
    if hlo is None:
        return
    for name in _illegal(hlo):
        yield from _problems(hlo, name)


# The illegal names, not the names themselves: a closed module's 300,000 names would stay in memory.
_ILLEGAL: DerivedKey[list[str]] = DerivedKey("illegal instruction names")


def _illegal(hlo: HloModule) -> list[str]:
    """The illegal names among the module's, found in C (a 40 MB module defines 300,000): kept on its
    structure, which the versions of a module share while their names stay the same."""
    return hlo.derived.memo(_ILLEGAL, lambda: _illegal_names(hlo))


def _illegal_names(hlo: HloModule) -> list[str]:
    names = hlo.defined_names().get(Role.INSTRUCTION_DEF, frozenset())
    joined = "\n" + "\n".join(names) + "\n"
    reserved = [joined[start + 1 : joined.index("\n", start + 1)] for start in _starts(joined, "\n__")]
    return (sorted(names & ELEMENT_TYPES) + sorted(name for name in reserved if not name.startswith("__xla_"))
            + sorted(names & KEYWORDS))


def _starts(text: str, needle: str) -> Iterator[int]:
    position = text.find(needle)
    while position >= 0:
        yield position
        position = text.find(needle, position + 1)


def _problems(hlo: HloModule, name: str) -> Iterator[Problem]:
    if name in KEYWORDS:
        message = (f"{name} is a keyword of XLA's HLO text, not a name (XLA: expects name): write it `%{name}`, "
                   "or rename it")
    else:
        why = "an element type's name" if name in ELEMENT_TYPES else "a name starting with __ (reserved for backends)"
        renamed = f"{name}_" if name in ELEMENT_TYPES else f"a{name[1:]}"
        message = f"illegal instruction name {name}: XLA's parser refuses {why}; rename it, e.g. to {renamed}"
    for line, ref in hlo.document.definitions(name, _INSTRUCTION_DEF):
        if name in KEYWORDS and hlo.document.line(line)[ref.start - 1 : ref.start] == "%":
            continue  # `%inf`: a name
        yield Problem(hlo.document.source, Range.on_line(line, ref.start, ref.end), Severity.ERROR,
                      "instruction-name", message)


_INSTRUCTION_DEF = frozenset((Role.INSTRUCTION_DEF,))

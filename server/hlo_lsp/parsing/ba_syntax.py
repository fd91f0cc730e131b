"""Buffer-assignment and memory-report text against their grammars.

The scanner reads these files with regular expressions; the grammar is used to
validate whole files (conformance) and to say where a line the scanner could
not read goes wrong.
"""

from __future__ import annotations

from collections.abc import Callable

from lark.exceptions import LarkError, UnexpectedInput

from hlo_lsp.parsing.grammars import buffer_assignment_parser, memory_report_parser
from hlo_lsp.parsing.hlo_syntax import parse_error_of
from hlo_lsp.parsing.line_scan import State
from hlo_lsp.parsing.syntax import ParseError

# What a line may be, by the scanner state it is read in.
_LINE_RULES: dict[State, tuple[str, ...]] = {
    "alloc": ("allocation_header", "value_line"),
    "reused": ("reused_value", "value_line"),
    "used": ("value_ref",),
    "positions": ("position",),
    "uses": ("use",),
    "seq": ("sequence_entry",),
    "ranges": ("live_range_line",),
    "peak": ("peak_line",),
    "tree": ("stack_frame_line",),
    "stats": ("stats_line",),
}


def buffer_assignment_error(text: str) -> ParseError | None:
    """Where a whole buffer-assignment / values / live-range file leaves the grammar."""
    return _check(lambda: buffer_assignment_parser().parse(text, start="dump"), text)


def memory_report_error(text: str) -> ParseError | None:
    return _check(lambda: memory_report_parser().parse(text), text)


def line_error(text: str, state: State) -> ParseError | None:
    """The furthest point the grammar gets on `text` as any line kind allowed in `state`."""
    best: ParseError | None = None
    for rule in _LINE_RULES.get(state, ()):
        error = _check(_parse_as(text.strip(), rule), text.strip())
        if error is None:
            return None
        if best is None or error.start > best.start:
            best = error
    if best is None:
        return None
    indent = len(text) - len(text.lstrip())
    return ParseError(best.start + indent, best.end + indent, best.message)


def _parse_as(text: str, rule: str) -> Callable[[], object]:
    """Parses `text` as the buffer-assignment grammar's `rule` when called."""
    return lambda: buffer_assignment_parser().parse(text, start=rule)


def _check(parse: Callable[[], object], text: str) -> ParseError | None:
    try:
        parse()
    except UnexpectedInput as error:
        return parse_error_of(text, error)
    except (LarkError, RecursionError) as error:
        return ParseError(0, len(text), f"cannot parse: {error}")
    return None

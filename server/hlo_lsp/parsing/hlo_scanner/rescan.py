"""The scanner's entry point for the parts that scan a line again from the start (an item cut short, a line
of several items, a continuation that turns out to start a new item).

machine.py defines `scan_hlo_line` and imports those parts, so they cannot import it back without an import
cycle: machine.py sets `line` here when it is imported, before any line is scanned.
"""

from __future__ import annotations

from collections.abc import Callable

from hlo_lsp.parsing.line_scan import LineScan, State


def _not_ready(state: State, text: str) -> LineScan:
    raise RuntimeError("hlo_lsp.parsing.hlo_scanner.machine sets the scanner's entry point when it is imported")


line: Callable[[State, str], LineScan] = _not_ready

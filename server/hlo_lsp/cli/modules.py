"""`hlo-lsp modules DIR...`: every module of dump folders, one row per compilation, the largest peak first."""

from __future__ import annotations

import json
import sys

from hlo_lsp.cli.paths import shown
from hlo_lsp.lsp.modules_json import modules_json
from hlo_lsp.problems import Severity
from hlo_lsp.session import ModuleRow, Session, human_bytes


def modules(paths: list[str], top: int | None, sort: str, output: str) -> int:
    listed = Session().list_modules(paths, sort)
    rows = listed.rows
    errors = [problem for problem in listed.problems if problem.severity is Severity.ERROR]
    for problem in errors:
        print(f"{shown(problem.source)}: {problem.message}", file=sys.stderr)
    shown_rows = rows[:top] if top is not None else rows
    if output == "json":
        json.dump(modules_json(shown_rows), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        _print_rows(rows, shown_rows, sort)
    if not rows:
        print("hlo-lsp: no dump module under " + ", ".join(paths), file=sys.stderr)
    return 1 if errors or not rows else 0


def _print_rows(rows: list[ModuleRow], shown_rows: list[ModuleRow], sort: str) -> None:
    order = {"peak": "the largest peak first", "name": "by name", "size": "the largest HLO file first"}[sort]
    print(f"{len(rows)} module(s), {order}:")
    print(f"{'peak (bytes)':>23}  {'allocated':>10}  {'HLO':>10}  {'instr.':>7}  module")
    for row in shown_rows:
        peak = f"{row.peak:,} {human_bytes(row.peak):>9}" if row.peak is not None else "-"
        allocated = human_bytes(row.allocated) if row.allocated is not None else "-"
        instructions = f"{row.instructions:,}" if row.instructions is not None else "-"
        spaces = ", ".join(f"{peak.space} {human_bytes(peak.bytes) if peak.bytes is not None else '-'}"
                           for peak in row.peaks[1:])
        print(f"{peak:>23}  {allocated:>10}  {human_bytes(row.hlo_bytes):>10}  {instructions:>7}  {row.name}  "
              f"{shown(row.path)}" + (f"  (other spaces: {spaces})" if spaces else ""))
    if len(shown_rows) < len(rows):
        print(f"... and {len(rows) - len(shown_rows)} more module(s)")

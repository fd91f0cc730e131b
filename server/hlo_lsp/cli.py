"""Command line: `hlo-lsp check`, `hlo-lsp memory`, and (no arguments / `serve`) the language server."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from hlo_lsp import __version__
from hlo_lsp.analysis.memory import MemorySummary, memory_summary
from hlo_lsp.analysis.run import check_module
from hlo_lsp.model.sizes import human_bytes
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.workspace.loader import load


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check(args.paths, args.format)
        if args.command == "memory":
            return _memory(args.paths, args.top)
        return _serve(args.tcp)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hlo-lsp", description="XLA HLO dump checker and language server.")
    parser.add_argument("--version", action="version", version=f"hlo-lsp {__version__}")
    commands = parser.add_subparsers(dest="command")
    check = commands.add_parser("check", help="check dump files or folders, like a compiler")
    check.add_argument("paths", nargs="+", metavar="PATH", help="dump files or folders (e.g. an --xla_dump_to folder)")
    check.add_argument("--format", choices=("text", "json"), default="text")
    memory = commands.add_parser("memory", help="peak memory and the buffers live at the peak")
    memory.add_argument("paths", nargs="+", metavar="PATH")
    memory.add_argument("--top", type=int, default=10, help="how many buffers at the peak to list (default 10)")
    serve = commands.add_parser("serve", help="run the language server over stdio (the default)")
    for command_parser in (parser, serve):
        command_parser.add_argument("--tcp", metavar="HOST:PORT", help="serve over TCP instead of stdio (debugging)")
    return parser


def _check(paths: list[str], output: str) -> int:
    loaded = load(paths)
    problems = list(loaded.problems)
    for module in loaded.modules:
        problems.extend(check_module(module))
    problems.sort(key=Problem.sort_key)
    files = sum(len(module.documents) for module in loaded.modules)
    if output == "json":
        json.dump([_problem_json(problem) for problem in problems], sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for problem in problems:
            _print_problem(problem)
    counts = {severity: sum(1 for p in problems if p.severity is severity) for severity in Severity}
    print(f"checked {files} file(s) in {len(loaded.modules)} module(s): {counts[Severity.ERROR]} error(s), "
          f"{counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} note(s)", file=sys.stderr)
    return 1 if counts[Severity.ERROR] else 0


def _print_problem(problem: Problem) -> None:
    start = problem.range.start
    label = "note" if problem.severity is Severity.INFO else problem.severity.label
    where = f"{_shown(problem.source)}:{start.line + 1}:{start.character + 1}"
    print(f"{where}: {label}: {problem.message} [{problem.code}]")
    for related in problem.related:
        where = related.range.start
        print(f"{_shown(related.source)}:{where.line + 1}:{where.character + 1}: note: {related.message}")


def _shown(path: str) -> str:
    """The path relative to the working folder when that is shorter to read."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir + os.sep + os.pardir) else relative


def _problem_json(problem: Problem) -> dict[str, object]:
    return {
        "path": problem.source,
        "line": problem.range.start.line + 1,
        "column": problem.range.start.character + 1,
        "end_line": problem.range.end.line + 1,
        "end_column": problem.range.end.character + 1,
        "severity": problem.severity.label,
        "code": problem.code,
        "message": problem.message,
        "related": [
            {"path": r.source, "line": r.range.start.line + 1, "column": r.range.start.character + 1,
             "message": r.message}
            for r in problem.related
        ],
    }


def _memory(paths: list[str], top: int) -> int:
    loaded = load(paths)
    for problem in loaded.problems:
        _print_problem(problem)
    shown = 0
    for module in loaded.modules:
        buffers = module.buffer_assignment
        if buffers is None:
            continue
        shown += 1
        _print_summary(os.path.basename(module.stem), memory_summary(module.hlo, buffers), top)
    if not shown:
        print("no buffer-assignment files found under " + ", ".join(paths), file=sys.stderr)
        return 1
    return 0


def _print_summary(name: str, summary: MemorySummary, top: int) -> None:
    print(f"{name}")
    if summary.total_bytes is not None:
        print(f"  allocated: {summary.total_bytes:,} bytes ({human_bytes(summary.total_bytes)}) "
              f"in {summary.allocation_count} allocations")
    if summary.peak_time is None or summary.peak_bytes is None:
        print("  peak: unknown (no live-range section, or shapes missing)\n")
        return
    print(f"  peak: {summary.peak_bytes:,} bytes ({human_bytes(summary.peak_bytes)}) live at schedule step "
          f"{summary.peak_time} ({summary.peak_instruction or '?'}), {len(summary.buffers_at_peak)} buffers")
    for buffer in summary.buffers_at_peak[:top]:
        where = f"allocation {buffer.allocation} @ {buffer.offset}" if buffer.allocation is not None else "unallocated"
        print(f"    {human_bytes(buffer.size):>10}  {buffer.label:<40} live {buffer.live_range.start}-"
              f"{buffer.live_range.end}  {where}")
    hidden = len(summary.buffers_at_peak) - top
    if hidden > 0:
        print(f"    ... and {hidden} smaller buffer(s)")
    print()


def _serve(tcp: str | None) -> int:
    from hlo_lsp.lsp.server import run  # the server's imports (pygls) are not needed by check/memory

    if tcp is None:
        return run()
    host, _, port = tcp.rpartition(":")
    if not port.isdigit():
        print(f"hlo-lsp: --tcp wants HOST:PORT, not {tcp!r}", file=sys.stderr)
        return 2
    return run((host or "127.0.0.1", int(port)))


if __name__ == "__main__":
    sys.exit(main())

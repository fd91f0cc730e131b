"""Command line: `hlo-lsp check`, `hlo-lsp memory`, `hlo-lsp diff` (cli/diff.py), `hlo-lsp modules`
(cli/modules.py), and (no arguments / `serve`) the language server."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace

import hlo_lsp
from hlo_lsp.cli.diff import diff, threshold
from hlo_lsp.cli.modules import modules
from hlo_lsp.cli.paths import distinct_names, shown
from hlo_lsp.lsp.memory_json import file_location, report_json
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.session import (
    PLURALS,
    SORTS,
    ForkedPart,
    Memory,
    MemoryReport,
    MemorySummary,
    PeakBuffer,
    Session,
    byte_text,
    human_bytes,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check(args.paths, args.format)
        if args.command == "memory":
            return _memory(args.paths, args.top, args.svg, args.format, args.space)
        if args.command == "modules":
            return modules(args.paths, args.top, args.sort, args.format)
        if args.command == "diff":
            return diff(args.a, args.b, args.top, args.format, args.fail_over, args.svg)
        return _serve(args.tcp)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hlo-lsp", description="XLA HLO dump checker and language server.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command")
    check = commands.add_parser("check", help="check dump files or folders, like a compiler")
    check.add_argument("paths", nargs="+", metavar="PATH", help="dump files or folders (e.g. an --xla_dump_to folder)")
    check.add_argument("--format", choices=("text", "json"), default="text")
    memory = commands.add_parser("memory", help="peak memory and the buffers live at the peak")
    memory.add_argument("paths", nargs="+", metavar="PATH")
    memory.add_argument("--top", type=int, default=10, help="how many buffers at the peak to list (default 10)")
    memory.add_argument("--svg", metavar="OUT.svg",
                        help="write the memory timeline picture (several modules: OUT.<module>.svg)")
    memory.add_argument("--format", choices=("text", "json"), default="text")
    memory.add_argument("--space", metavar="NAME",
                        help="the memory space to report (as the memory-usage report names it: vmem, smem, ...; "
                             "default: the default space)")
    listing = commands.add_parser("modules", help="every module of dump folders, the largest peak first")
    listing.add_argument("paths", nargs="+", metavar="DIR", help="dump folders (e.g. an --xla_dump_to folder)")
    listing.add_argument("--top", type=int, help="how many modules to list (default: all)")
    listing.add_argument("--sort", choices=SORTS, default="peak",
                         help="peak (the largest first; the default), name, or size (of the HLO file)")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    compare = commands.add_parser("diff", help="what grew between two dumps of one program: peaks and buffers")
    compare.add_argument("a", metavar="A", help="the dump before: an --xla_dump_to folder, or any file of a module")
    compare.add_argument("b", metavar="B", help="the dump after")
    compare.add_argument("--top", type=int, default=15, help="how many buffer rows to list per module (default 15)")
    compare.add_argument("--format", choices=("text", "json"), default="text")
    compare.add_argument("--svg", metavar="OUT.svg", help="write the picture: both timelines on one scale and the "
                                                         "buffers that changed most (several pairs: OUT.<module>.svg)")
    compare.add_argument("--fail-over", type=threshold, metavar="LIMIT",
                         help="exit 1 when a peak grew by more than LIMIT: a percentage of A's peak (10%%) or "
                              "bytes (1048576, 512MiB, 1.5GB)")
    serve = commands.add_parser("serve", help="run the language server over stdio (the default)")
    for command_parser in (parser, serve):
        command_parser.add_argument("--tcp", metavar="HOST:PORT", help="serve over TCP instead of stdio (debugging)")
        # Language clients (vscode-languageclient among them) add --stdio when they start a stdio server.
        command_parser.add_argument("--stdio", action="store_true", help="serve over stdio (the default)")
    return parser


class _Version(argparse.Action):
    """argparse's version action, with the version read only when asked for (see hlo_lsp.__getattr__)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"hlo-lsp {hlo_lsp.__version__}")
        parser.exit()


def _check(paths: list[str], output: str) -> int:
    session = Session(beside=ForkedPart())  # a large HLO file's check on two cores
    loaded = session.read(paths)
    problems = list(loaded.problems)
    for module in loaded.modules:
        problems.extend(session.check_module(module))
    problems.sort(key=Problem.sort_key)
    files = sum(len(module.documents) for module in loaded.modules)
    if output == "json":
        json.dump([_problem_json(problem) for problem in problems], sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for problem in problems:
            _print_problem(problem)
    counts = {severity: sum(1 for p in problems if p.severity is severity) for severity in Severity}
    print(f"checked {files} file(s) in {loaded.compilations} module(s): {counts[Severity.ERROR]} error(s), "
          f"{counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} note(s)", file=sys.stderr)
    return 1 if counts[Severity.ERROR] else 0


def _print_problem(problem: Problem) -> None:
    start = problem.range.start
    label = "note" if problem.severity is Severity.INFO else problem.severity.label
    where = f"{shown(problem.source)}:{start.line + 1}:{start.character + 1}"
    print(f"{where}: {label}: {problem.message} [{problem.code}]")
    for related in problem.related:
        at = related.range.start
        print(f"{shown(related.source)}:{at.line + 1}:{at.character + 1}: note: {related.message}")


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


def _memory(paths: list[str], top: int, svg: str | None, output: str, space: str | None = None) -> int:
    session = Session()
    loaded = session.read(paths)
    for problem in loaded.problems:
        if problem.severity is not Severity.INFO:  # a side file named among the dump's files is no news here
            _print_problem(problem)
    modules = [module for module in loaded.modules if module.buffer_assignment is not None]
    if not modules:
        print("no buffer-assignment files found under " + ", ".join(paths), file=sys.stderr)
        return 1
    answers, failed = [], False
    headings = distinct_names([module.stem for module in modules])
    for module in modules:
        memory = session.memory(module, space)
        if memory is None:
            names = ", ".join(known.name for known in module.memory_spaces)
            print(f"{os.path.basename(module.stem)}: no memory space {space!r} (it has {names})", file=sys.stderr)
            failed = True
            continue
        memory = replace(memory, name=headings[module.stem])  # (two dumps' modules of one name: told apart)
        report, picture = memory.report, None
        if svg and report is None:
            print(f"{memory.name}: no timeline (no live-range section, or shapes missing)", file=sys.stderr)
        elif svg and report is not None:
            picture = _write_svg(session.memory_svg(report), memory.name, svg, len(modules))
            failed = failed or picture is None
        if output == "json":
            answers.append(_memory_json(memory, picture))
        else:
            _print_memory(memory, top, picture)
    if output == "json":
        json.dump(answers, sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 1 if failed else 0


def _write_svg(picture: str, name: str, svg: str, modules: int) -> str | None:
    """Writes the picture of the module `name` to `svg`, or beside it with the module's name when there are
    several; None (and a message) when it cannot be written."""
    root, extension = os.path.splitext(svg)
    path = svg if modules == 1 else f"{root}.{name.replace(os.sep, '.')}{extension or '.svg'}"
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as file:
            file.write(picture)
    except OSError as error:
        print(f"hlo-lsp: cannot write {path}: {error.strerror or error}", file=sys.stderr)
        return None
    return path


def _memory_json(memory: Memory, picture: str | None) -> dict[str, object]:
    if memory.report is None:
        summary = memory.summary
        return {"module": memory.name, "peak": None,
                "allocated": {"bytes": summary.total_bytes, "allocations": summary.allocation_count}}
    answer = {**report_json(memory.report, file_location), "module": memory.name}
    if picture is not None:
        answer["svgPath"] = picture
    return answer


def _print_memory(memory: Memory, top: int, picture: str | None) -> None:
    _print_summary(memory.name, memory.summary, top, memory.report)
    if memory.report is not None:
        _print_timeline(memory.report, picture)
    print()


def _print_summary(name: str, summary: MemorySummary, top: int, report: MemoryReport | None = None) -> None:
    print(f"{name}")
    space = ""
    if report is not None and report.several_spaces:
        _print_spaces(report)
        space = f" (memory space {report.space.name})"
    if summary.total_bytes is not None:
        print(f"  allocated{space}: {summary.total_bytes:,} bytes ({human_bytes(summary.total_bytes)}) "
              f"in {summary.allocation_count} allocations")
    if summary.peak_time is None or summary.peak_bytes is None or report is None:  # (no report: no peak)
        print("  peak: unknown (no live-range section, or shapes missing)")
        return
    print(f"  peak{space}: {summary.peak_bytes:,} bytes ({human_bytes(summary.peak_bytes)}) live at schedule step "
          f"{summary.peak_time} ({summary.peak_instruction or '?'}), {len(summary.buffers_at_peak)} buffers")
    padded = summary.padding > 0
    for buffer in summary.buffers_at_peak[:top]:
        where = f"allocation {buffer.allocation} @ {buffer.offset}" if buffer.allocation is not None else "unallocated"
        live = f"live {buffer.live_range.start}-{buffer.live_range.end}"
        origin = report.origin(buffer.live_range.name)
        source = os.path.basename(origin.source) if origin.source else ""
        size = human_bytes(buffer.size) + (f"  {_padded(buffer):>17}" if padded else "")
        print(f"    {size:>10}  {buffer.label:<40} {live:<12}  {where:<22}  {buffer.kind:<10}  "
              f"{source:<20}  {origin.framework_op or ''}".rstrip())
    hidden = len(summary.buffers_at_peak) - top
    if hidden > 0:
        print(f"    ... and {hidden} smaller buffer(s)")


def _padded(buffer: PeakBuffer) -> str:
    """What it takes in its allocation when a tile pads it to more than its bytes."""
    padded = buffer.allocated_size
    return f"({human_bytes(padded)} padded)" if padded is not None and padded > buffer.size else ""


def _print_spaces(report: MemoryReport) -> None:
    """Each memory space's allocations and peak, the default first, then the peak XLA prints."""
    print("  memory spaces:")
    for memory in report.spaces:
        summary = memory.summary
        peak = (f"peak {byte_text(summary.peak_bytes or 0)} at schedule step {summary.peak_time} "
                f"({summary.peak_instruction or '?'})" if summary.peak_time is not None else "no live range")
        padding = f", padding {byte_text(summary.padding)}" if summary.padding else ""
        print(f"    {memory.space.name} (color {memory.space.color}): {byte_text(summary.total_bytes or 0)} in "
              f"{summary.allocation_count} allocations, {peak}{padding}")
    combined = report.combined
    if combined is not None and combined.peak_bytes is not None:
        print(f"  every space counted, as XLA prints its peak: {byte_text(combined.peak_bytes)} at schedule step "
              f"{combined.peak_time} ({combined.peak_instruction or '?'})")


def _print_timeline(report: MemoryReport, picture: str | None) -> None:
    """What the table does not say: the split by kind, a busier step, fragmentation, the picture."""
    timeline, summary = report.timeline, report.timeline.summary
    split = ", ".join(f"{PLURALS[kind]} {byte_text(count)}" for kind, count in summary.bytes_by_kind().items())
    print(f"  at the peak: {split}")
    if summary.padding:
        padded = (summary.peak_bytes or 0) + summary.padding
        print(f"  padding at the peak: {byte_text(summary.padding)} more in the allocations "
              f"({100 * summary.padding / padded:.1f}% of their {byte_text(padded)})")
    if summary.whole_instruction_sizes and summary.value_bytes != summary.peak_bytes:
        print(f"  by the values' own sizes: {byte_text(summary.value_bytes)}; "
              "this XLA counts a live tuple element with its whole tuple's size")
    time, most = timeline.highest
    if most > (summary.peak_bytes or 0):
        print(f"  most live: {byte_text(most)} at schedule step {time} "
              f"({timeline.instruction_at(time) or '?'}); XLA's peak step counts a value until the step after "
              "its last use")
    for use in timeline.allocations:
        if use.fragmentation:
            kinds = ", ".join(use.allocation.kinds())
            print(f"  allocation {use.allocation.index}" + (f" ({kinds})" if kinds else "")
                  + f": {use.allocation.size:,} bytes, at most {use.peak_live_bytes:,} in use at once (step "
                  f"{use.peak_live_time}): {use.fragmentation:,} bytes ({use.fragmentation_percent:.1f}%) "
                  "fragmentation")
    if picture is not None:
        print(f"  timeline: {picture}")


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

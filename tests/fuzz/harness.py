"""Runs one mutant through everything a user can reach: loading, the checks, every IDE feature, an edit, the CLI.

    run_mutant(files, tmp_dir) -> Result

Any exception is a crash, recorded with its traceback and the mutant's description;
a call slower than its time bound is a failure too. `minimize` shrinks a failing
mutant to the smallest text that still fails the same way.
"""

from __future__ import annotations

import contextlib
import io
import random
import shutil
import signal
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hlo_lsp import cli
from hlo_lsp.analysis.run import check_module
from hlo_lsp.features.call_hierarchy import incoming_calls, outgoing_calls, prepare_call_hierarchy
from hlo_lsp.features.code_lens import code_lenses
from hlo_lsp.features.definition import DEFINED_KINDS, definition
from hlo_lsp.features.folding import folding_ranges
from hlo_lsp.features.hover import hover
from hlo_lsp.features.inlay_hints import inlay_hints
from hlo_lsp.features.links import document_links
from hlo_lsp.features.memory_svg import timeline_svg
from hlo_lsp.features.memory_timeline import memory_report
from hlo_lsp.features.references import highlights, references
from hlo_lsp.features.semantic_tokens import semantic_tokens
from hlo_lsp.features.symbols import bounded_outline, document_symbols
from hlo_lsp.features.targets import target_at
from hlo_lsp.features.workspace_symbols import workspace_symbols
from hlo_lsp.model.document import Document, document_state_signature
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.glance import ModuleGlance
from hlo_lsp.text import Position, Range, utf16_column
from hlo_lsp.workspace.loader import load, module_files, read_document

MB = 1024 * 1024
SERVER_PREFIX = "hlo_lsp"
EDIT_SNIPPETS = ("", "\n", "%", "{", "}", "(", ")", " = ", "😀", "\t", "\r\n", "ROOT ", "// c\n", "}\n\n",
                 "  %x = f32[] parameter(0)\n", "ENTRY %e () -> f32[] {\n", "allocation 0: size 4, parameter 0:\n")


class Hang(BaseException):
    """Raised by the watchdog inside a call that ran far past its bound (not an Exception: no check swallows it)."""


@dataclass
class Failure:
    kind: str  # "crash", "slow", "invalid", "edit-mismatch", "glance-mismatch", "early-mismatch", "cli"
    operation: str
    detail: str  # the exception / the measured time / what was wrong
    description: str  # the mutant
    trace: str = ""
    signature: tuple[str, ...] = ()

    def __str__(self) -> str:
        tail = "\n".join(self.trace.strip().splitlines()[-6:])
        return f"[{self.kind}] {self.operation}: {self.detail}\n  input: {self.description}\n{tail}"


@dataclass
class Result:
    failures: list[Failure] = field(default_factory=list)
    calls: int = 0
    slowest: tuple[float, str, str] = (0.0, "", "")  # seconds, operation, input description

    @property
    def crashes(self) -> list[Failure]:
        return [f for f in self.failures if f.kind != "slow"]

    @property
    def slow(self) -> list[Failure]:
        return [f for f in self.failures if f.kind == "slow"]

    def merge(self, other: Result) -> None:
        self.failures.extend(other.failures)
        self.calls += other.calls
        self.slowest = max(self.slowest, other.slowest)


@dataclass
class Limits:
    seconds: float = 2.0  # every call, on an input of up to 1 MB
    seconds_per_mb: float = 2.0  # more for each MB of the module's text (indexing is linear)
    hard_factor: float = 5.0  # the watchdog stops a call after this many bounds

    def bound(self, size: int) -> float:
        return self.seconds + self.seconds_per_mb * size / MB


def _innermost_server_frame(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    inside = [f for f in frames if f"/{SERVER_PREFIX}/" in f.filename.replace("\\", "/")]
    frame = (inside or frames or [None])[-1]
    return f"{Path(frame.filename).name}:{frame.name}" if frame is not None else "?"


@contextlib.contextmanager
def _watchdog(seconds: float):
    """Interrupts the call with Hang after `seconds` (main thread, POSIX only; elsewhere only measured)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise Hang(f"stopped after {seconds:.1f} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Runner:
    """Calls operations under a time bound and records every failure."""

    def __init__(self, description: str, size: int, limits: Limits) -> None:
        self.description = description
        self.bound = limits.bound(size)
        self.hard = self.bound * limits.hard_factor
        self.result = Result()

    def call(self, operation: str, function: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
        self.result.calls += 1
        started = time.perf_counter()
        try:
            with _watchdog(self.hard):
                value = function(*args)
        except Hang as error:
            elapsed = time.perf_counter() - started
            self._slow(operation, elapsed, f"hung: {error}")
            return False, None
        except Exception as error:  # noqa: BLE001 - every exception is what we are looking for
            frame = _innermost_server_frame(error)
            self.fail("crash", operation, f"{type(error).__name__}: {str(error)[:300]}",
                      traceback.format_exc(), (operation.split(" ", 1)[0], type(error).__name__, frame))
            return False, None
        elapsed = time.perf_counter() - started
        if elapsed > self.result.slowest[0]:
            self.result.slowest = (elapsed, operation, self.description)
        if elapsed > self.bound:
            self._slow(operation, elapsed, f"took {elapsed:.2f} s > bound {self.bound:.2f} s")
        return True, value

    def _slow(self, operation: str, elapsed: float, detail: str) -> None:
        self.result.slowest = max(self.result.slowest, (elapsed, operation, self.description))
        self.fail("slow", operation, detail, "", (operation, "slow"))

    def fail(self, kind: str, operation: str, detail: str, trace: str = "", signature: tuple[str, ...] = ()) -> None:
        self.result.failures.append(Failure(kind, operation, detail, self.description, trace,
                                            signature or (operation, kind)))


# ---- positions -------------------------------------------------------------------------------


def random_positions(rng: random.Random, document: Document, count: int) -> list[Position]:
    """Positions anywhere (on names, between them, past the end of a line or the file, negative)."""
    found = []
    lines = document.line_count
    for _ in range(count):
        roll = rng.random()
        line = rng.randrange(lines) if lines else 0
        if roll < 0.03:
            found.append(Position(lines + rng.randrange(3), rng.randrange(5)))
            continue
        if roll < 0.05:
            found.append(Position(line, -rng.randrange(1, 3)))
            continue
        text = document.line(line)
        if len(text) > 100_000:  # a random column of a huge line, without scanning all of it for refs
            found.append(Position(line, rng.randrange(len(text) + 2)))
            continue
        refs = document.refs_on_line(line) if roll < 0.7 else ()
        if refs:
            ref = rng.choice(refs)
            found.append(Position(line, rng.choice((ref.start, ref.end, ref.start - 1, (ref.start + ref.end) // 2))))
        else:
            found.append(Position(line, utf16_column(text, rng.randrange(len(text) + 1)) + rng.choice((0, 0, 0, 3))))
    return found


def dense_positions(document: Document, limit: int = 4000) -> list[Position]:
    """Every name's start, middle and end, and each line's ends (for minimizing: no randomness)."""
    found: list[Position] = []
    for line in range(document.line_count):
        text = document.line(line)
        found.extend((Position(line, 0), Position(line, utf16_column(text, len(text)) + 1)))
        if len(text) > 100_000:
            continue
        for ref in document.refs_on_line(line):
            found.extend({Position(line, c) for c in (ref.start - 1, ref.start, (ref.start + ref.end) // 2, ref.end)})
        for column in range(0, min(len(text), 400), 5):
            found.append(Position(line, utf16_column(text, column)))
        if len(found) > limit:
            break
    return found[:limit] + [Position(document.line_count, 0), Position(0, -1)]


# ---- edits ---------------------------------------------------------------------------------------


def _clamped(lines: list[str], line: int, index: int) -> tuple[int, int]:
    if line < 0:
        return 0, 0
    if line >= len(lines):
        return len(lines) - 1, len(lines[-1])
    return line, min(max(index, 0), len(lines[line]))


def random_edit(rng: random.Random, document: Document) -> tuple[Range, str, str]:
    """An edit (UTF-16 range, new text) and the text the document must have after it."""
    text = document.text
    lines = text.split("\n")
    start_line = rng.randrange(len(lines) + 1) if rng.random() < 0.05 else rng.randrange(len(lines))
    end_line = start_line + rng.choice((0, 0, 0, 1, 2, 7))

    def index_on(line: int) -> int:
        if line >= len(lines):
            return rng.randrange(5)
        return rng.randrange(len(lines[line]) + 1) if rng.random() < 0.95 else len(lines[line]) + 4

    start_index, end_index = index_on(start_line), index_on(end_line)
    a = _clamped(lines, start_line, start_index)
    b = _clamped(lines, end_line, end_index)
    if b < a:
        a, b = b, a

    def offset(at: tuple[int, int]) -> int:
        return sum(len(line) + 1 for line in lines[: at[0]]) + at[1]

    roll = rng.random()
    if roll < 0.4:
        new_text = rng.choice(EDIT_SNIPPETS)
    elif roll < 0.8 and text:
        begin = rng.randrange(len(text))
        new_text = text[begin : begin + rng.choice((1, 10, 80, 400))]
    else:
        new_text = "".join(rng.choice("%{}()[]=,: \n\tabc01😀é\"") for _ in range(rng.randrange(1, 12)))
    expected = text[: offset(a)] + new_text + text[offset(b) :]

    def utf16(line: int, index: int) -> Position:
        if line >= len(lines) or index > len(lines[line]):
            return Position(line, 1 << 20 if line < len(lines) else index)  # past the end: clamped by the document
        return Position(line, utf16_column(lines[line], index))

    edit = Range(utf16(start_line, start_index), utf16(end_line, end_index))
    if rng.random() < 0.5:
        edit = Range(edit.end, edit.start)  # the document sorts them
    return edit, new_text, expected


# ---- invariants of answers -----------------------------------------------------------------------


def _range_ok(value: Range) -> bool:
    return value.start.line >= 0 and value.start.character >= 0 and value.end.line >= 0 and value.end.character >= 0 \
        and (value.start.line, value.start.character) <= (value.end.line, value.end.character)


# ---- one mutant ------------------------------------------------------------------------------------


def run_mutant(files: dict[str, bytes], tmp_dir: Path | str, *, description: str = "", seed: int = 0,
               positions: int = 5, limits: Limits | None = None, run_cli: bool = False,
               dense: bool = False, operations: frozenset[str] | None = None) -> Result:
    """Writes `files` into a fresh folder under `tmp_dir`, then loads, checks and queries them.

    `positions` random positions per document (or `dense`: many fixed ones, for minimizing);
    `operations`, when given, limits the calls to those operations (for minimizing).
    """
    rng = random.Random(seed)
    limits = limits or Limits()
    size = sum(len(data) for data in files.values())
    runner = _Runner(description or ", ".join(sorted(files)), size, limits)
    folder = Path(tmp_dir) / f"case-{seed}-{time.monotonic_ns()}"
    folder.mkdir(parents=True)
    try:
        for name, data in files.items():
            (folder / name).write_bytes(data)
        _exercise(runner, folder, rng, positions, dense, operations)
        if run_cli and (operations is None or operations & {"cli check", "cli memory"}):
            _run_cli(runner, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return runner.result


def _wanted(operations: frozenset[str] | None, name: str) -> bool:
    return operations is None or name in operations


def _exercise(runner: _Runner, folder: Path, rng: random.Random, positions: int, dense: bool,
              operations: frozenset[str] | None) -> None:
    ok, loaded = runner.call("load", load, [str(folder)])
    if not ok:
        return
    modules: list[ModuleDump] = loaded.modules
    for module in modules:
        if _wanted(operations, "check_module"):
            ok, problems = runner.call("check_module", check_module, module)
            if ok:
                _check_problems(runner, module, problems)
        if _wanted(operations, "memory_report"):
            ok, report = runner.call("memory_report", memory_report, module)
            if ok and report is not None:
                runner.call("timeline_svg", timeline_svg, report)
        for document in module.all_documents():
            _query_document(runner, module, document, rng, positions, dense, operations)
            _whole_document_features(runner, module, document, operations)
    if _wanted(operations, "workspace_symbols"):
        for query in ("", "a", "add", "%", "😀", rng.choice(("fusion", "param", "0", ".", "allocation"))):
            runner.call(f"workspace_symbols({query!r})", workspace_symbols, modules, query)
    if _wanted(operations, "glance"):
        for module in modules:
            _check_glance(runner, module, rng, positions)
    if _wanted(operations, "stage_view"):
        for module in modules:
            _check_stage_view(runner, module, rng, positions)


def _check_stage_view(runner: _Runner, module: ModuleDump, rng: random.Random, positions: int) -> None:
    """An HLO stage written after buffer assignment (TPU's after_codegen) with the companions it borrows,
    as the server builds it: checked (its own file only), hovered, hinted and lensed."""
    hlo = module.hlo_document
    if hlo is None or module.buffer_assignment_documents or not hlo.source:
        return
    documents = {kind: document for kind, path in module_files(hlo.source).items() if kind is not hlo.kind
                 if (document := read_document(path, kind)[0]) is not None}
    if not documents:
        return
    view = ModuleDump(module.stem, {hlo.kind: hlo, **documents}, frozenset(documents))
    ok, problems = runner.call("stage_view check_module", check_module, view.checked_part())
    if ok and any(problem.source != hlo.source for problem in problems):
        runner.fail("invalid", "stage_view check_module", "a problem outside the stage's own file")
    for position in random_positions(rng, hlo, positions):
        ok, target = runner.call("stage_view target_at", target_at, hlo, position)
        if ok and target is not None:
            runner.call("stage_view hover", hover, view, target)
    runner.call("stage_view inlay_hints", inlay_hints, view, hlo, Range(Position(0, 0), Position(hlo.line_count, 0)))
    runner.call("stage_view code_lenses", code_lenses, view, hlo)


def _check_glance(runner: _Runner, module: ModuleDump, rng: random.Random, positions: int) -> None:
    """A glance at the module's files as read from disk answers hovers on instructions and
    computations as the whole module does, or not at all."""
    whole = module.hlo_document
    if whole is None or not whole.source:
        return
    fresh = {kind: document for kind, path in module_files(whole.source).items()
             if (document := read_document(path, kind)[0]) is not None}
    ok, glance = runner.call("glance", ModuleGlance.of, module.stem, fresh)
    if not ok or glance is None:
        return
    if set(fresh) != set(module.documents):  # a TPU stage with the companions it borrows, as the server reads it
        module = ModuleDump(module.stem, {kind: document for kind, path in module_files(whole.source).items()
                                          if (document := read_document(path, kind)[0]) is not None})
    cursors = [document for kind, document in module.documents.items() if kind in ModuleGlance.CURSOR_KINDS]
    for document in cursors:
        for position in random_positions(rng, document, positions):
            _check_glanced_hover(runner, module, glance, document, position)
            _check_glanced_jump(runner, module, glance, document, position)


def _check_glanced_hover(runner: _Runner, module: ModuleDump, glance: ModuleGlance, document: Document,
                         position: Position) -> None:
    where = f"glance {Path(document.source).name}@{position.line}:{position.character}"
    ok, line = runner.call(f"{where} line", glance.line_document, position.line, document.source)
    target = target_at(line, position) if ok and line is not None else None
    ok, surely = (runner.call(f"{where} sure", glance.reads_as_whole, line, position.line) if line is not None
                  else (True, False))
    if ok and surely and target != target_at(document, position):
        runner.fail("glance-mismatch", where, f"the line said to read as in its file names {target}")
    if target is None or target.kind not in ModuleGlance.HOVER_KINDS:
        return
    ok, sparse = runner.call(f"{where} module", glance.module_at, line, position.line, target.kind, target.name)
    if not ok or sparse is None:
        return
    ok, glanced = runner.call(f"{where} hover", hover, sparse, target)
    if ok and target.kind in ("value", "frame", "allocation") and glanced is None:
        return  # the server then waits for the module
    if ok and (target != target_at(document, position) or glanced != hover(module, target)):
        runner.fail("glance-mismatch", where, f"glanced {target} hover {glanced!r}")


def _check_glanced_jump(runner: _Runner, module: ModuleDump, glance: ModuleGlance, document: Document,
                        position: Position) -> None:
    """A jump the server answers from a glance (on an instruction, a computation or a stack frame) goes
    where the whole module's goes."""
    where = f"glance jump {Path(document.source).name}@{position.line}:{position.character}"
    ok, line = runner.call(f"{where} line", glance.line_document, position.line, document.source)
    target = target_at(line, position) if ok and line is not None else None
    if target is None or target.kind not in DEFINED_KINDS:  # what the line reads as: _check_glanced_hover
        return
    ok, sparse = runner.call(f"{where} module", glance.module_about, target.kind, target.name, False)
    if not ok or sparse is None:
        return
    ok, jumped = runner.call(f"{where} definition", definition, sparse, target)
    if ok and jumped and (target != target_at(document, position) or jumped != definition(module, target)):
        runner.fail("glance-mismatch", where, f"glanced {target} definition {jumped!r}")


def _check_problems(runner: _Runner, module: ModuleDump, problems: list) -> None:
    for problem in problems:
        if not _range_ok(problem.range):
            runner.fail("invalid", "check_module", f"problem with a bad range: {problem}")
            return
        if problem.code == "internal-error":
            runner.fail("crash", "check_module", problem.message, "", ("check_module", problem.message.split(":")[0],
                                                                       problem.message.rsplit(" at ", 1)[-1]))


def _query_document(runner: _Runner, module: ModuleDump, document: Document, rng: random.Random, positions: int,
                    dense: bool, operations: frozenset[str] | None) -> None:
    if _wanted(operations, "document_symbols"):
        runner.call("document_symbols", document_symbols, module, document)
    if _wanted(operations, "folding_ranges"):
        ok, folds = runner.call("folding_ranges", folding_ranges, document)
        if ok and any(fold.start_line < 0 or fold.end_line >= max(document.line_count, 1) for fold in folds):
            runner.fail("invalid", "folding_ranges", f"a fold outside the document's {document.line_count} lines")
    chosen = dense_positions(document) if dense else random_positions(rng, document, positions)
    name = Path(document.source).name
    for position in chosen:
        where = f"{name}@{position.line}:{position.character}"
        if not _wanted(operations, "target_at") and operations is not None and not (
                operations & {"definition", "references", "highlights", "hover"}):
            break
        ok, target = runner.call(f"target_at {where}", target_at, document, position)
        if not ok or target is None:
            continue
        for operation, function, args in (
            ("definition", definition, (module, target)),
            ("references", references, (module, target, True)),
            ("highlights", highlights, (module, target)),
            ("hover", hover, (module, target)),
        ):
            if _wanted(operations, operation):
                runner.call(f"{operation} {where} on {target.kind} {target.name[:40]!r}", function, *args)
        if _wanted(operations, "call_hierarchy"):
            _call_hierarchy(runner, module, target, where)
    if _wanted(operations, "apply_edit") and document.line_count:
        _check_edit(runner, document, rng)


def _whole_document_features(runner: _Runner, module: ModuleDump, document: Document,
                             operations: frozenset[str] | None) -> None:
    """The features an editor asks for a whole document (or all of its visible lines)."""
    everything = Range(Position(0, 0), Position(document.line_count, 0))
    for operation, function, args in (
        ("inlay_hints", inlay_hints, (module, document, everything)),
        ("code_lenses", code_lenses, (module, document)),
        ("document_links", document_links, (module, document, lambda printed, beside: None)),
        ("semantic_tokens", lambda d: list(semantic_tokens(d)), (document,)),
    ):
        if _wanted(operations, operation):
            runner.call(operation, function, *args)
    if _wanted(operations, "semantic_tokens"):
        _check_first_lines(runner, document)


def _check_first_lines(runner: _Runner, document: Document) -> None:
    """The first screen's tokens from the first lines of the unscanned text (as the server gives them
    while a file is scanned) are the scanned document's."""
    ok, top = runner.call("first_lines", Document(document.text, document.kind, document.source).first_lines, 61)
    if not ok or top is None:
        return
    ok, early = runner.call("semantic_tokens(first_lines)", lambda: list(semantic_tokens(top, 0, 60)))
    if ok and early != list(semantic_tokens(document, 0, 60)):
        runner.fail("early-mismatch", "first_lines", "the first lines' tokens differ from the scanned document's",
                    signature=("first_lines", "tokens"))


def _call_hierarchy(runner: _Runner, module: ModuleDump, target: Any, where: str) -> None:
    ok, items = runner.call(f"prepare_call_hierarchy {where}", prepare_call_hierarchy, module, target)
    for item in (items or [])[:3] if ok else []:
        runner.call(f"incoming_calls {where}", incoming_calls, module, item.name)
        runner.call(f"outgoing_calls {where}", outgoing_calls, module, item.name)


def _check_edit(runner: _Runner, document: Document, rng: random.Random) -> None:
    edit, new_text, expected = random_edit(rng, document)
    ok, edited = runner.call("apply_edit", document.apply_edit, edit, new_text)
    if not ok:
        return
    span = f"{edit.start.line}:{edit.start.character}-{edit.end.line}:{edit.end.character}"
    what = f"apply_edit({span}, {new_text[:40]!r})"
    if edited.text != expected:
        runner.fail("edit-mismatch", "apply_edit", f"{what}: text differs from the reference edit",
                    signature=("apply_edit", "text"))
        return
    ok, fresh = runner.call("Document(fresh)", Document, expected, document.kind, document.source)
    if ok and document_state_signature(edited) != document_state_signature(fresh):
        runner.fail("edit-mismatch", "apply_edit", f"{what}: index differs from a fresh Document",
                    signature=("apply_edit", "index"))
        return
    # The folds and outline an edit keeps from the version before (asked for before the edit).
    for name, answer in (("folding_ranges", folding_ranges), ("outline", lambda d: bounded_outline(d, 50))):
        kept, after = runner.call(f"{name} after the edit", answer, edited)
        made, again = runner.call(f"{name} of a fresh Document", answer, fresh)
        if ok and kept and made and after != again:
            runner.fail("edit-mismatch", name, f"{what}: {name} differs from a fresh Document's",
                        signature=(name, "edit"))


def _run_cli(runner: _Runner, folder: Path) -> None:
    for command in ("check", "memory"):
        out, err = io.StringIO(), io.StringIO()

        def invoke(command: str = command, out: io.StringIO = out, err: io.StringIO = err) -> int:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                return cli.main([command, str(folder)])

        ok, code = runner.call(f"cli {command}", invoke)
        if not ok:
            continue
        output = out.getvalue() + err.getvalue()
        if code not in (0, 1) or "Traceback" in output:
            runner.fail("cli", f"cli {command}", f"exit code {code}; output tail: {output[-500:]!r}",
                        signature=(f"cli {command}", str(code)))


# ---- minimizing ----------------------------------------------------------------------------------------


def _operations_of(failure: Failure) -> frozenset[str]:
    name = failure.operation.split(" ", 1)[0]
    if failure.operation.startswith("cli "):
        return frozenset({failure.operation})
    if name.startswith("workspace_symbols"):
        return frozenset({"workspace_symbols"})
    if name in ("target_at", "definition", "references", "highlights", "hover"):
        return frozenset({"target_at", name})
    if name in ("prepare_call_hierarchy", "incoming_calls", "outgoing_calls"):
        return frozenset({"target_at", "call_hierarchy"})
    if name == "timeline_svg":
        return frozenset({"memory_report"})
    return frozenset({name})


def still_fails(files: dict[str, bytes], failure: Failure, tmp_dir: Path | str, limits: Limits | None = None) -> bool:
    """Whether `files` fail the way `failure` did (same operation, exception and place), trying many positions."""
    operations = _operations_of(failure)
    dense = bool(operations & {"target_at", "apply_edit"}) or failure.kind == "edit-mismatch"
    for seed in range(3 if failure.operation == "apply_edit" else 1):
        result = run_mutant(files, tmp_dir, seed=seed, positions=40, limits=limits, dense=dense and seed == 0,
                            operations=operations, run_cli=failure.operation.startswith("cli"))
        if any(_same(found, failure) for found in result.failures):
            return True
    return False


def _same(found: Failure, failure: Failure) -> bool:
    if found.kind != failure.kind:
        return False
    if failure.kind == "slow":
        return found.operation.split(" ", 1)[0] == failure.operation.split(" ", 1)[0]
    return found.signature == failure.signature or found.signature[1:] == failure.signature[1:]


def _ddmin(items: list[Any], fails: Callable[[list[Any]], bool], deadline: float) -> list[Any]:
    """Delta debugging: the smallest sub-list (1-minimal, within the deadline) that still fails."""
    parts = 2
    while len(items) >= 2 and time.monotonic() < deadline:
        size = max(1, len(items) // parts)
        reduced = False
        for start in range(0, len(items), size):
            candidate = items[:start] + items[start + size :]
            if candidate and fails(candidate):
                items, parts, reduced = candidate, max(parts - 1, 2), True
                break
            if time.monotonic() > deadline:
                return items
        if not reduced:
            if size == 1:
                break
            parts = min(len(items), parts * 2)
    return items


def minimize(files: dict[str, bytes], failure: Failure, tmp_dir: Path | str, seconds: float = 60.0,
             limits: Limits | None = None) -> dict[str, bytes]:
    """The smallest files (fewest companions, lines, then bytes per line) that still fail like `failure`."""
    deadline = time.monotonic() + seconds
    current = dict(files)

    def fails(candidate: dict[str, bytes]) -> bool:
        return still_fails(candidate, failure, tmp_dir, limits)

    for name in sorted(current):  # companions the failure does not need
        if len(current) > 1 and time.monotonic() < deadline:
            candidate = {k: v for k, v in current.items() if k != name}
            if fails(candidate):
                current = candidate
    for name in sorted(current):  # lines, then the bytes of what is left
        def with_lines(lines: list[bytes], name: str = name) -> bool:
            return fails({**current, name: b"\n".join(lines)})

        lines = _ddmin(current[name].split(b"\n"), with_lines, deadline)
        current[name] = b"\n".join(lines)

        def with_bytes(chunks: list[bytes], name: str = name) -> bool:
            return fails({**current, name: b"".join(chunks)})

        data = current[name]
        if len(data) < 20_000:
            current[name] = b"".join(_ddmin([bytes([b]) for b in data], with_bytes, deadline))
    return current


# ---- known bugs ------------------------------------------------------------------------------------------
# Failures already reported and not yet fixed, as (name, predicate): the fuzz tests count them but do not
# fail on them, so that they still catch anything new. Every bug found so far is fixed and has its
# minimized input in tests/fuzz/test_regressions.py, so the list is empty.
KNOWN_BUGS: tuple[tuple[str, Callable[[Failure], bool]], ...] = ()


def known_bug(failure: Failure) -> str | None:
    return next((name for name, matches in KNOWN_BUGS if matches(failure)), None)


def distinct(failures: list[Failure]) -> list[Failure]:
    """One failure per (kind, exception, place): the first seen."""
    seen: dict[tuple[str, ...], Failure] = {}
    for failure in failures:
        seen.setdefault((failure.kind, *failure.signature[1:]), failure)
    return list(seen.values())

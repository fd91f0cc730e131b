"""Random editor sessions against the real server, and the same final texts opened in a fresh one.

A session opens a module's HLO file, then, step by step, edits it or its open companions the way a
user types (characters, deleted spans, pasted lines, non-ASCII text, broken and repaired brackets,
lines and blocks), asks what an editor asks at random places (some requests cancelled at once),
opens and closes companions, and now and then pauses while a check runs. Its steps are drawn from a
seed before it runs, as fractions resolved against the text of the moment, so that any subset of
them replays: `minimized` drops the steps a difference does not need.

At the end the diagnostics it published for every file of the module, and hovers and definitions at
sampled places, must equal those of a fresh server that opens the final texts.
"""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from helpers import COMBINED_MLP, DATA, SPLIT_MLP, TPU_MATMUL
from hlo_lsp.model.dump_module import companion_paths, module_stem

# The modules sessions edit: small ones of each print style and producer (a session is drawn from its seed).
STEMS = [SPLIT_MLP, COMBINED_MLP, TPU_MATMUL,
         DATA / "jax-0.10.2" / "tiny_add" / "module_0000.jit__lambda.cpu_after_optimizations"]
DEBOUNCE_SECONDS = 0.3  # the server's (lsp/diagnostics.py)
_NAME = re.compile(r"[%\w][\w.\-]*")
SILENCE_SECONDS = 0.5  # no diagnostics for this long after the last change: the checks are done
SETTLE_TIMEOUT = 60.0
PIECES = ["x", "(", ")", "{", "}", ",", "%a.1", " ", "=", "\n", "é", "λ", "😀", "\u00a0", "// note",
          ' op_name="', "ROOT ", "f32[4]{0}", "\n}\n", "\n  %c.1 = f32[] constant(0)\n", "allocation 0: size 4:\n",
          " value: <1 x @0> (size=4,offset=0): f32[]\n"]
EDITS = ("insert", "delete", "paste", "lines", "break", "repair", "newline")
REQUESTS = (types.TEXT_DOCUMENT_HOVER, types.TEXT_DOCUMENT_DEFINITION, types.TEXT_DOCUMENT_REFERENCES,
            types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
            types.TEXT_DOCUMENT_FOLDING_RANGE, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
            types.TEXT_DOCUMENT_INLAY_HINT, types.TEXT_DOCUMENT_CODE_LENS, types.TEXT_DOCUMENT_DOCUMENT_LINK)


@dataclass(frozen=True)
class Step:
    action: str  # an edit kind, "request", "open", "close" or "wait"
    file: int  # which file of the module (0: the HLO file)
    numbers: tuple[float, ...]  # fractions the step resolves against the text of the moment
    detail: str = ""  # a request's method, or the piece an insert types

    def __str__(self) -> str:
        numbers = ", ".join(f"{number:.3f}" for number in self.numbers)
        return f"Step({self.action!r}, {self.file}, ({numbers},), {self.detail!r})"


def module_files(stem: Path) -> list[Path]:
    """The module's files on disk, the HLO file first."""
    found = [Path(paths[0]) for kind, paths in companion_paths(str(stem)).items() if Path(paths[0]).is_file()]
    return sorted(found, key=lambda path: (module_stem(str(path)) + ".txt" != str(path), path.name))


def draw_steps(rng: random.Random, files: int, count: int) -> list[Step]:
    steps = []
    for _ in range(count):
        roll = rng.random()
        numbers = (rng.random(), rng.random(), rng.random())
        file = 0 if rng.random() < 0.6 else rng.randrange(files)
        if roll < 0.5:
            action = rng.choice(EDITS)
            steps.append(Step(action, file, numbers, rng.choice(PIECES) if action == "insert" else ""))
        elif roll < 0.8:
            cancel = "cancel" if rng.random() < 0.2 else ""
            steps.append(Step("request", file, numbers, f"{rng.choice(REQUESTS)} {cancel}".strip()))
        elif roll < 0.92 and files > 1:
            steps.append(Step(rng.choice(("open", "close")), rng.randrange(1, files), numbers))
        else:
            steps.append(Step("wait", 0, (rng.random() * 0.5,)))
    return steps


# ---- text positions in UTF-16, as a client counts them ------------------------------------------------


def position(text: str, index: int) -> types.Position:
    before = text[:index]
    line = before.count("\n")
    start = before.rfind("\n") + 1
    return types.Position(line, len(text[start:index].encode("utf-16-le")) // 2)


def offset_at(text: str, line_fraction: float, column_fraction: float) -> int:
    """The offset of a place in `text`, a line and a column given as fractions."""
    lines = text.split("\n")
    line = min(int(line_fraction * len(lines)), len(lines) - 1)
    start = sum(len(each) + 1 for each in lines[:line])
    return start + min(int(column_fraction * (len(lines[line]) + 1)), len(lines[line]))


def line_span(text: str, line: int) -> tuple[int, int]:
    lines = text.split("\n")
    start = sum(len(each) + 1 for each in lines[:line])
    return start, start + len(lines[line])


def resolve_edit(step: Step, text: str, original: str) -> tuple[int, int, str] | None:
    """(start, end, new text) of an edit step against `text` (None: nothing to do)."""
    lines = text.split("\n")
    a, b, c = step.numbers
    pick = min(int(a * len(lines)), len(lines) - 1)
    if step.action == "insert":
        at = offset_at(text, a, b)
        return at, at, step.detail
    if step.action == "delete":
        at = offset_at(text, a, b)
        return at, min(at + 1 + int(c * 20), len(text)), ""
    if step.action == "newline":
        at = offset_at(text, a, b)
        return at, at, "\n"
    if step.action == "paste":
        source = lines[min(int(c * len(lines)), len(lines) - 1)]
        start, end = line_span(text, pick)
        return start, end, source
    if step.action == "lines":
        count = 1 + int(b * 5)
        start = line_span(text, pick)[0]
        end = line_span(text, min(pick + count, len(lines)) - 1)[1]
        block = text[start:end]
        return (start, min(end + 1, len(text)), "") if c < 0.5 else (start, start, block + "\n")
    if step.action == "break":
        braces = [number for number, line in enumerate(lines) if line.rstrip().endswith(("{", "}"))]
        if not braces:
            return None
        number = braces[min(int(b * len(braces)), len(braces) - 1)]
        start, end = line_span(text, number)
        content = lines[number].rstrip()
        return start, end, content[:-1] if c < 0.5 else content[:-1] + ("]" if content.endswith("}") else "}")
    if step.action == "repair":
        if text == original:
            return None
        old = original.split("\n")
        if len(old) != len(lines):
            return 0, len(text), original
        changed = [number for number, line in enumerate(lines) if line != old[number]]
        number = changed[min(int(b * len(changed)), len(changed) - 1)]
        start, end = line_span(text, number)
        return start, end, old[number]
    raise ValueError(step.action)


# ---- a server as an editor drives it ---------------------------------------------------------------------


@dataclass
class Editor:
    """A client connected to a fresh server, and what it has open."""

    client: LanguageClient
    texts: dict[Path, str] = field(default_factory=dict)
    versions: dict[Path, int] = field(default_factory=dict)
    published: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    published_at: dict[str, float] = field(default_factory=dict)
    last_publish: float = 0.0
    last_change: float = 0.0
    requests: int = 0

    @classmethod
    async def start(cls, root: Path) -> Editor:
        client = make_test_lsp_client()
        editor = cls(client)

        def publish(params: types.PublishDiagnosticsParams) -> None:
            editor.published[params.uri] = list(params.diagnostics)
            editor.last_publish = editor.published_at[params.uri] = time.monotonic()

        client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish  # timed, unlike the default

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            """The server's file watchers: accepted."""

        await client.start_io(sys.executable, "-m", "hlo_lsp")
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri()))
        return editor

    async def stop(self) -> None:
        await self.client.shutdown_session()

    def open(self, path: Path, text: str | None = None) -> None:
        if path in self.texts:
            return
        self.texts[path] = path.read_text() if text is None else text
        self.versions[path] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            path.as_uri(), "hlo", 1, self.texts[path])))
        self.last_change = time.monotonic()

    def close(self, path: Path) -> None:
        if path not in self.texts:
            return
        del self.texts[path]
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(
            path.as_uri())))
        self.last_change = time.monotonic()

    def edit(self, path: Path, start: int, end: int, new: str) -> None:
        text = self.texts[path]
        change = types.TextDocumentContentChangePartial(
            range=types.Range(position(text, start), position(text, end)), text=new)
        self.texts[path] = text[:start] + new + text[end:]
        self.versions[path] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=self.versions[path], uri=path.as_uri()), [change]))
        self.last_change = time.monotonic()

    def request(self, method: str, path: Path, offset: int, cancel: bool) -> asyncio.Future[Any]:
        text, uri = self.texts[path], types.TextDocumentIdentifier(path.as_uri())
        at = position(text, offset)
        lines = text.count("\n")
        params: Any = {
            types.TEXT_DOCUMENT_HOVER: lambda: types.HoverParams(text_document=uri, position=at),
            types.TEXT_DOCUMENT_DEFINITION: lambda: types.DefinitionParams(text_document=uri, position=at),
            types.TEXT_DOCUMENT_REFERENCES: lambda: types.ReferenceParams(
                text_document=uri, position=at, context=types.ReferenceContext(include_declaration=cancel)),
            types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT: lambda: types.DocumentHighlightParams(text_document=uri,
                                                                                          position=at),
            types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: lambda: types.DocumentSymbolParams(text_document=uri),
            types.TEXT_DOCUMENT_FOLDING_RANGE: lambda: types.FoldingRangeParams(text_document=uri),
            types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL: lambda: types.SemanticTokensParams(text_document=uri),
            types.TEXT_DOCUMENT_INLAY_HINT: lambda: types.InlayHintParams(text_document=uri, range=types.Range(
                types.Position(at.line, 0), types.Position(min(at.line + 40, lines), 0))),
            types.TEXT_DOCUMENT_CODE_LENS: lambda: types.CodeLensParams(text_document=uri),
            types.TEXT_DOCUMENT_DOCUMENT_LINK: lambda: types.DocumentLinkParams(text_document=uri),
        }[method]()
        self.requests += 1
        request_id = f"r{self.requests}"
        future = asyncio.wrap_future(self.client.protocol.send_request(method, params, msg_id=request_id))
        if cancel:
            self.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
        return future

    async def close_all(self) -> None:
        """Closes every open file (what the server then clears is of files no later session reads)."""
        for path in list(self.texts):
            self.close(path)
        self.published.clear()

    async def settled(self) -> None:
        """Waits until the checks of every change are published: every open file got diagnostics after the
        last change (a check that outlasts the silence on a loaded machine is waited for), then a silence
        after the debounce."""
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < deadline:
            now = time.monotonic()
            quiet = now - max(self.last_publish, self.last_change + DEBOUNCE_SECONDS)
            if quiet >= SILENCE_SECONDS and not self.unpublished():
                return
            await asyncio.sleep(0.1)
        raise TimeoutError(f"the server kept publishing diagnostics, or never published {self.unpublished()}")

    def unpublished(self) -> list[str]:
        """The open files whose diagnostics were not published since the last change."""
        return [path.name for path in self.texts if self.published_at.get(path.as_uri(), 0.0) < self.last_change]


def diagnostics_key(diagnostic: types.Diagnostic) -> tuple[object, ...]:
    start, end = diagnostic.range.start, diagnostic.range.end
    return (start.line, start.character, end.line, end.character, diagnostic.severity, diagnostic.code,
            diagnostic.message)


# ---- a session, and the same final texts in a fresh server ------------------------------------------------


@dataclass
class Outcome:
    diagnostics: dict[str, list[tuple[object, ...]]]
    answers: list[tuple[str, object]]


@dataclass
class Session:
    stem: Path
    steps: list[Step]
    samples: int = 6
    seed: int = 0

    @property
    def files(self) -> list[Path]:
        return module_files(self.stem)

    async def run(self) -> tuple[Outcome, Outcome]:
        """(what the edited session ends with, what a fresh server says of the same final texts), each
        server started for it."""
        session = await Editor.start(self.stem.parent)
        try:
            texts, edited = await self.edit(session)
        finally:
            await session.stop()
        fresh = await Editor.start(self.stem.parent)
        try:
            return edited, await self.reopen(fresh, texts)
        finally:
            await fresh.stop()

    async def edit(self, session: Editor) -> tuple[dict[Path, str], Outcome]:
        """Plays the steps in `session`; the final texts of the files left open, and what it says of them.
        Closes what it opened."""
        files, originals = self.files, {path: path.read_text() for path in self.files}
        session.open(files[0])
        opened = [files[0]]
        pending: list[asyncio.Future[Any]] = []
        for step in self.steps:
            await self._play(session, step, files, originals, opened, pending)
        await _answered(pending)
        await session.settled()
        texts = {path: session.texts[path] for path in opened if path in session.texts}
        outcome = await self._outcome(session, texts)
        await session.close_all()
        return texts, outcome

    async def reopen(self, fresh: Editor, texts: dict[Path, str]) -> Outcome:
        """What `fresh`, which never saw these files, says of the final texts opened in order."""
        for path, text in texts.items():
            fresh.open(path, text)
        await fresh.settled()
        outcome = await self._outcome(fresh, texts)
        await fresh.close_all()
        return outcome

    async def _play(self, editor: Editor, step: Step, files: list[Path], originals: dict[Path, str],
                    opened: list[Path], pending: list[asyncio.Future[Any]]) -> None:
        path = files[step.file % len(files)]
        if step.action == "wait":
            await asyncio.sleep(step.numbers[0])
        elif step.action == "open":
            if path not in editor.texts:
                editor.open(path)
                opened.append(path)
        elif step.action == "close":
            if path in editor.texts and path != files[0]:
                editor.close(path)
                opened.remove(path)
        elif path not in editor.texts:
            return
        elif step.action == "request":
            method, _, cancel = step.detail.partition(" ")
            offset = offset_at(editor.texts[path], step.numbers[0], step.numbers[1])
            pending.append(editor.request(method, path, offset, bool(cancel)))
        else:
            edit = resolve_edit(step, editor.texts[path], originals[path])
            if edit is not None:
                editor.edit(path, *edit)

    async def _outcome(self, editor: Editor, texts: dict[Path, str]) -> Outcome:
        rng = random.Random(self.seed)
        answers: list[tuple[str, object]] = []
        for path in sorted(texts):
            names = [match.start() + 1 for match in _NAME.finditer(texts[path])]
            for number in range(self.samples):  # half on names, half anywhere
                offset = rng.choice(names) if names and number % 2 else offset_at(texts[path], rng.random(),
                                                                                   rng.random())
                for method in (types.TEXT_DOCUMENT_HOVER, types.TEXT_DOCUMENT_DEFINITION):
                    answer = await editor.request(method, path, offset, False)
                    answers.append((f"{method} {path.name} {position(texts[path], offset)}", _plain(answer)))
        diagnostics = {uri: sorted(diagnostics_key(d) for d in found) for uri, found in editor.published.items()
                       if module_stem(uri.rsplit("/", 1)[-1]) == self.stem.name}
        return Outcome(diagnostics, answers)


async def _answered(pending: list[asyncio.Future[Any]]) -> None:
    """Every request of the session answered (or cancelled); none may fail otherwise."""
    for future in pending:
        try:
            await asyncio.wait_for(future, 60)
        except JsonRpcException as error:
            if "cancel" not in str(error).lower():
                raise


def _plain(answer: Any) -> object:
    if isinstance(answer, types.Hover):
        return (answer.contents.value if isinstance(answer.contents, types.MarkupContent) else str(answer.contents),
                answer.range)
    return answer


def differences(edited: Outcome, fresh: Outcome) -> list[str]:
    found = []
    for uri in sorted(set(edited.diagnostics) | set(fresh.diagnostics)):
        mine, theirs = edited.diagnostics.get(uri, []), fresh.diagnostics.get(uri, [])
        if mine != theirs:
            name = uri.rsplit("/", 1)[-1]
            found.append(f"diagnostics of {name}: edited session {sorted(set(mine) - set(theirs))[:3]}, "
                         f"fresh server {sorted(set(theirs) - set(mine))[:3]}")
    for (asked, mine), (_, theirs) in zip(edited.answers, fresh.answers):
        if mine != theirs:
            found.append(f"{asked}: edited session {mine!r:.300}, fresh server {theirs!r:.300}")
    return found


def drawn_session(seed: int, steps: int, stems: list[Path] = STEMS) -> Session:
    rng = random.Random(seed)
    stem = rng.choice(stems)
    return Session(stem, draw_steps(rng, len(module_files(stem)), steps), seed=seed)


def in_folder(session: Session, folder: Path) -> Session:
    """The session on copies of its module's files in `folder` (a server that lives on across sessions
    sees each session's files for the first time)."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in session.files:
        shutil.copyfile(path, folder / path.name)
    return Session(folder / session.stem.name, session.steps, session.samples, session.seed)


async def minimized(session: Session, fails: Callable[[Session], Awaitable[bool]]) -> Session:
    """The session with every step the failure does not need left out (one at a time, from the end)."""
    steps = list(session.steps)
    index = len(steps) - 1
    while index >= 0:
        trial = Session(session.stem, steps[:index] + steps[index + 1:], session.samples, session.seed)
        if await fails(trial):
            steps = trial.steps
        index -= 1
    return Session(session.stem, steps, session.samples, session.seed)

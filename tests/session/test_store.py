"""The document store: which files make up a module, seen from each of its files."""

from __future__ import annotations

import gc
import random
import re
import shutil
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from helpers import DATA, SPLIT_MLP, copy_module
from hlo_lsp.features.folding import folding_ranges
from hlo_lsp.features.hover_memory import peak_of
from hlo_lsp.features.semantic_tokens import semantic_tokens
from hlo_lsp.features.symbols import bounded_outline
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.session import Cursor, Session
from hlo_lsp.session import store as store_module
from hlo_lsp.session.store import DocumentStore
from hlo_lsp.text import Position, Range

OTHER = DATA / "jax-0.10.2" / "control_flow" / "module_0000.jit_f.cpu_after_optimizations"
BUFFER_FILES = {FileKind.BUFFER_ASSIGNMENT, FileKind.BUFFER_ASSIGNMENT_VALUES, FileKind.LIVE_RANGE}


def open_module(tmp_path: Path) -> tuple[DocumentStore, Path]:
    stem = copy_module(SPLIT_MLP, tmp_path)
    store = DocumentStore()
    for path in (Path(f"{stem}.txt"), Path(f"{stem}-live-range.txt")):
        store.open(str(path), path.read_text(), 1)
    return store, stem


def test_every_file_of_a_matching_module_sees_one_module(tmp_path: Path) -> None:
    store, stem = open_module(tmp_path)
    from_hlo = store.module_of(f"{stem}.txt")
    from_live_range = store.module_of(f"{stem}-live-range.txt")
    assert from_hlo is from_live_range
    assert from_hlo is not None and BUFFER_FILES | {FileKind.HLO_MODULE} <= set(from_hlo.documents)
    assert store.open_modules() == [from_hlo]


def test_files_of_another_compilation_are_left_out_of_each_side(tmp_path: Path) -> None:
    """A live-range file of another module under this module's name: the HLO file keeps its own
    text and loses the buffer assignment; the buffer-assignment files lose the HLO."""
    store, stem = open_module(tmp_path)
    replaced = Path(f"{stem}-live-range.txt")
    shutil.copyfile(Path(f"{OTHER}-live-range.txt"), replaced)
    store.open(str(replaced), replaced.read_text(), 2)

    from_hlo = store.module_of(f"{stem}.txt")
    from_live_range = store.module_of(str(replaced))
    assert from_hlo is not None and from_live_range is not None
    assert set(from_hlo.documents) == {FileKind.HLO_MODULE, FileKind.MEMORY_USAGE_REPORT}
    assert FileKind.HLO_MODULE not in from_live_range.documents
    assert set(from_live_range.documents) >= BUFFER_FILES
    assert {id(module) for module in store.open_modules()} == {id(from_hlo), id(from_live_range)}


def test_an_edit_of_the_hlo_file_keeps_the_buffer_assignment_already_read(tmp_path: Path) -> None:
    store, stem = open_module(tmp_path)
    hlo = Path(f"{stem}.txt")
    before = store.module_of(str(hlo))
    assert before is not None and before.buffer_assignment is not None and before.hlo is not None
    edit = Range(Position(0, 0), Position(0, 0))
    store.change(str(hlo), 2, edit, "")
    after = store.module_of(str(hlo))
    assert after is not None and after is not before
    assert after.buffer_assignment is before.buffer_assignment  # the companions did not change
    assert after.hlo is not before.hlo and after.hlo is not None  # the HLO file did


def test_an_edit_of_a_companion_reads_the_buffer_assignment_again(tmp_path: Path) -> None:
    store, stem = open_module(tmp_path)
    live_range = Path(f"{stem}-live-range.txt")
    before = store.module_of(str(live_range))
    assert before is not None and before.buffer_assignment is not None and before.hlo is not None
    store.change(str(live_range), 2, Range(Position(0, 0), Position(0, 0)), "")
    after = store.module_of(str(live_range))
    assert after is not None and after.buffer_assignment is not before.buffer_assignment
    assert after.hlo is before.hlo


def test_threads_asking_at_once_for_a_module_build_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server reads modules in worker threads: a hover and the check asking together get one module."""
    store, stem = open_module(tmp_path)
    built = []
    pairing = store_module._sides

    def slow_pairing(module: ModuleDump) -> tuple[ModuleDump, ModuleDump]:
        built.append(module)
        time.sleep(0.2)  # a large module: the other thread asks meanwhile
        return pairing(module)

    monkeypatch.setattr(store_module, "_sides", slow_pairing)
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(store.module_of, [f"{stem}.txt", f"{stem}-live-range.txt"]))
    assert len(built) == 1 and answers[0] is answers[1] is not None


def test_a_module_for_an_older_version_is_answered_but_not_kept(tmp_path: Path) -> None:
    """A request made before an edit is answered on the version it was made against; the store keeps
    the module of the current version."""
    store, stem = open_module(tmp_path)
    hlo = Path(f"{stem}.txt")
    older = store.document(str(hlo))
    assert older is not None
    store.change(str(hlo), 2, Range(Position(0, 0), Position(0, 0)), "// edited\n")
    current = store.module_of(str(hlo))
    assert current is not None and current.hlo_document is store.document(str(hlo))
    answered = store.module_with(older)
    assert answered.hlo_document is older and answered is not current
    assert store.module_of(str(hlo)) is current


def test_closing_the_last_file_of_a_module_lets_its_documents_and_models_go(tmp_path: Path) -> None:
    """A 40 MB module holds a gigabyte: once none of its files is open, the store keeps none of it,
    and neither does anything derived from it."""
    store, stem = open_module(tmp_path)
    hlo, live_range = Path(f"{stem}.txt"), Path(f"{stem}-live-range.txt")
    module = store.module_of(str(hlo))
    assert module is not None and module.buffer_assignment is not None and module.hlo is not None
    assert peak_of(module.hlo, module.buffer_assignment) is not None
    kept = [weakref.ref(document) for document in module.all_documents()]
    kept += [weakref.ref(module.buffer_assignment), weakref.ref(module.buffer_assignment.live_range)]
    assert len(kept) == 7  # five files, the buffer-assignment model and its live ranges
    del module
    store.close(str(hlo))
    gc.collect()
    assert all(ref() is not None for ref in kept)  # the live-range file is still open
    store.close(str(live_range))
    gc.collect()
    assert [ref() for ref in kept] == [None] * 7
    reopened = store.module_of(str(hlo))  # read again from disk
    assert reopened is not None and reopened.hlo is not None and reopened.hlo.computations


def test_what_the_answers_keep_with_a_document_goes_with_it(tmp_path: Path) -> None:
    """The outline and folds an HLO document keeps for its next version, and the tokens kept per
    chunk, do not keep the document (nor its previous version) once its files are closed."""
    store, stem = open_module(tmp_path)
    hlo, live_range = Path(f"{stem}.txt"), Path(f"{stem}-live-range.txt")
    first = store.document(str(hlo))
    assert first is not None
    for document in (first, store.change(str(hlo), 2, Range(Position(3, 0), Position(3, 0)), " ")):
        assert bounded_outline(document, 20)[0] and folding_ranges(document) and list(semantic_tokens(document))
    kept = [weakref.ref(first), weakref.ref(store.document(str(hlo)))]  # type: ignore[arg-type]
    del first, document
    store.close(str(hlo))
    store.close(str(live_range))
    gc.collect()
    assert [ref() for ref in kept] == [None, None]


def test_a_module_whose_files_close_while_it_is_read_is_not_kept(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The user opens a large module and closes it before it is read: the thread reading it answers,
    and the store does not keep it."""
    store, stem = open_module(tmp_path)
    hlo, live_range = Path(f"{stem}.txt"), Path(f"{stem}-live-range.txt")
    store.close(str(live_range))
    reading, closed = threading.Event(), threading.Event()
    pairing = store_module._sides

    def pairing_after_the_close(module: ModuleDump) -> tuple[ModuleDump, ModuleDump]:
        reading.set()
        closed.wait(10)
        return pairing(module)

    monkeypatch.setattr(store_module, "_sides", pairing_after_the_close)
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(store.module_of, str(hlo))
        reading.wait(10)
        store.close(str(hlo))
        closed.set()
        module = answer.result(10)
    assert module is not None and module.hlo is not None
    kept = weakref.ref(module.hlo)
    del module, answer  # the future holds its result
    gc.collect()
    assert kept() is None


def test_a_glance_is_given_until_the_module_is_built(tmp_path: Path) -> None:
    store, stem = open_module(tmp_path)
    document = store.document(f"{stem}.txt")
    assert document is not None
    glance = store.glance(document)
    assert glance is not None and store.glance(document) is glance  # kept for the next question
    module = store.module_with(document)
    assert store.glance(document) is None  # the module answers from now on
    # the glance and the module read each companion from disk once: the same documents
    assert store.document(f"{stem}-buffer-assignment.txt") is module.documents[FileKind.BUFFER_ASSIGNMENT]


def test_a_glance_at_an_older_version_is_not_kept(tmp_path: Path) -> None:
    store, stem = open_module(tmp_path)
    older = store.document(f"{stem}.txt")
    assert older is not None
    store.change(f"{stem}.txt", 2, None, Path(f"{stem}.txt").read_text() + "\n")  # the whole text
    assert store.glance(older) is not None
    assert store._glances == {}


def test_a_glance_is_given_from_a_buffer_assignment_file_too(tmp_path: Path) -> None:
    """A cursor in the live ranges (or the allocations, the values, the memory report) is placed by a
    glance too."""
    store, stem = open_module(tmp_path)
    for suffix in ("-live-range.txt", "-memory-usage-report.txt"):
        companion = store.document(f"{stem}{suffix}")
        assert companion is not None
        glance = store.glance(companion)
        assert glance is not None and glance.line_document(0, companion.source) is not None
        assert (store.glance(companion) is glance) == store.is_open(companion.source)  # kept for an open file


def test_a_glance_goes_when_a_file_of_its_module_changes_on_disk(tmp_path: Path) -> None:
    """It read the files' text: a companion written again (or deleted) is read again by the next glance."""
    store, stem = open_module(tmp_path)
    document = store.document(f"{stem}.txt")
    assert document is not None
    glance = store.glance(document)
    assert glance is not None
    store.forget_disk(f"{stem}-buffer-assignment.txt")
    assert store.glance(document) is not glance


def test_a_file_read_already_is_at_hand_while_another_file_is_read(tmp_path: Path) -> None:
    """A glance's hover asks for the companions read already; another thread reading a large file meanwhile
    (holding the reading lock for the time of its read) does not make it wait."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo = Path(f"{stem}.txt")
    store = DocumentStore()
    store.open(str(hlo), hlo.read_text(), 1)
    companion = f"{stem}-buffer-assignment.txt"
    first = store.document(companion)
    assert first is not None
    with store._reading:  # another file being read
        found: list[object] = []
        asking = threading.Thread(target=lambda: found.append(store.document(companion)))
        asking.start()
        asking.join(timeout=5)
        assert found == [first]


def test_a_glance_is_carried_past_a_one_line_edit_of_its_hlo_file(tmp_path: Path) -> None:
    """The next hovers read the indexes the last ones built: the glance goes on with the edited version, its
    companions' texts the same, nothing scanned."""
    store, stem = open_module(tmp_path)
    document = store.document(f"{stem}.txt")
    assert document is not None
    glance = store.glance(document)
    assert glance is not None
    lines = Path(f"{stem}.txt").read_text().split("\n")
    line = next(number for number, text in enumerate(lines) if 'op_name="' in text)
    column = lines[line].index('op_name="') + len('op_name="')
    edited = store.change(f"{stem}.txt", 2, Range.on_line(line, column, column + 1), "x")
    assert edited is not None and edited.unscanned_text() is not None
    carried = store.glance(edited)
    assert carried is not None and carried is not glance and store._glances[module_stem(edited.source)][0] is edited
    assert carried._files[FileKind.LIVE_RANGE] is glance._files[FileKind.LIVE_RANGE]
    over_lines = store.change(f"{stem}.txt", 3, Range.on_line(line, 0, 0), "\n")
    assert over_lines is not None and store._glances[module_stem(edited.source)][0] is edited  # not carried
    assert store.glance(over_lines) is not None


def test_hovers_after_one_line_edits_are_those_of_the_edited_text(tmp_path: Path) -> None:
    """A session's hovers and definitions at a glance, after a user's one-line edits, are a fresh session's
    on the edited text; the edited text is never scanned."""
    stem = copy_module(OTHER, tmp_path)
    hlo = f"{stem}.txt"
    session = Session()
    session.open(hlo, Path(hlo).read_text(), 1)
    text = Path(hlo).read_text()
    cursors = [Cursor.at(Position(line, line_text.index("%") + 1)) for line, line_text in enumerate(text.split("\n"))
               if line_text.startswith("  %") and " = " in line_text]
    (tmp_path / "fresh").mkdir()
    rng = random.Random(5)
    for cursor in rng.sample(cursors, 5):
        session.hover(hlo, None, cursor)
    for version in range(2, 8):
        text = session_text(session, hlo)
        match = rng.choice(list(re.finditer(r'op_name="[^"]*?([A-Za-z])"|stack_frame_id=([0-9]+)', text)))
        group = 1 if match.group(1) else 2
        line = text.count("\n", 0, match.start(group))
        column = match.start(group) - text.rfind("\n", 0, match.start(group)) - 1
        new = "xy"[match.group(1) == "x"] if group == 1 else str(int(match.group(2)) % 7 + 1)
        session.change(hlo, version, Range.on_line(line, column, match.end(group) - match.start(group) + column), new)
        fresh_path = Path(f"{copy_module(OTHER, tmp_path / 'fresh')}.txt")
        fresh = Session()
        fresh.open(str(fresh_path), session_text(session, hlo), 1)
        answers = [(answer_of(ask(session, hlo, None, cursor)),
                    answer_of(ask(fresh, str(fresh_path), None, cursor), fresh_path.parent, tmp_path))
                   for cursor in rng.sample(cursors, 12) for ask in (Session.hover, Session.definition)]
        assert all(ours == theirs for ours, theirs in answers)
        assert sum(ours != "None" for ours, _ in answers) >= len(answers) // 2
        snapshot = session.snapshot(hlo)
        assert snapshot is not None and snapshot.unscanned_text() is not None


def session_text(session: Session, source: str) -> str:
    snapshot = session.snapshot(source)
    assert snapshot is not None
    return snapshot.text


def answer_of(answer: object, folder: Path | None = None, instead: Path | None = None) -> str:
    """An answer's value, as text (`folder` read as `instead`: the fresh session's copy is elsewhere)."""
    value = repr(getattr(answer, "value", None))
    return value if folder is None or instead is None else value.replace(str(folder), str(instead))

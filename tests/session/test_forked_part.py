"""A large HLO file's check on two cores (`ForkedPart`): the problems one process finds, what the forked copy derived
carried back for the check after an edit, and a copy that fails, is stopped, or cannot start."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from helpers.dumps import copy_module, plant, seen, where
from helpers.lsp import write_large_module
from helpers.paths import DATA, PRODUCERS, SPLIT_HLO, SPLIT_MLP
from helpers.questions import question_answered_meanwhile
from hlo_lsp.analysis import run, syntax
from hlo_lsp.analysis.checks.opcodes import module_pass
from hlo_lsp.analysis.run import CheckCancelled, Running
from hlo_lsp.model import priority
from hlo_lsp.model.derived import Derived, DerivedKey
from hlo_lsp.problems import Severity
from hlo_lsp.session import ForkedPart, Session
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.loader import load


class Counted(ForkedPart):
    """Every HLO file's check forks; how many did."""

    def __init__(self, gate: threading.Lock | None = None) -> None:
        super().__init__(gate, from_lines=0)
        self.forks = 0

    def start(self, work: Callable[[Callable[[float], None]], Any], owners: Callable[[], Sequence[Derived]],
              shared: Callable[[], Sequence[object]]) -> Any:
        running = super().start(work, owners, shared)
        self.forks += running is not None
        return running


@pytest.mark.parametrize("folder", [DATA / "jax-0.10.2", DATA / "jax-0.4.38", DATA / "seeds", DATA / "handwritten",
                                    PRODUCERS], ids=lambda folder: folder.name)
def test_every_bundled_module_checked_on_two_cores_has_the_problems_found_in_one(folder: Path) -> None:
    forked = Counted()
    two, one = Session(beside=forked), Session()
    modules = list(zip(load([str(folder)]).modules, load([str(folder)]).modules))
    for there, here in modules:
        assert two.check_module(there) == one.check_module(here), there.stem
    assert forked.forks == sum(module.hlo_document is not None for module, _ in modules) > 0


def test_planted_problems_of_both_halves_are_found_on_two_cores(tmp_path: Path) -> None:
    """An undefined operand (hlo-structure, this process's half), an unknown opcode (hlo-opcodes) and a line the
    grammar refuses (the syntax pass), both in the copy's half: each where one process finds it."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo = Path(f"{stem}.txt")
    undefined = plant(hlo, "subtract(%sub.18, %sub.17)", "subtract(%sub.18, %nowhere)")
    opcode = plant(hlo, "add(%reduce_sum.3, %reduce_sum.4)", "addd(%reduce_sum.3, %reduce_sum.4)")
    garbled = plant(hlo, "f32[32]{0} log(%reduce_sum.1)", "f32[32]{0 log(%reduce_sum.1)")
    forked = Counted()
    found = Session(beside=forked).check_module(load([str(hlo)]).modules[0])
    assert forked.forks == 1
    assert found == Session().check_module(load([str(hlo)]).modules[0])
    errors = {(line, code) for _, line, severity, code in where(found) if severity is Severity.ERROR}
    assert {(undefined, "undefined-instruction"), (opcode, "unknown-opcode"), (garbled, "syntax")} <= errors


def test_a_truncated_module_checked_on_two_cores_has_the_problems_found_in_one(tmp_path: Path) -> None:
    text = SPLIT_HLO.read_text()
    path = tmp_path / SPLIT_HLO.name
    path.write_text(text[: len(text) // 2])
    two, one = Session(beside=Counted()), Session()
    for session in (two, one):
        session.open(str(path), path.read_text(), 1)
    found = seen(two.check(str(path)))
    assert found and found == seen(one.check(str(path)))


def test_the_check_after_an_edit_starts_from_what_the_forked_copy_found(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """An op_name edit of a module of a dozen chunks: its check forks no copy and reads the edited chunk alone (the
    copy's syntax problems and opcode findings were carried back), and equals a fresh check of the edited text."""
    path = write_large_module(tmp_path, SPLIT_HLO, copies=80)
    forked = Counted()
    session = Session(beside=forked)
    session.open(str(path), path.read_text(), 1)
    session.check(str(path))
    lines = path.read_text().split("\n")
    line = len(lines) // 2 + next(n for n, text in enumerate(lines[len(lines) // 2:]) if 'op_name="' in text)
    column = lines[line].index('op_name="') + len('op_name="')
    session.change(str(path), 2, Range(Position(line, column), Position(line, column)), "x")
    read: list[str] = []
    for module, name in ((syntax, "_chunk_problems"), (module_pass, "_chunk_facts")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, real=real, name=name: read.append(name) or real(*args))
    checked = session.check(str(path))
    assert forked.forks == 1 and sorted(read) == ["_chunk_facts", "_chunk_problems"]
    assert len(session.snapshot(str(path)).chunks) > 10  # type: ignore[union-attr]
    fresh = Session()
    fresh.open(str(path), session.snapshot(str(path)).text, 2)  # type: ignore[union-attr]
    assert seen(checked) == seen(fresh.check(str(path)))


class _Failed:
    def told(self) -> float:
        return 0.0

    def result(self) -> None:
        return None

    def stop(self) -> None:
        pass


class _FailingBeside:
    from_lines = 0

    def start(self, work: Callable[[Callable[[float], None]], Any], owners: Callable[[], Sequence[Derived]],
              shared: Callable[[], Sequence[object]]) -> Running[Any]:
        return _Failed()


def test_where_the_copy_failed_its_half_is_checked_here(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo = Path(f"{stem}.txt")
    plant(hlo, "add(%reduce_sum.3, %reduce_sum.4)", "addd(%reduce_sum.3, %reduce_sum.4)")
    module = load([str(hlo)]).modules[0]
    assert run.hlo_file_problems(module, beside=_FailingBeside()) == run.hlo_file_problems(load([str(hlo)]).modules[0])
    assert any(problem.code == "unknown-opcode" for problem in run.hlo_file_problems(module))


def test_the_share_the_copy_tells_is_read_here() -> None:
    def work(told: Callable[[float], None]) -> float:
        told(0.25)
        time.sleep(60)
        return 1.0

    running = ForkedPart().start(work, list, tuple)
    assert running is not None
    try:
        waited = 0.0
        while running.told() != 0.25 and waited < 10:
            time.sleep(0.01)
            waited += 0.01
        assert running.told() == 0.25
    finally:
        running.stop()


def test_the_editor_s_bar_moves_while_both_parts_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While this process runs hlo-structure (here made to take a second, stepping aside between chunks as checks
    do), the shares it reports count the syntax pass the copy has done meanwhile."""
    path = write_large_module(tmp_path, SPLIT_HLO, copies=80)
    module = load([str(path)]).modules[0]
    reported: list[tuple[bool, float]] = []
    structure = [False]

    def slow_structure(context: Any) -> Any:
        structure[0] = True
        for _ in range(100):
            time.sleep(0.01)
            priority.let_questions_first()
        structure[0] = False
        return []

    monkeypatch.setattr(run, "CHECKS", tuple((name, slow_structure if name == "hlo-structure" else check)
                                             for name, check in run.CHECKS))
    run.hlo_file_problems(module, lambda share: reported.append((structure[0], share)), Counted())
    during = [share for inside, share in reported if inside]
    assert during == sorted(during) and during[-1] >= run.SYNTAX_SHARE * 0.9  # (the HLO file: all the module's lines)


def test_a_part_that_raises_in_the_copy_has_no_result() -> None:
    running = ForkedPart().start(lambda told: 1 // 0, list, tuple)
    assert running is not None and running.result() is None


def test_what_the_copy_derives_is_put_here_with_this_process_s_own_tokens() -> None:
    owner, token, key = Derived(), object(), DerivedKey[tuple[object, int]]("carried in a test")
    owner.put(DerivedKey[int]("held before in a test"), 1)

    def work(told: Callable[[float], None]) -> str:
        owner.put(key, (token, 7))
        return "done"

    running = ForkedPart().start(work, lambda: [owner], lambda: [token])
    assert running is not None and running.result() == "done"
    carried = owner.get(key)
    assert carried is not None and carried[0] is token and carried[1] == 7


def test_a_part_stopped_or_no_longer_wanted_ends_its_copy() -> None:
    running = ForkedPart().start(lambda told: time.sleep(60), list, tuple)
    assert running is not None
    running.stop()
    assert running.result() is None

    def cancelled() -> None:
        raise CheckCancelled

    running = ForkedPart().start(lambda told: time.sleep(60), list, tuple)
    assert running is not None
    with priority.stepping(cancelled), pytest.raises(CheckCancelled):
        running.result()
    running.stop()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="scheduling policies are Linux's")
def test_the_copy_yields_its_core_to_any_other_work_until_this_process_waits_for_it() -> None:
    def policy_later(told: Callable[[float], None]) -> int:
        time.sleep(0.2)
        return os.sched_getscheduler(0)

    running = ForkedPart().start(policy_later, list, tuple)
    assert running is not None and running.result() == os.SCHED_OTHER  # (waited for at once)
    running = ForkedPart().start(policy_later, list, tuple)
    time.sleep(1.0)  # (this process's own part)
    assert running is not None and running.result() == os.SCHED_IDLE


def test_a_copy_that_does_not_end_in_time_is_given_up(caplog: pytest.LogCaptureFixture) -> None:
    running = ForkedPart(patience=0.2).start(lambda told: time.sleep(60), list, tuple)
    assert running is not None and running.result() is None
    assert "did not end in time" in caplog.text


def test_a_question_answered_in_another_thread_is_not_one_in_the_copy() -> None:
    """In the copy, no thread answers: its indexing waits for no question (it would wait two seconds a chunk)."""
    with question_answered_meanwhile():
        running = ForkedPart().start(lambda told: dict(priority._answering), list, tuple)
        assert running is not None and running.result() == {}
        assert priority._answering


def test_while_a_question_holds_the_gate_the_check_runs_here_alone() -> None:
    gate = threading.Lock()
    with gate:
        assert ForkedPart(gate).start(lambda told: 1, list, tuple) is None
    running = ForkedPart(gate).start(lambda told: 1, list, tuple)
    assert running is not None and running.result() == 1

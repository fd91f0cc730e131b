"""An open file that is as it is on disk is read there by the check process, which checks it as the session would; one
the editor holds otherwise is sent whole, with the edits made meanwhile, even when the file on disk has its size."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from helpers import SPLIT_MLP, copy_module, seen
from hlo_lsp.problems import Severity
from hlo_lsp.session import Checked, Session
from hlo_lsp.session import check_process as check_process_module
from hlo_lsp.session.check_process import CheckProcess
from hlo_lsp.session.same_text import disk_digest_of, text_if_same
from hlo_lsp.text import Position, Range

OPERAND = "add(%param_2.2, %add.1)"
UNDEFINED = "add(%param_2.2, %adx.1)"  # as long: the file on disk has the size of the editor's text


@pytest.fixture
def given(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each open file went to the check process: "open from disk", or "open" (its text sent)."""
    kinds: list[str] = []
    as_given = check_process_module._as_given

    def noted(source: str, text: str, version: int | None) -> tuple[object, ...]:
        message = as_given(source, text, version)
        kinds.append(message[0])
        return message

    monkeypatch.setattr(check_process_module, "_as_given", noted)
    return kinds


@pytest.fixture
def there(caplog: pytest.LogCaptureFixture) -> Iterator[Session]:
    caplog.set_level(logging.INFO, logger="hlo_lsp.session.check_process")
    session = Session(check_process_from=0)
    yield session
    for source in session.open_sources():
        session.close(source)


def test_a_digest_is_made_only_of_a_text_the_file_may_hold_and_the_file_is_taken_only_when_it_holds_it(
        tmp_path: Path) -> None:
    path = tmp_path / "module.txt"
    text = Path(f"{SPLIT_MLP}.txt").read_text()
    path.write_text(text)
    digest = disk_digest_of(str(path), text)
    assert digest is not None and text_if_same(str(path), digest) == text
    assert disk_digest_of(str(path), text + "\n") is None  # another size
    assert disk_digest_of(str(path), text.replace("jit", "jït", 1)[:-1]) is None  # not ASCII
    assert disk_digest_of(str(tmp_path / "gone.txt"), text) is None
    path.write_text(text.replace(OPERAND, UNDEFINED))  # changed on disk since, as long
    assert text_if_same(str(path), digest) is None
    path.unlink()
    assert text_if_same(str(path), digest) is None
    assert disk_digest_of("no\0such", text) is None and text_if_same("no\0such", digest) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_never_read(tmp_path: Path) -> None:
    """Neither the server nor the process opens a FIFO put where the file was: reading it would wait for good."""
    fifo = tmp_path / "module.txt"
    os.mkfifo(fifo)
    assert disk_digest_of(str(fifo), "") is None  # (a FIFO's size is 0)
    assert text_if_same(str(fifo), hashlib.sha256(b"").digest()) is None


def test_an_open_file_as_it_is_on_disk_is_read_there_and_checked_as_here(there: Session, given: list[str]) -> None:
    hlo = Path(f"{SPLIT_MLP}.txt")
    there.open(str(hlo), hlo.read_text(), 1)
    here = Session()
    here.open(str(hlo), hlo.read_text(), 1)
    assert seen(there.check(str(hlo))) == seen(here.check(str(hlo)))
    assert given == ["open from disk"]


def test_a_text_other_than_the_file_of_its_size_is_sent_whole_and_its_problems_found(
        there: Session, given: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check waits for the text: here it comes a while after the process asked for it."""
    give_again = CheckProcess._give_again
    monkeypatch.setattr(CheckProcess, "_give_again",
                        lambda process, worker, source: time.sleep(0.5) or give_again(process, worker, source))
    hlo = Path(f"{copy_module(SPLIT_MLP, tmp_path)}.txt")
    text = hlo.read_text().replace(OPERAND, UNDEFINED)
    line = text[: text.index(UNDEFINED)].count("\n")
    there.open(str(hlo), text, 1)
    found = seen(there.check(str(hlo)))
    assert [(problem[1].start.line, problem[2]) for problem in found  # type: ignore[attr-defined]
            if problem[0] == str(hlo) and "adx.1" in str(problem[4])] == [(line, Severity.ERROR)]
    here = Session()
    here.open(str(hlo), text, 1)
    assert found == seen(here.check(str(hlo)))
    assert given == ["open from disk"]  # the process found the file otherwise, and asked for the text


def test_edits_made_before_the_text_is_sent_whole_are_in_it(
        there: Session, given: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process lets go of the changes that come before the text it asked for, which holds them: here two edits
    reach it after it found the file otherwise, and before the server sends the text."""
    hlo = Path(f"{copy_module(SPLIT_MLP, tmp_path)}.txt")
    text = hlo.read_text().replace(OPERAND, UNDEFINED)
    line = text[: text.index(UNDEFINED)].count("\n")
    start = text.split("\n")[line].index("adx.1")
    edited = threading.Event()
    give_again = CheckProcess._give_again
    monkeypatch.setattr(CheckProcess, "_give_again",
                        lambda process, worker, source: edited.wait(30) and give_again(process, worker, source))
    there.open(str(hlo), text, 1)
    checked: list[Checked | None] = []
    checking = threading.Thread(target=lambda: checked.append(there.check(str(hlo))))
    checking.start()
    assert _soon(lambda: given == ["open from disk"])
    there.change(str(hlo), 2, Range(Position(line, start), Position(line, start + 3)), "ady")
    there.change(str(hlo), 3, Range(Position(0, 0), Position(0, 0)), "// edited\n")
    edited.set()
    checking.join(60)
    here = Session()
    here.open(str(hlo), there.snapshot(str(hlo)).text, 3)  # type: ignore[union-attr]
    assert here.snapshot(str(hlo)).text == "// edited\n" + text.replace("adx.1", "ady.1")  # type: ignore[union-attr]
    found = seen(checked[0])
    assert [problem[1].start.line for problem in found if "ady.1" in str(problem[4])] == [line + 1]  # type: ignore[attr-defined]
    assert found == seen(here.check(str(hlo)))
    assert seen(there.check(str(hlo))) == seen(here.check(str(hlo)))


def _soon(condition: Callable[[], bool], seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True

"""An edited session ends where a fresh open would: random editor sessions over stdio (edits, requests,
cancels, companions opened and closed) give the diagnostics, hovers and definitions that a fresh server
gives for the same final texts. HLO_LSP_SESSIONS=N runs N sessions (the long mode); the default runs a
few, seeded. What the long mode found was fixed at its cause, each with a regression test beside the
code it fixed (tests/features/test_hover.py, tests/analysis/test_run.py,
tests/analysis/opcodes/test_module_pass.py) and its minimized session here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from editor_sessions import Session, Step, differences, drawn_session, in_folder, minimized

SESSIONS = int(os.environ.get("HLO_LSP_SESSIONS", "6"))
FIRST_SEED = int(os.environ.get("HLO_LSP_SESSIONS_START", "0"))
STEPS = int(os.environ.get("HLO_LSP_SESSION_STEPS", "14"))


async def fails(session: Session) -> bool:
    return bool(differences(*await session.run()))


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + SESSIONS))
async def test_an_edited_session_ends_as_a_fresh_server_opens_its_texts(seed: int) -> None:
    session = drawn_session(seed, STEPS)
    found = differences(*await session.run())
    if found and os.environ.get("HLO_LSP_MINIMIZE"):
        session = await minimized(session, fails)
    assert found == [], (f"seed {seed}, {session.stem.name}, steps:\n" + "\n".join(map(str, session.steps)))


def test_the_steps_are_replayable() -> None:
    """A session's steps are data drawn from its seed: the same seed, the same module and steps."""
    first, again = drawn_session(3, STEPS), drawn_session(3, STEPS)
    assert first.steps == again.steps and first.stem == again.stem
    assert len({step.action for seed in range(20) for step in drawn_session(seed, STEPS).steps}) == 11


@pytest.mark.asyncio
async def test_long_mode_seed_10262_minimized(tmp_path: Path) -> None:
    """A line broken, lines deleted, a check, a paste: a line then out of place had its attribute judged
    by a verdict its text taught in a computation, where a fresh server skips it (on copies of the
    module, as the long mode plays it)."""
    steps = [Step("break", 0, (0.625, 0.761, 0.536), ""), Step("lines", 0, (0.302, 0.621, 0.094), ""),
             Step("wait", 0, (0.422,), ""), Step("paste", 0, (0.793, 0.292, 0.761), "")]
    session = in_folder(Session(drawn_session(10262, 30).stem, steps, seed=10262), tmp_path)
    assert differences(*await session.run()) == []

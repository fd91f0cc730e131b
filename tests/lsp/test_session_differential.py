"""An edited session ends where a fresh open would: random editor sessions over stdio (edits, requests,
cancels, companions opened and closed) give the diagnostics, hovers and definitions that a fresh server
gives for the same final texts. HLO_LSP_SESSIONS=N runs N sessions (the long mode); the default runs a
few, seeded. What the long mode found was fixed at its cause, each with a regression test beside the
code it fixed (tests/features/test_hover.py, tests/analysis/test_run.py)."""

from __future__ import annotations

import os

import pytest
from editor_sessions import Session, differences, drawn_session, minimized

SESSIONS = int(os.environ.get("HLO_LSP_SESSIONS", "6"))
FIRST_SEED = int(os.environ.get("HLO_LSP_SESSIONS_START", "0"))
STEPS = int(os.environ.get("HLO_LSP_SESSION_STEPS", "14"))


async def fails(session: Session) -> bool:
    return bool(differences(*await session.run()))


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

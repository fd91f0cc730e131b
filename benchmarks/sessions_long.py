"""The long run of the differential editor sessions (tests/lsp/editor_sessions.py), in worker processes.

    .venv/bin/python benchmarks/sessions_long.py --sessions 2000 [--start N] [--steps 30] [--workers 2]

Each worker keeps two servers for its whole run: one that plays every session (a long-lived editor:
what earlier sessions left behind is part of the test), and one that opens each session's final texts
for the first time. Every session works on copies of its module in a folder of its own. Session n is
drawn from seed n (`--start n --sessions 1` replays it as the run played it, on copies of its module;
`--minimize n` keeps the steps its difference needs). Prints each session whose
outcomes differ, with its steps, when its batch ends (`--start` at the batch's first seed replays what its
servers played before it), and a summary line.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "lsp"), str(ROOT / "tests")]

from editor_sessions import Editor, Session, differences, drawn_session, in_folder, minimized  # noqa: E402


async def run_sessions(seeds: list[int], steps: int) -> list[tuple[int, list[str]]]:
    """(seed, differences or the error) of every session that did not end as a fresh open does."""
    failed = []
    with tempfile.TemporaryDirectory(prefix="hlo-sessions-") as tmp:
        session_server, fresh_server = await Editor.start(Path(tmp)), await Editor.start(Path(tmp))
        try:
            for seed in seeds:
                session = in_folder(drawn_session(seed, steps), Path(tmp) / f"seed-{seed}")
                try:
                    texts, edited = await session.edit(session_server)
                    found = differences(edited, await session.reopen(fresh_server, texts))
                except Exception:
                    found = [traceback.format_exc(limit=4)]
                if found:
                    failed.append((seed, found + [f"steps of {session.stem.name}:", *map(str, session.steps)]))
        finally:
            await session_server.stop()
            await fresh_server.stop()
    return failed


async def minimized_steps(seed: int, steps: int) -> list[str]:
    """The steps of session `seed` that its difference needs, each trial on fresh servers and copies (as a
    long run plays it); empty when the session alone ends as a fresh open does."""
    with tempfile.TemporaryDirectory(prefix="hlo-sessions-") as tmp:
        trials = iter(range(1_000_000))

        async def fails(session: Session) -> bool:
            played = in_folder(session, Path(tmp) / f"trial-{next(trials)}")
            edited_server, fresh_server = await Editor.start(Path(tmp)), await Editor.start(Path(tmp))
            try:
                texts, edited = await played.edit(edited_server)
                return bool(differences(edited, await played.reopen(fresh_server, texts)))
            finally:
                await edited_server.stop()
                await fresh_server.stop()

        session = drawn_session(seed, steps)
        if not await fails(session):
            return []
        return [str(step) for step in (await minimized(session, fails)).steps]


def work(job: tuple[list[int], int]) -> list[tuple[int, list[str]]]:
    seeds, steps = job
    return asyncio.run(run_sessions(seeds, steps))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=50, help="sessions a pair of servers plays before it restarts")
    parser.add_argument("--minimize", type=int, metavar="SEED", help="only minimize session SEED, played alone")
    args = parser.parse_args()
    if args.minimize is not None:
        steps = asyncio.run(minimized_steps(args.minimize, args.steps))
        print("\n".join(steps) if steps else f"session {args.minimize} alone ends as a fresh open does")
        return 0
    seeds = list(range(args.start, args.start + args.sessions))
    jobs = [(seeds[index:index + args.batch], args.steps) for index in range(0, len(seeds), args.batch)]
    started, done, failures = time.monotonic(), 0, []
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for (batch, _), failed in zip(jobs, pool.imap(work, jobs)):
            done += len(batch)
            failures += failed
            for seed, found in failed:  # as they come: a long run may be stopped before its end
                played = f"its servers played seeds {batch[0]}-{seed}"
                print(f"\nseed {seed} ({played}):\n  " + "\n  ".join(found), flush=True)
            print(f"  {done} sessions, {len(failures)} differing, {time.monotonic() - started:.0f} s", flush=True)
    print(f"sessions: {args.sessions} from seed {args.start}, {args.steps} steps each, {len(failures)} differing "
          f"({', '.join(str(seed) for seed, _ in failures) or 'none'}), {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""The long run of the XLA-parser conformance test, outside pytest, in worker processes; prints the totals
and each distinct disagreement once (with its text minimized, unless --no-minimize).

    .venv/bin/python benchmarks/xla_parser_long.py --texts 100000 [--workers 2] [--seed N] [--start N]

Text number n of a seed is `tests/hlo_forms.form(seed, n, MEDIUM)`: the catalogue's forms, every dump's
HLO module (tests/data, ../shared/corpus, ../shared/producers, up to 256 KB), then seeded mutants of them;
`--start n --texts 1` replays one. Each is judged by XLA's parser (tests/xla_oracle) and by hlo-lsp.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hlo_forms import MEDIUM, form  # noqa: E402
from xla_oracle import Disagreement, OurReader, XlaParser, distinct, judge, known, minimized  # noqa: E402

BATCH = 200
_worker: dict[str, object] = {}


def _init(folder: str) -> None:
    _worker["xla"] = XlaParser()
    _worker["reader"] = OurReader(tempfile.mkdtemp(dir=folder))


def run_batch(job: tuple[int, int, int]) -> tuple[int, list[Disagreement], int]:
    """(texts judged, their disagreements, XLA crashes) of texts start..start+count."""
    seed, start, count = job
    xla, reader = _worker["xla"], _worker["reader"]
    found: list[Disagreement] = []
    restarts = xla.restarts
    for number in range(start, start + count):
        text = form(seed, number, MEDIUM)
        found += judge(text.text, text.origin, xla, reader)
    return count, found, xla.restarts - restarts


def _minimize(disagreement: Disagreement, xla: XlaParser, reader: OurReader) -> Disagreement:
    def still(text: str) -> bool:
        return any(d.cause == disagreement.cause for d in judge(text, "", xla, reader))

    text = minimized(disagreement.text, still)
    return Disagreement(disagreement.cause, disagreement.detail, text, disagreement.origin + " (minimized)")


def _print_distinct(found: list[Disagreement], counts: Counter[str], minimize: bool) -> None:
    with XlaParser() as xla, tempfile.TemporaryDirectory(prefix="hlo-xla-") as folder:
        reader = OurReader(folder)
        for disagreement in distinct(found):
            reason = known(disagreement)
            if minimize and len(disagreement.text) < 200_000:
                disagreement = _minimize(disagreement, xla, reader)
            label = f"known ({reason})" if reason else "NEW"
            print(f"\n{label}, {counts[disagreement.cause]} text(s): {disagreement}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20250611)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--no-minimize", dest="minimize", action="store_false")
    parser.add_argument("--list", action="store_true", help="also list every disagreement: its text and detail")
    args = parser.parse_args()
    reason = XlaParser.unavailable()
    if reason is not None:
        print(f"skipped: {reason}")
        return 0
    jobs = [(args.seed, start, min(BATCH, args.start + args.texts - start))
            for start in range(args.start, args.start + args.texts, BATCH)]
    started, done, crashes = time.monotonic(), 0, 0
    found: list[Disagreement] = []
    every: list[Disagreement] = []
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="hlo-xla-") as folder, multiprocessing.get_context("fork").Pool(
            args.workers, initializer=_init, initargs=(folder,)) as pool:
        for count, batch, batch_crashes in pool.imap_unordered(run_batch, jobs):
            new = {d.cause for d in batch} - counts.keys()
            for disagreement in batch:
                counts[disagreement.cause] += 1
                if disagreement.cause in new:
                    print(f"  new after {done + count} texts: {disagreement.cause}", flush=True)
                    new.discard(disagreement.cause)
            done, crashes, found = done + count, crashes + batch_crashes, distinct(found + batch)
            every += batch if args.list else []
            if done % 5000 < BATCH:
                print(f"  {done} texts, {len(counts)} distinct, {time.monotonic() - started:.0f} s", flush=True)
    unknown = [d for d in found if known(d) is None]
    print(f"xla parser: {args.texts} texts (seed {args.seed}, from {args.start}), {crashes} XLA crashes, "
          f"{sum(counts.values())} disagreements, {len(found)} distinct ({len(unknown)} not known), "
          f"{time.monotonic() - started:.0f} s")
    _print_distinct(found, counts, args.minimize)
    if args.list:
        print("\nevery disagreement:")
        for disagreement in sorted(every, key=lambda d: d.cause):
            print(f"  {disagreement.cause} | {disagreement.detail} | {disagreement.origin}")
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())

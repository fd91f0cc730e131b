"""How well `hlo-lsp diff` matches the buffers of two peaks, and how fast it compares: for each pair, the share
of B's peak bytes in rows matched to a buffer of A's, and the seconds `Session.compare` took.

    .venv/bin/python benchmarks/compare_pairs.py              # the bundled pair; the corpus's JAX 0.4.38 vs 0.10.2
    .venv/bin/python benchmarks/compare_pairs.py --generate   # + pairs JAX writes here: other batch, with remat
    .venv/bin/python benchmarks/compare_pairs.py --mb 40      # + two generated 40 MB modules (target: <= 5 s)

The corpus pairs need ../shared beside the project, `--generate` needs jax (the project's test setup installs
it), `--mb` the corpus's `large_fwd_unrolled` (benchmarks/make_large_dump.py); each says so and is left out
when what it needs is missing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from hlo_lsp.session import Comparison, Session  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
BUNDLED = ROOT / "tests" / "data" / "jax-0.10.2"
COMPARE_SECONDS = 5.0  # two 40 MB modules

# A 4-layer MLP train step (inputs from numpy: JAX compiles no helper module for them).
_PROGRAM = """
import sys
import jax, jax.numpy as jnp, numpy as np
batch, remat = int(sys.argv[1]), sys.argv[2] == "remat"
def layer(w, x):
    return jax.nn.relu(x @ w)
def loss(ws, x):
    step = jax.checkpoint(layer) if remat else layer
    for w in ws:
        x = step(w, x)
    return jnp.sum(x * x)
update = jax.jit(lambda ws, x: jax.tree.map(lambda w, g: w - 0.01 * g, ws, jax.grad(loss)(ws, x)))
ws = [np.random.default_rng(i).standard_normal((512, 512)).astype(np.float32) * 0.05 for i in range(4)]
x = np.random.default_rng(9).standard_normal((batch, 512)).astype(np.float32)
jax.block_until_ready(update(ws, x))
"""


def corpus_pairs() -> list[tuple[str, Path, Path]]:
    older, newer = CORPUS / "jax-0.4.38", CORPUS / "jax-0.10.2"
    if not older.is_dir():
        print(f"(no corpus pairs: {CORPUS} is not beside the project)", file=sys.stderr)
        return []
    return [(f"{case.name}: 0.4.38 → 0.10.2", case, newer / case.name) for case in sorted(older.iterdir())
            if (newer / case.name).is_dir()]


def generated_pairs(folder: Path) -> list[tuple[str, Path, Path]]:
    """Dumps JAX writes of one program: batch 64 and 256; without and with remat."""
    try:
        import jax  # noqa: F401
    except ImportError:
        print("(no generated pairs: jax is not installed)", file=sys.stderr)
        return []
    runs = {"batch64": ("64", "plain"), "batch256": ("256", "plain"), "remat": ("64", "remat")}
    for label, arguments in runs.items():
        dump = folder / label
        environment = {**os.environ, "XLA_FLAGS": f"--xla_dump_to={dump} --xla_dump_hlo_as_text",
                       "JAX_PLATFORMS": "cpu"}
        subprocess.run([sys.executable, "-c", _PROGRAM, *arguments], env=environment, check=True, timeout=600)
    return [("generated: batch 64 → 256", folder / "batch64", folder / "batch256"),
            ("generated: without → with remat", folder / "batch64", folder / "remat")]


def large_pair(folder: Path, mb: float) -> list[tuple[str, Path, Path]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from make_large_dump import make_large_dump

    if not (CORPUS / "jax-0.10.2" / "large_fwd_unrolled").is_dir():
        print(f"(no {mb:g} MB pair: it is made from {CORPUS}, not beside the project)", file=sys.stderr)
        return []
    make_large_dump(mb, "0.10.2", folder / "a")
    make_large_dump(mb * 1.02, "0.10.2", folder / "b")  # a few more layers: another run of the same program
    return [(f"generated: {mb:g} MB → {mb * 1.02:g} MB", folder / "a", folder / "b")]


def report(label: str, a: Path, b: Path) -> float:
    started = time.perf_counter()
    comparison: Comparison = Session.compare([str(a)], [str(b)])
    seconds = time.perf_counter() - started
    if not comparison.changes:
        print(f"{label:<44} nothing compared ({len(comparison.unpaired)} unpaired)")
    for change in comparison.changes:
        only_a = sum(1 for row in change.changes if row.b is None)
        only_b = sum(1 for row in change.changes if row.a is None)
        share = 100 * change.matched_share if change.matched_share is not None else 100.0
        print(f"{label:<44} {change.name:<14} {change.a_peak:>13,} {change.b_peak:>13,} {len(change.changes):>6} "
              f"{only_a:>6} {only_b:>6} {share:>8.1f}% {seconds:>7.2f}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generate", action="store_true", help="also compare pairs JAX writes (needs jax)")
    parser.add_argument("--mb", type=float, help="also compare two generated modules of this size, timed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="compare-pairs-") as scratch:
        pairs = [("shared pair: narrow → wide", BUNDLED / "pair_mlp_narrow", BUNDLED / "pair_mlp_wide"),
                 *corpus_pairs()]
        if args.generate:
            pairs += generated_pairs(Path(scratch) / "jax")
        large = large_pair(Path(scratch) / "large", args.mb) if args.mb else []
        print(f"{'pair':<44} {'module':<14} {'A peak':>13} {'B peak':>13} {'rows':>6} {'only A':>6} {'only B':>6} "
              f"{'matched':>9} {'seconds':>7}")
        for label, a, b in pairs:
            report(label, a, b)
        for label, a, b in large:
            seconds = report(label, a, b)
            verdict = "yes" if seconds <= COMPARE_SECONDS else "no"
            print(f"two {args.mb:g} MB modules compared in {seconds:.2f} s "
                  f"(target <= {COMPARE_SECONDS:g} s: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Writes an MLIR module of a requested size that mlir-lsp-server reads without a diagnostic.

    .venv/bin/python benchmarks/make_mlir.py --mb 40 --out /tmp/big40.mlir

The module is shaped like a model lowered out of JAX: one `func.func` per layer, each a chain of
blocks of `arith`, `tensor`, `linalg` and `math` ops on `tensor<16x64xf32>` with named locations
(`loc("jit(fwd)/layers/7/mul")`), and a `@main` that calls the layers in turn. Every value is
numbered in its function (`%0`, `%1`, ...) as MLIR prints them. benchmarks/load.py opens it in
mlir-lsp-server beside a dump of the same size opened in hlo-lsp, hovers on the values' uses
(`value_uses`) and edits the constants (`constant_edits`).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

MB = 1_000_000
BLOCKS_PER_LAYER = 36  # about 40 kB of text per layer function
T = "tensor<16x64xf32>"
HALF = "tensor<16x32xf32>"
SIGNATURE = f"%arg0: {T}, %arg1: tensor<64x64xf32>, %arg2: tensor<64xf32>"
_USE = re.compile(r"%\w+")
_CONSTANT = re.compile(r"arith\.constant dense<(\d\.\d{6}e-01)>")


def block(layer: int, first: int, running: str, scale: float) -> list[str]:
    """One block of a layer: ops numbered from `first`, reading the running value `running`."""
    n = [f"%{first + k}" for k in range(11)]
    at = f'loc("jit(fwd)/layers/{layer}'
    return [
        f"  {n[0]} = arith.constant dense<{scale:.6e}> : {T} {at}/scale\")",
        f"  {n[1]} = arith.mulf {running}, {n[0]} : {T} {at}/mul\")",
        f"  {n[2]} = tensor.empty() : {T}",
        f"  {n[3]} = linalg.matmul ins({n[1]}, %arg1 : {T}, tensor<64x64xf32>) outs({n[2]} : {T}) -> {T} "
        f"{at}/dot_general\")",
        f"  {n[4]} = tensor.extract_slice {n[3]}[0, 0] [16, 32] [1, 1] : {T} to {HALF} {at}/slice\")",
        f"  {n[5]} = math.exp {n[4]} : {HALF} {at}/exp\")",
        f"  {n[6]} = tensor.insert_slice {n[5]} into {n[3]}[0, 32] [16, 32] [1, 1] : {HALF} into {T} "
        f"{at}/concatenate\")",
        f"  {n[7]} = tensor.expand_shape %arg2 [[0, 1]] output_shape [1, 64] : tensor<64xf32> into "
        f"tensor<1x64xf32> {at}/broadcast_in_dim\")",
        f"  {n[8]} = tensor.collapse_shape {n[7]} [[0, 1]] : tensor<1x64xf32> into tensor<64xf32> {at}/reshape\")",
        f"  {n[9]} = arith.maximumf {n[6]}, {n[0]} : {T} {at}/max\")",
        f"  {n[10]} = arith.addf {n[9]}, {running} : {T} {at}/add\")",
    ]


def layer_function(layer: int, rng: random.Random) -> list[str]:
    lines = [f"func.func private @layer_{layer}({SIGNATURE}) -> {T} {{"]
    running = "%arg0"
    for k in range(BLOCKS_PER_LAYER):
        lines += block(layer, 11 * k, running, rng.uniform(1.0, 9.0) / 10)
        running = f"%{11 * k + 10}"
    return [*lines, f'  return {running} : {T} loc("jit(fwd)/layers/{layer}/return")', "}"]


def main_function(layers: int) -> list[str]:
    lines = [f"func.func @main({SIGNATURE}) -> {T} {{"]
    running = "%arg0"
    for layer in range(layers):
        lines.append(f"  %{layer} = func.call @layer_{layer}({running}, %arg1, %arg2) : "
                     f"({T}, tensor<64x64xf32>, tensor<64xf32>) -> {T}")
        running = f"%{layer}"
    return [*lines, f"  return {running} : {T}", "}"]


def make_mlir(mb: float, out: Path, seed: int = 5) -> Path:
    """Writes a module of about `mb` MB (10^6 bytes) to `out`; returns its path."""
    rng = random.Random(seed)
    parts: list[str] = ["module {"]
    size, layer = 0, 0
    while size < mb * MB or layer == 0:
        text = "\n".join(layer_function(layer, rng)) + "\n"
        parts.append(text)
        size += len(text) + len(main_function(1)[1]) + 1
        layer += 1
    parts += ["\n".join(main_function(layer)), "}\n"]
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(parts), encoding="utf-8")
    return out


def value_uses(lines: list[str], count: int, seed: int = 3) -> list[tuple[int, int]]:
    """(line, column) on `count` uses of SSA values (an operand after the `=`), on lines picked at random."""
    rng = random.Random(seed)
    defining = [number for number, text in enumerate(lines) if " = " in text and "%" in text.split(" = ", 1)[1]]
    picked = []
    for number in rng.sample(defining, min(count, len(defining))):
        text = lines[number]
        uses = list(_USE.finditer(text, text.index(" = ")))
        picked.append((number, rng.choice(uses).start() + 1))
    return picked


def constant_edits(lines: list[str], count: int, seed: int = 9) -> list[tuple[int, int, int, str]]:
    """`count` one-line edits that keep the module valid: a constant's value replaced by another of the
    same length, as (line, start column, end column, new text), on lines picked at random."""
    rng = random.Random(seed)
    constants = [number for number, text in enumerate(lines) if _CONSTANT.search(text)]
    edits = []
    for number in rng.sample(constants, min(count, len(constants))):
        match = _CONSTANT.search(lines[number])
        assert match is not None
        edits.append((number, match.start(1), match.end(1), f"{rng.uniform(1.0, 9.0):.6f}e-01"))
    return edits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=40.0, help="size of the file in MB (10^6 bytes)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    path = make_mlir(args.mb, args.out)
    print(f"{path.stat().st_size / MB:.2f} MB  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

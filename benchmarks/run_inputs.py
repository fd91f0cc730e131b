"""What benchmarks/run.py asks the server about and compares it with: the positions of names, their most used
instruction, the op_name edits, and the whole-text parses of the lark grammar and of XLA."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from lsprotocol import types

# Both print styles: JAX 0.10.2 writes `%name`, JAX 0.4.38 the bare name.
_DEFINITION = re.compile(r"^\s*(?:ROOT )?%?([\w.\-]+) = ")


_SIGIL_USE = re.compile(r"[(,] ?%([\w.\-]+)")


_BARE_USE = re.compile(r"[(,] ?([A-Za-z_][\w.\-]*)")


def use_pattern(text_lines: list[str]) -> re.Pattern[str]:
    """Operands of the module's print style."""
    sigils = any(text.lstrip().startswith(("%", "ROOT %")) for text in text_lines[:1000])
    return _SIGIL_USE if sigils else _BARE_USE


def positions(path: Path) -> tuple[types.Position, types.Position, list[tuple[int, str]], list[str]]:
    """A definition and a use near the middle of the entry computation, every definition line, the text."""
    text_lines = path.read_text().split("\n")
    definitions = [(number, text) for number, text in enumerate(text_lines) if _DEFINITION.match(text)]
    entry = next(number for number, text in enumerate(text_lines) if text.startswith("ENTRY "))
    with_uses = [(number, text) for number, text in definitions if number > entry and " fusion(" in text]
    number, text = with_uses[len(with_uses) // 2]
    match = _DEFINITION.match(text)
    assert match is not None
    use = use_pattern(text_lines).search(text, match.end())
    assert use is not None
    return (types.Position(number, match.start(1) + 1), types.Position(number, use.start(1)), definitions,
            text_lines)


def random_names(definitions: list[tuple[int, str]], count: int, seed: int = 7) -> list[types.Position]:
    """A name on each of `count` random definition lines: any `%name`, or without sigils the defined
    name or an operand."""
    rng = random.Random(seed)
    picked = []
    for number, text in rng.sample(definitions, min(count, len(definitions))):
        names = [match.start(1) for match in re.finditer(r"%([\w.\-]+)", text)]
        if not names:
            defined = _DEFINITION.match(text)
            assert defined is not None
            names = [defined.start(1)] + [match.start(1) for match in _BARE_USE.finditer(text, defined.end())]
        picked.append(types.Position(number, rng.choice(names)))
    return picked


def most_used(text_lines: list[str]) -> tuple[int, int, str, int]:
    """(line, column, name, uses) of the instruction used most often."""
    defined = {match.group(1): number for number, text in enumerate(text_lines)
               if (match := _DEFINITION.match(text)) is not None}
    # words in strings (`op_name="jit(fwd)/..."`) look like operands too: only defined names count
    uses = use_pattern(text_lines)
    counts = Counter(match.group(1) for text in text_lines for match in uses.finditer(text)
                     if match.group(1) in defined)
    name, uses = counts.most_common(1)[0]
    number = defined[name]
    match = _DEFINITION.match(text_lines[number])
    assert match is not None
    return number, match.start(1), name, uses


# The companions a user opens to read a module's memory: (label, kind, a line that holds one of their entries).
COMPANIONS = (("allocations", "buffer-assignment", " value: <"), ("values", "buffer-assignment-values", " @0>"),
              ("live_ranges", "live-range", "}:"))


def companion_names(files: dict[str, Path]) -> dict[str, tuple[Path, int, int]]:
    """By label, a companion file and the (line, column) of an instruction named on the first entry
    after its middle (else the first): a value's (after `<id `), or a live range's."""
    found = {}
    for label, kind, looks_like in COMPANIONS:
        if kind not in files:
            continue
        lines = files[kind].read_text().split("\n")
        middle_on = [*range(len(lines) // 2, len(lines)), *range(len(lines) // 2)]  # a combined file: values first
        line = next((number for number in middle_on if looks_like in lines[number]), None)
        if line is None:
            continue
        text = lines[line]
        start = text.index(" ", text.index("<") + 1) + 1 if "<" in text else len(text) - len(text.lstrip())
        found[label] = (files[kind], line, start + 1)
    return found


def op_name_edits(text_lines: list[str], count: int, seed: int = 12) -> list[tuple[int, int]]:
    """(line, column) just inside `count` op_name strings, chosen at random (an edit there keeps the
    module valid)."""
    lines = [number for number, text in enumerate(text_lines) if 'op_name="' in text]
    rng = random.Random(seed)
    chosen = [rng.choice(lines) for _ in range(count)]
    return [(number, text_lines[number].index('op_name="') + len('op_name="')) for number in chosen]


def lark_baseline(path: Path, timeout: float) -> float | None:
    """Seconds for the engine's whole-module lark parse of `path` (in a subprocess), None past `timeout`."""
    script = ("import sys, time; from hlo_lsp.parsing.hlo_syntax import parse_module; "
              "text = open(sys.argv[1]).read(); start = time.perf_counter(); parse_module(text); "
              "print(time.perf_counter() - start)")
    try:
        done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True,
                              timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(done.stdout.strip())


def xla_parser(path: Path) -> float | None:
    """Seconds for XLA's C++ HLO parser on `path`, when jax is importable."""
    try:
        from jax._src.lib import xla_client  # type: ignore[import-not-found]
    except ImportError:
        return None
    parse = getattr(getattr(xla_client, "hlo", None), "hlo_module_from_text", None)  # jaxlib 0.10.2
    parse = parse or getattr(getattr(xla_client, "_xla", None), "hlo_module_from_text", None)  # older jaxlib
    if parse is None:
        return None
    text = path.read_text()
    start = time.perf_counter()
    parse(text)
    return time.perf_counter() - start

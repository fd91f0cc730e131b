"""Writes a realistic large XLA dump of a requested size, without JAX.

    .venv/bin/python benchmarks/make_large_dump.py --mb 40 --style 0.10.2 --out DIR
    .venv/bin/python benchmarks/make_large_dump.py --mb 10 --style 0.4.38 --out DIR

`--mb` is the size of the HLO module file (10^6 bytes); the buffer-assignment files
scale along. `--style` picks the source dump and the file layout: 0.10.2 writes the
split files (`-buffer-assignment.txt`, `-buffer-assignment-values.txt`,
`-live-range.txt`, `-memory-usage-report.txt` with `Memory Space:` tables), 0.4.38 the
combined `-buffer-assignment.txt` (old peak list) and the text memory-usage report.
Other scripts import `make_large_dump(mb, style, out) -> {kind: path}`.

Construction: the source is the 96-layer `large_fwd_unrolled` module of the shared
corpus. Its ENTRY schedule is split into a prologue, a run of structurally identical
layer blocks (found as the period of the instructions' opcodes and shapes) and an
epilogue. The new module has L blocks: source blocks 0..L-2 and the last one when
L <= 96, else blocks 0..94, then copies of block 94 with fresh names
(`ynn_fusion.577`, `fused_computation.2213`, ...), then block 95. Each block brings its
own parameters (renumbered, `p['layers'][L]` / `Arg_N.N+1` names) and the computations
only it calls. Operands between blocks are resolved by position within the block,
so layer k reads layer k-1's residual stream. The module is written from the source
text line by line with names substituted (no parsing beyond the line structure).

The buffer assignment is recomputed from that module the way XLA would print it:
value ids in definition order, positions copied from the source values, uses read
off the new module, live ranges from the schedule (definition to last use, entry
parameters and the output over the whole program; a `call` operand ends where the
callee reads it), parameter, constant and thread-local allocations copied per block,
the temporaries laid out again over their live ranges by XLA's global decreasing-size
best-fit heap (the output value alone in the `maybe-live-out` allocation), `Total bytes used`, the peak (time by
XLA's ComputePeakMemoryMoment, the list in the source's format), the stack-trace
breakdown and the memory-usage report recomputed.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from large_dump.buffers import build_buffers, uses_of
from large_dump.emit import emit_hlo
from large_dump.reports import (
    breakdown_lines,
    breakdown_path,
    compute_peak,
    memory_report,
    peak_lines,
    source_breakdown_matches,
)
from large_dump.sources import BaSource, HloSource
from large_dump.structure import Structure, analyse, make_plan
from large_dump.text import MB, SOURCES, SUFFIXES, DumpError, strip_layout

from hlo_lsp.model.sizes import human_bytes

# --------------------------------------------------------------------------- the whole dump


@dataclass(eq=False)
class Source:
    stem: Path
    hlo_text: str
    hlo: HloSource
    ba: BaSource
    structure: Structure
    split: bool
    new_report: bool
    breakdown: bool

    @classmethod
    def load(cls, style: str) -> Source:
        if style not in SOURCES:
            raise ValueError(f"unknown style {style!r}; expected one of {', '.join(SOURCES)}")
        stem = SOURCES[style]
        hlo_text = Path(str(stem) + SUFFIXES["hlo"]).read_text(encoding="utf-8")
        hlo = HloSource.parse(hlo_text)
        split = Path(str(stem) + SUFFIXES["buffer-assignment-values"]).exists()
        kinds = ("buffer-assignment", "buffer-assignment-values", "live-range") if split else ("buffer-assignment",)
        ba_text = "\n".join(Path(str(stem) + SUFFIXES[kind]).read_text(encoding="utf-8") for kind in kinds)
        ba = BaSource.parse(ba_text, hlo.names)
        report = Path(str(stem) + SUFFIXES["memory-usage-report"])
        new_report = report.exists() and report.read_text(encoding="utf-8").startswith("Memory Space:")
        return cls(stem, hlo_text, hlo, ba, analyse(hlo), split, new_report, source_breakdown_matches(hlo, ba))

    def block_bytes(self) -> float:
        """Average bytes one layer block adds to the module text."""
        structure = self.structure
        sizes = []
        for j, block in enumerate(structure.blocks):
            size = sum(len(instr.line) + 1 for instr in block)
            size += sum(len(comp.header) + len(comp.closing) + 3 + sum(len(i.line) + 1 for i in comp.instrs)
                        for comp in structure.block_comps[j])
            for param in structure.block_params[j]:
                # its line, its entry in the signature and in entry_computation_layout, `true,`
                size += len(param.line) + 1 + len(param.name) + len(strip_layout(param.shape)) + 4
                size += len(param.shape) + 2 + 5
            sizes.append(size)
        return sum(sizes) / len(sizes)


@functools.lru_cache(maxsize=len(SOURCES))
def load_source(style: str) -> Source:
    """The parsed source of a style (parsed once per process: build() does not change it)."""
    return Source.load(style)


def layers_for(source: Source, megabytes: float) -> int:
    per_block = source.block_bytes()
    fixed = len(source.hlo_text.encode()) - per_block * len(source.structure.blocks)
    return max(1, round((megabytes * MB - fixed) / per_block))


def build(source: Source, layers: int) -> dict[str, str]:
    """The text of every file of a dump with `layers` blocks, by kind."""
    plan = make_plan(source.hlo, source.structure, layers)
    emitted = emit_hlo(source.hlo, plan)
    allocs, schedule = build_buffers(source.ba, plan, emitted)
    times = {name: t for t, name in enumerate(schedule)}
    values = sorted((v for alloc in allocs for v in alloc.values), key=lambda v: v.vid)
    total = sum(alloc.size for alloc in allocs)
    allocation_lines = ["BufferAssignment:"]
    for alloc in allocs:
        allocation_lines.append(alloc.header)
        allocation_lines.extend(f" value: {v.short} (size={v.size},offset={v.offset}): {v.shape}" for v in alloc.values)
    used_lines = [f"Total bytes used: {total} ({human_bytes(total)})", "", "Used values:"]
    for value in values:
        used_lines.append(value.short)
        used_lines.append(" positions:")
        used_lines.extend(f"  {name}" + (f" {index}" if emitted.shape[name].startswith("(") else "")
                          for name, index in value.positions)
        used_lines.append(" uses:")
        uses = uses_of(value, emitted, times)
        used_lines.extend(uses or (["  (none)"] if source.ba.none_uses else []))
        used_lines.append(f" from instruction: {value.from_text}")
    peak = compute_peak(values, emitted)
    live_lines = [f"HloLiveRange (max {len(schedule)}):", "  InstructionSequence:"]
    live_lines.extend(f"    {t}:{name}" for t, name in enumerate(schedule))
    live_lines.append("  BufferLiveRange:")
    live_lines.extend(f"    {v.label}:{v.start}-{v.end}" for v in values if v.start is not None)
    live_lines.append(f"  Live ranges at {peak.time} (peak):")
    live_lines.extend(peak_lines(peak, source.ba.new_peak))
    if source.breakdown:
        items = [(breakdown_path(v.name, v.index, emitted.line[v.name]), peak.value_bytes[v.vid]) for v in peak.live]
        live_lines.extend(breakdown_lines(emitted.entry_name, items))
    files = {"hlo": emitted.text}
    if source.split:
        files["buffer-assignment"] = "\n".join(allocation_lines) + "\n"
        files["buffer-assignment-values"] = "\n" + "\n".join(used_lines) + "\n"
        files["live-range"] = "\n".join(live_lines) + "\n"
    else:
        files["buffer-assignment"] = "\n".join([*allocation_lines, "", *used_lines, "", "", *live_lines]) + "\n"
    files["memory-usage-report"] = memory_report(allocs, total, source.new_report)
    return files


def make_large_dump(mb: float, style: str, out: Path) -> dict[str, Path]:
    """Writes a dump whose HLO module is about `mb` MB into `out`; returns the files by kind."""
    source = load_source(style)
    layers = layers_for(source, mb)
    files = build(source, layers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for kind, text in files.items():
        path = out / (source.stem.name + SUFFIXES[kind])
        path.write_text(text, encoding="utf-8")
        written[kind] = path
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=40.0, help="size of the HLO module file in MB (10^6 bytes)")
    parser.add_argument("--style", choices=sorted(SOURCES), default="0.10.2")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        written = make_large_dump(args.mb, args.style, args.out)
    except (DumpError, OSError) as error:
        print(f"make_large_dump: {error}", file=sys.stderr)
        return 1
    for kind, path in written.items():
        print(f"{path.stat().st_size / MB:9.2f} MB  {path}  ({kind})")
    print(f"written in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

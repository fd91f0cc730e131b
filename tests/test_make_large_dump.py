"""benchmarks/make_large_dump.py: generated dumps pass every check, hit the requested size and scale."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hlo_lsp.analysis.memory import memory_summary
from hlo_lsp.analysis.run import check_module
from hlo_lsp.workspace.loader import load

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import make_large_dump  # noqa: E402

STYLES = ("0.10.2", "0.4.38")
FILES = {
    "0.10.2": {"hlo", "buffer-assignment", "buffer-assignment-values", "live-range", "memory-usage-report"},
    "0.4.38": {"hlo", "buffer-assignment", "memory-usage-report"},
}

pytestmark = pytest.mark.skipif(
    not all(Path(str(stem) + ".txt").exists() for stem in make_large_dump.SOURCES.values()),
    reason="needs the large_fwd_unrolled dumps of ../shared/corpus",
)


def _instructions(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").split("\n") if line.startswith("  ") and " = " in line)


@pytest.mark.parametrize("style", STYLES)
def test_a_1mb_dump_passes_every_check(style: str, tmp_path: Path) -> None:
    written = make_large_dump.make_large_dump(1.0, style, tmp_path)

    assert set(written) == FILES[style]
    assert all(path.parent == tmp_path and path.exists() for path in written.values())
    size = written["hlo"].stat().st_size
    assert abs(size - 1_000_000) <= 100_000, size
    loaded = load([str(tmp_path)])
    assert loaded.problems == []
    assert len(loaded.modules) == 1
    module = loaded.modules[0]
    assert len(module.documents) == len(FILES[style])
    assert check_module(module) == []
    summary = memory_summary(module.hlo, module.buffer_assignment)
    assert summary.peak_time is not None and summary.peak_bytes is not None
    assert 0 < summary.peak_bytes <= summary.total_bytes


def test_the_instruction_count_scales_with_the_size(tmp_path: Path) -> None:
    small = make_large_dump.make_large_dump(1.0, "0.10.2", tmp_path / "small")
    large = make_large_dump.make_large_dump(2.0, "0.10.2", tmp_path / "large")

    ratio = _instructions(large["hlo"]) / _instructions(small["hlo"])
    assert 1.8 <= ratio <= 2.2, ratio
    assert abs(large["hlo"].stat().st_size - 2_000_000) <= 200_000


def test_the_output_is_deterministic(tmp_path: Path) -> None:
    first = make_large_dump.make_large_dump(0.5, "0.4.38", tmp_path / "first")
    second = make_large_dump.make_large_dump(0.5, "0.4.38", tmp_path / "second")

    for kind, path in first.items():
        assert path.read_bytes() == second[kind].read_bytes(), kind


@pytest.mark.parametrize("style", STYLES)
def test_the_source_layer_count_rebuilds_the_source_module(style: str) -> None:
    """The machinery that copies and renames layers is exact: with the source's 96 layers it
    writes the source module byte for byte (the buffer assignment is recomputed, not copied)."""
    source = make_large_dump.load_source(style)

    files = make_large_dump.build(source, len(source.structure.blocks))

    assert files["hlo"] == source.hlo_text

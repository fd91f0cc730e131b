"""benchmarks/edit_early.py keeps working: on a 2 MB dump, the HLO file's diagnostics come first, and each edit made
at once after them has its own diagnostics."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import make_large_dump  # noqa: E402


@pytest.mark.skipif(not Path(str(make_large_dump.SOURCES["0.10.2"]) + ".txt").exists(),
                    reason="the benchmark's dumps are made from ../shared/corpus, not beside the project")
def test_a_2_mb_run_prints_the_edits_diagnostics_after_the_hlo_file_s(tmp_path: Path) -> None:
    figures_file = tmp_path / "edit_early.json"
    done = subprocess.run([sys.executable, str(BENCHMARKS / "edit_early.py"), "--mb", "2", "--edits", "2",
                           "--json", str(figures_file)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(figures_file.read_text())
    assert 1.5 < figures["file_mb"] < 2.5
    assert 0 < figures["hlo_file_diagnostics_s"] <= figures["every_file_diagnostics_s"] < 60
    assert len(figures["edit_diagnostics_s"]) == 2 and all(0.3 <= s < 30 for s in figures["edit_diagnostics_s"])
    lines = done.stdout.splitlines()
    assert "the HLO file's diagnostics" in lines[0] and lines[1].startswith("edit 1, made at once: its diagnostics")

"""The benchmarks keep working: the engine's (through the facade) on a small module, and the one that drives
the server like an editor on a 1 MB run of each JAX generation's dump, figures in its JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_engine_benchmark_opens_edits_and_looks_up_a_module() -> None:
    source = ROOT / "tests/data/jax-0.10.2/control_flow/module_0000.jit_f.cpu_after_optimizations.txt"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/engine.py"), "--mb", "0.3", "--source", str(source)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = dict(line.split(":", 1) for line in done.stdout.splitlines() if ":" in line)
    assert figures["module"].startswith(" 0.3 MB, ")
    for label in ("index (scan all lines)", "first definition lookup", "first references (reads uses)",
                  "one-line edit (apply_edit)", "references after the edit", "syntax of every line (grammar)"):
        assert float(figures[label].split()[0]) >= 0, label
    assert figures["syntax of every line (grammar)"].endswith(" 0 problems")  # a real module, copied: no problem


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory benchmark reads /proc (Linux)")
def test_the_memory_benchmark_gives_each_file_s_scan_and_the_check_of_the_largest_module(tmp_path: Path) -> None:
    folder = ROOT / "tests/data/jax-0.10.2/control_flow"
    out = tmp_path / "parts.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/memory_parts.py"), "--dir", str(folder),
                           "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["module"].endswith("module_0000.jit_f.cpu_after_optimizations")  # (not before_optimizations)
    parts = {part["step"]: part for part in figures["parts"]}
    assert list(parts) == ["start", "read", "buffer-assignment", "buffer-assignment-values", "hlo-module",
                           "live-range", "memory-usage-report", "check"]
    suffixes = {"buffer-assignment": "-buffer-assignment", "buffer-assignment-values": "-buffer-assignment-values",
                "hlo-module": "", "live-range": "-live-range", "memory-usage-report": "-memory-usage-report"}
    for kind, suffix in suffixes.items():
        text = Path(f"{folder}/module_0000.jit_f.cpu_after_optimizations{suffix}.txt").read_text()
        assert parts[kind]["lines"] == text.count("\n") + 1, kind
        assert parts[kind]["file_mb"] * 1e6 == pytest.approx(len(text.encode()), abs=1), kind
    assert parts["check"]["rss_mb"] == pytest.approx(parts["start"]["rss_mb"] + sum(
        part["kept_mb"] for step, part in parts.items() if step != "start"), abs=0.01)
    assert "the module keeps" in done.stdout and "× the HLO file" in done.stdout


def test_the_editor_benchmark_asks_for_at_least_one_edit() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/run.py"), "--edits", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "0 is not a positive count" in done.stderr


@pytest.mark.skipif(not (ROOT.parent / "shared" / "corpus").is_dir(),
                    reason=f"the benchmark's dumps are made from ../shared/corpus, not beside the project "
                           f"({ROOT.parent})")
@pytest.mark.slow
@pytest.mark.parametrize("style", ["0.10.2", "0.4.38"])
def test_the_editor_benchmark_runs_at_1_mb(tmp_path: Path, style: str) -> None:
    out = tmp_path / "run.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/run.py"), "--style", style, "--sizes", "1", "--samples", "20",
         "--edits", "3", "--no-lark", "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    [figures] = json.loads(out.read_text())
    assert 0.9 < figures["size_mb"] < 1.1
    for name in ("first_hover_s", "first_definition_s", "diagnostics_s", "hover_p99_ms", "definition_p99_ms",
                 "references_ms", "references_wire_ms", "references_json_ms", "references_lsprotocol_ms",
                 "edit_index_p95_ms", "edit_p95_ms",
                 "rss_mb", "rss_idle_mb", "rss_closed_mb"):
        assert figures[name] > 0, name
    assert 0 < figures["hlo_file_diagnostics_s"] <= figures["diagnostics_s"]
    for label in ("hover", "outline", "folding", "links", "lenses", "tokens", "hints", "diagnostics"):
        assert figures[f"editor_{label}_s"] > 0, label  # the file opened as VS Code opens it
    assert figures["editor_answers_mb"] > 0
    companions = ("allocations", "values", "live_ranges") if style == "0.10.2" else ("allocations",)
    for label in companions:  # each companion opened alone, an instruction's memory hovered in it
        assert figures[f"first_hover_{label}_s"] > 0, label
    for label in ("hints", "tokens", "folding", "lenses", "outline", "links", "diagnostics"):
        assert figures[f"editor_edit_{label}_p95_ms"] > 0, label  # asked again after each edit
    assert figures["rss_idle_mb"] < figures["rss_mb"]
    assert figures["rss_floor_ratio"] == (figures["rss_idle_mb"] + figures["files_mb"]) / figures["size_mb"]
    # a check shows a progress bar only past 0.2 s: at 1 MB there may be none (tests/lsp/test_e2e_progress.py)
    assert "progress_reports" in figures
    assert figures["references_count"] >= 2
    table = done.stdout
    assert "first_hover_s" in table and "<= 1 s (40 MB)" in table


def test_the_compare_benchmark_matches_every_byte_of_the_bundled_pair() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/compare_pairs.py")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    row = next(line for line in done.stdout.splitlines() if line.startswith("shared pair: narrow → wide"))
    assert row.split()[5:9] == ["jit__lambda", "1,341,744", "17,899,824", "18"] and "100.0%" in row


def test_the_folder_benchmark_lists_its_modules_cold_and_warm() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/folder_modules.py"), "--modules", "30", "--mb", "0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("30 small modules (180 files)")
    cold, warm = (next(line for line in lines if line.startswith(label)) for label in ("cold", "warm"))
    assert float(cold.split()[-4]) >= float(warm.split()[-4]) >= 0
    assert lines[-1] == "30 rows; the largest peak 524,368 bytes"

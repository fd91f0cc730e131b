"""benchmarks/load.py keeps working: a 2 MB run prints every row with plausible figures, and the MLIR file
benchmarks/make_mlir.py writes is read by mlir-lsp-server without a diagnostic."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import load  # noqa: E402
import lsp_process  # noqa: E402
import make_large_dump  # noqa: E402
import make_mlir  # noqa: E402

ROWS = ("didOpen → diagnostics published", "hover p99 while the initial check runs (hover every 40 ms)",
        "hover p99 in the second after each of 2 one-line edits", "resident memory, server and every process it starts",
        "first hover after didOpen", "RSS idle → after open → after close")
NO_MLIR = "mlir-lsp-server is not installed here (benchmarks/install-mlir installs it)"


@pytest.mark.skipif(not Path(str(make_large_dump.SOURCES["0.10.2"]) + ".txt").exists(),
                    reason="the benchmark's dumps are made from ../shared/corpus, not beside the project")
def test_a_2_mb_run_prints_every_row_with_plausible_figures(tmp_path: Path) -> None:
    figures_file = tmp_path / "load.json"
    done = subprocess.run([sys.executable, str(BENCHMARKS / "load.py"), "--mb", "2", "--edits", "2", "--window", "0.3",
                           "--settle", "0.5", "--positions", "40", "--pause", "0.5", "--no-xla",
                           "--json", str(figures_file)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    table = done.stdout.splitlines()
    assert table[1].split() == ["hlo-lsp", "mlir-lsp-server", "ratio", "target", "met?"]
    assert [line[:len(row)] for line, row in zip(table[2:8], ROWS)] == list(ROWS)
    assert "XLA's C++ parse skipped: --no-xla" in done.stdout  # (importing jax alone takes seconds)
    figures = json.loads(figures_file.read_text())
    ours = figures["hlo-lsp"]
    assert 1.5 < ours["file_mb"] < 2.5
    assert 0 < ours["first_hover_s"] < 20 and 0 < ours["diagnostics_s"] <= ours["all_diagnostics_s"] < 60
    assert ours["edit_hovers_ms"] and all(0 < ms < 20_000 for ms in ours["edit_hovers_ms"] + ours["check_hovers_ms"])
    assert ours["errors"] == ours["errors_after_edits"] == ours["empty_hovers"] == 0  # the edits keep it valid
    assert 0 < ours["hover_after_pause_ms"] < 20_000
    assert "hlo-lsp: " in done.stdout and "the hover after the first, a pause later: " in done.stdout
    assert 20 < ours["rss_idle_mb"] < ours["rss_peak_mb"] < 2_000
    assert ours["rss_closed_mb"] > 0 and ours["rss_open_mb"] > ours["rss_idle_mb"]
    theirs = figures["mlir-lsp-server"]
    if theirs is None:
        assert "mlir-lsp-server is not installed" in done.stdout and "skipped" in table[2]
    else:
        assert theirs["errors"] == theirs["errors_after_edits"] == theirs["empty_hovers"] == 0
        assert len(theirs["edit_hovers_ms"]) >= 2 and theirs["diagnostics_s"] == theirs["all_diagnostics_s"] > 0


@pytest.mark.skipif(load.mlir_server() is None, reason=NO_MLIR)
def test_the_mlir_file_is_read_without_a_diagnostic_and_its_values_are_hovered(tmp_path: Path) -> None:
    path = make_mlir.make_mlir(0.3, tmp_path / "model.mlir")
    lines = path.read_text().split("\n")
    [(line, start, end, text)] = make_mlir.constant_edits(lines, 1)
    server = load.Server([str(load.mlir_server())])
    try:
        server.start(tmp_path)
        uri = path.as_uri()
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "mlir", "version": 1,
                                                                "text": "\n".join(lines)}})
        assert server.listen(lambda: server.diagnostics_after(uri, 0) is not None, 30)
        for position in make_mlir.value_uses(lines, 5):
            assert server.ask("textDocument/hover", load.hover(uri, position), 30)[1] is not None
        lines[line] = lines[line][:start] + text + lines[line][end:]
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": "\n".join(lines)}]})
        assert server.listen(lambda: len(server.published) >= 2, 30)
    finally:
        server.close()
    assert [errors for _, _, errors in server.published] == [0, 0]
    assert "arith.constant dense<" + text in lines[line]


def test_the_resident_memory_of_a_process_tree_counts_its_children() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        tree = lsp_process.process_tree(os.getpid())
        assert child.pid in tree
        assert lsp_process.resident_mb(tree) > lsp_process.resident_mb([os.getpid()]) > 0
    finally:
        child.kill()  # the child this test started
        child.wait()


def test_a_hovers_cell_gives_the_p99_the_p50_and_the_slowest() -> None:
    figures = load.Figures("hlo-lsp", 40.0)
    samples = [float(ms) for ms in range(1, 200)] + [604.0]
    assert load.hovers_cell(figures, samples) == (198.0, "198 ms (p50 101 ms, max 604 ms)")

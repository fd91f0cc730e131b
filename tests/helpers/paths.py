"""Where the tests' dumps are: the bundled real dumps in tests/data, by what they exercise, and the
shared corpus beside the project."""

from __future__ import annotations

import re
from pathlib import Path

from hlo_lsp.parsing.file_kinds import detect_kind

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"

# Bundled modules, by what they exercise (a module's stem: its files are the stem plus a suffix).
SPLIT_MLP = DATA / "jax-0.10.2" / "mlp3" / "module_0000.jit_mlp.cpu_after_optimizations"
COMBINED_MLP = DATA / "jax-0.4.38" / "mlp3" / "module_0001.jit_mlp.cpu_after_optimizations"
SPLIT_CONTROL_FLOW = DATA / "jax-0.10.2" / "control_flow" / "module_0000.jit_f.cpu_after_optimizations"
COMBINED_CONTROL_FLOW = DATA / "jax-0.4.38" / "control_flow" / "module_0001.jit_f.cpu_after_optimizations"
# The shared corpus's compare pair: one MLP train step at widths 256 and 1024 (tests/data/jax-0.10.2/pair_mlp_*).
PAIR_NARROW = DATA / "jax-0.10.2" / "pair_mlp_narrow"
PAIR_WIDE = DATA / "jax-0.10.2" / "pair_mlp_wide"
# A small program's whole --xla_dump_to folder: 14 compilations, most of them eager ops.
FOLDER_SMALL_EAGER = DATA / "jax-0.10.2" / "folder_small_eager"
GPU_SEED = DATA / "seeds" / "torchxla-gpu-decode.buffer-assignment.txt"
GPU_HLO_SEED = DATA / "seeds" / "torchxla-gpu-decode-batch32.after_optimizations.txt"
TPU_SEED = DATA / "seeds" / "tpu-allreduce-mlp.buffer-assignment.txt"
TPU_JAX_SEED = DATA / "seeds" / "jax-tpu-mini-attention.buffer-assignment.txt"
HANDWRITTEN = DATA / "handwritten" / "while_and_constants.hlo"
PRODUCERS = DATA / "producers"
TPU_MATMUL = PRODUCERS / "jax-0.10.2-tpu" / "sharded_matmul_2x2" / "module_0000.jit_mm.cl_933746096.after_optimizations"
TPU_STEP = PRODUCERS / "jax-0.10.2-tpu" / "sharded_matmul_2x2" / "module_0005.jit_step.cl_933746096.after_optimizations"
TPU_PALLAS = PRODUCERS / "jax-0.10.2-tpu" / "pallas_kernels" / "module_0000.jit_loss.cl_933746096.after_optimizations"
TF_EVAL = PRODUCERS / "tf-2.21.0" / "keras_mlp_train" / (
    "module_0002.a_inference_eval_step_505__XlaMustCompile_true_config_proto_13561319589895757934_executor_type_"
    "11160318154034397263_.3.cpu_after_optimizations")
TORCH_EVAL = PRODUCERS / "torch-xla-2.9.0" / "mlp_train" / "module_0004.SyncTensorsGraph.66.cpu_after_optimizations"
FLAX_LOWP = PRODUCERS / "jax-0.10.2-flax" / "lowp_dtypes" / "module_0000.jit_f.cpu_after_optimizations"
FLAX_SCAN = PRODUCERS / "jax-0.10.2-flax" / "scan_remat_policy" / "module_0000.jit_step.cpu_after_optimizations"

# The HLO module file of SPLIT_MLP (JAX 0.10.2: `%` names, stack frame tables), the file most tests open.
SPLIT_HLO = Path(f"{SPLIT_MLP}.txt")
# The same program from JAX 0.4.38: no `%` in names, one combined buffer-assignment file.
COMBINED_HLO = Path(f"{COMBINED_MLP}.txt")


def is_dump(path: Path) -> bool:
    return detect_kind(path.name, path.read_text(errors="replace")).is_dump


# Every bundled dump file (not the MANIFESTs and the side files XLA writes beside TPU dumps).
DUMP_FILES = sorted(path for path in DATA.rglob("*") if path.is_file() and is_dump(path))


def pyproject_version() -> str:
    """The [project] table's version in pyproject.toml, where the version is written (read without tomllib,
    which Python 3.10 lacks)."""
    text = (DATA.parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    table = re.search(r"^\[project\]\n((?:(?!\[).*\n)*)", text, re.MULTILINE)
    assert table, "pyproject.toml has no [project] table"
    version = re.search(r'^version = "([^"]+)"$', table.group(1), re.MULTILINE)
    assert version, "pyproject.toml's [project] table has no version"
    return version.group(1)

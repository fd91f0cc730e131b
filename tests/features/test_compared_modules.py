"""Modules of two dumps paired as a user pairs them: by the name the program gave them, whatever the producer's
file naming, each compilation once."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import PAIR_NARROW, PAIR_WIDE, SPLIT_MLP, TF_EVAL, TORCH_EVAL, TPU_MATMUL
from hlo_lsp.features.compared_modules import Paired, has_own_memory, module_name, pair_by_name, without_numbers
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.workspace.loader import load


def _modules(*paths: object) -> list[ModuleDump]:
    return load([str(path) for path in paths]).modules


def pair_modules(a: list[ModuleDump], b: list[ModuleDump]) -> tuple[list[Paired[ModuleDump]], list[tuple[str, str]]]:
    """The modules with memory of their own paired by `module_name`; what is left as (side, name)."""
    pairs, left = pair_by_name([m for m in a if has_own_memory(m)], [m for m in b if has_own_memory(m)], module_name)
    return pairs, [(side, module_name(module)) for side, module in left]


def _named(modules: list[ModuleDump], stem: object) -> ModuleDump:
    return next(module for module in modules if module.stem == str(stem))


def test_a_module_is_named_as_the_program_named_it_whatever_produced_it() -> None:
    jax, tpu = _modules(SPLIT_MLP.parent), _modules(TPU_MATMUL.parent)
    tf, torch = _modules(TF_EVAL.parent), _modules(TORCH_EVAL.parent)
    assert module_name(_named(jax, SPLIT_MLP)) == "jit_mlp"
    assert module_name(_named(tpu, TPU_MATMUL)) == "jit_mm"  # without TPU's `.cl_933746096`
    assert without_numbers(module_name(_named(tf, TF_EVAL))) == "a_inference_eval_step"
    assert without_numbers(module_name(_named(torch, TORCH_EVAL))) == "SyncTensorsGraph"
    assert without_numbers("jit_step") == "jit_step"
    assert without_numbers("jit__lambda_") == "jit__lambda"  # JAX 0.4.38's name of a `<lambda>`


def test_each_compilation_is_paired_once_by_its_stage_with_memory_of_its_own() -> None:
    # A TPU compilation writes five HLO stages; two of them borrow the buffer assignment of after_optimizations.
    pairs, unpaired = pair_modules(_modules(TPU_MATMUL.parent), _modules(TPU_MATMUL.parent))
    assert sorted((pair.name, pair.paired_by) for pair in pairs) == [("jit_mm", "name"), ("jit_step", "name")]
    assert all(pair.a.stem.endswith(".after_optimizations") and pair.a.stem == pair.b.stem for pair in pairs)
    assert unpaired == []


def test_pytorch_graphs_pair_by_name_without_their_numbers(tmp_path: Path) -> None:
    for source in TORCH_EVAL.parent.glob(TORCH_EVAL.name + "*"):  # the same graph, numbered as another run numbers it
        renamed = source.name.replace("module_0004.SyncTensorsGraph.66", "module_0007.SyncTensorsGraph.250")
        shutil.copyfile(source, tmp_path / renamed)
    pairs, unpaired = pair_modules(_modules(TORCH_EVAL.parent, SPLIT_MLP.parent), _modules(SPLIT_MLP.parent, tmp_path))
    assert sorted((pair.name, pair.paired_by) for pair in pairs) == [
        ("SyncTensorsGraph.66", "name without numbers"), ("jit_mlp", "name")]
    assert unpaired == []


def test_two_files_of_different_programs_pair_when_each_side_has_one_and_others_are_listed() -> None:
    pairs, unpaired = pair_modules(_modules(f"{SPLIT_MLP}.txt"), _modules(PAIR_NARROW))
    assert [(pair.name, pair.paired_by) for pair in pairs] == [("jit_mlp", "order")]
    pairs, unpaired = pair_modules(_modules(SPLIT_MLP.parent, PAIR_NARROW), _modules(PAIR_WIDE))
    assert [(pair.name, pair.paired_by) for pair in pairs] == [("jit__lambda", "name")]
    assert unpaired == [("a", "jit_mlp")]

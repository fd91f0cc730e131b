"""How the CLI names modules: by their file name, with as many folders above it as tell two apart."""

from __future__ import annotations

from hlo_lsp.cli.paths import distinct_names


def test_a_name_gets_the_folders_that_tell_it_apart_and_no_more() -> None:
    stems = ["runs/a/x/module_0000.jit_step", "runs/b/x/module_0000.jit_step", "runs/b/module_0001.jit_eval"]
    assert distinct_names(stems) == {
        "runs/a/x/module_0000.jit_step": "a/x/module_0000.jit_step",
        "runs/b/x/module_0000.jit_step": "b/x/module_0000.jit_step",
        "runs/b/module_0001.jit_eval": "module_0001.jit_eval",
    }


def test_the_same_stem_twice_keeps_its_name() -> None:
    assert distinct_names(["m", "m"]) == {"m": "m"}
    assert distinct_names(["d/m", "m"]) == {"d/m": "d/m", "m": "m"}

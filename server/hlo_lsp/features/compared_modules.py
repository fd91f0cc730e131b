"""Which module of one dump is which module of another: the modules two runs of a program compiled, paired by
the name the program gave them (`jit_step`, PyTorch/XLA's `SyncTensorsGraph`, a TensorFlow function), then by
order among modules of one name.

Only the modules with memory of their own take part: a module's buffer assignment, not the one another
stage of its compilation borrows (a TPU compilation's `after_codegen` reads its `after_optimizations`'s)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind, dump_name

# What TensorFlow appends to a function's name: its attributes, then numbers (`_474__XlaMustCompile_..._.9`).
_TF_ATTRIBUTES = re.compile(r"__XlaMustCompile.*$")
# `.250` (PyTorch/XLA), `_474` (TensorFlow), and trailing `_` (JAX 0.4.38 names `<lambda>` `jit__lambda_`).
_NUMBER_SUFFIXES = re.compile(r"(?:[._][0-9]+)*_*$")


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Paired(Generic[T]):
    a: T
    b: T
    name: str  # the name they share (the first side's, when paired by order)
    paired_by: str  # "name", "name without numbers" or "order"


@dataclass(frozen=True, slots=True)
class Unpaired:
    side: str  # "a" or "b"
    name: str
    path: str


def module_name(module: ModuleDump) -> str:
    """The name the program gave the module: its dump file's name without `module_NNNN.`, the stage and TPU's
    compilation id (`jit_step`); the file's stem where it is not named as XLA names dumps."""
    base = os.path.basename(module.stem)
    named = dump_name(base)
    if named is None:
        return base
    return named.program_name or base


def without_numbers(name: str) -> str:
    """The name without what a framework numbers each compilation with (`SyncTensorsGraph.250`, a TensorFlow
    function's id and attributes) and without trailing underscores (`jit__lambda_`, JAX 0.4.38's)."""
    return _NUMBER_SUFFIXES.sub("", _TF_ATTRIBUTES.sub("", name)) or name


def has_own_memory(module: ModuleDump) -> bool:
    """Whether the module has a buffer assignment of its own (not one another stage's, which it borrows)."""
    return FileKind.BUFFER_ASSIGNMENT not in module.borrowed and module.buffer_assignment is not None


def pair_by_name(a: list[T], b: list[T], name: Callable[[T], str]) -> tuple[list[Paired[T]], list[tuple[str, T]]]:
    """The modules of two dumps (each named by `name`: `module_name`) paired: by name, then by the name without
    its numbers, each in the dumps' order; when one module of each side is left, those two (two files compared
    by hand). What is left: ("a" or "b", module)."""
    left_a, left_b = list(a), list(b)
    pairs: list[Paired[T]] = []
    for how, key in (("name", name), ("name without numbers", lambda module: without_numbers(name(module)))):
        for module_a in list(left_a):
            match = next((module_b for module_b in left_b if key(module_b) == key(module_a)), None)
            if match is not None:
                pairs.append(Paired(module_a, match, name(module_a), how))
                left_a.remove(module_a)
                left_b.remove(match)
    if len(left_a) == 1 and len(left_b) == 1:
        pairs.append(Paired(left_a[0], left_b[0], name(left_a[0]), "order"))
        left_a, left_b = [], []
    return pairs, [("a", module) for module in left_a] + [("b", module) for module in left_b]

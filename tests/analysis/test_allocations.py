"""Allocation and value structure (dump-format.md §3.1) planted into real dumps."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import (
    COMBINED_MLP,
    GPU_SEED,
    SPLIT_MLP,
    TPU_JAX_SEED,
    TPU_PALLAS,
    TPU_SEED,
    module_of,
    plant_in_copy,
    problems_of,
    where,
)
from hlo_lsp.problems import Severity

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def planted(stem: Path, tmp_path: Path, old: str, new: str, suffix: str = "-buffer-assignment.txt") -> tuple[Path, int]:
    return plant_in_copy(stem, suffix, tmp_path, old, new)


@pytest.mark.parametrize("stem", [SPLIT_MLP, COMBINED_MLP])
def test_allocation_index_out_of_order(stem: Path, tmp_path: Path) -> None:
    ba, line = planted(stem, tmp_path, "allocation 3: size 10240", "allocation 4: size 10240")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, ERROR, "allocation-index")]
    assert problems[0].message == "allocation 4 is number 3 in the file; indices run 0..N-1"


def test_temp_allocation_without_preallocated_temp_flag(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, "allocation 14: size 65536, preallocated-temp:",
                       "allocation 14: size 65536:")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, ERROR, "preallocated-temp")]
    assert "allocation 14 must be preallocated-temp" in problems[0].message


@pytest.mark.parametrize(("old", "new", "kinds"), [
    ("allocation 4: size 1280, output shape is |f32[32,10]|, maybe-live-out:",
     "allocation 4: size 1280, output shape is |f32[32,10]|, maybe-live-out, preallocated-temp:", "maybe-live-out"),
    ("allocation 13: size 4, thread-local:", "allocation 13: size 4, thread-local, preallocated-temp:", "thread-local"),
])
def test_preallocated_temp_flag_on_a_live_out_or_thread_local_allocation(
        old: str, new: str, kinds: str, tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, old, new)
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, ERROR, "preallocated-temp")]
    assert "must not be preallocated-temp" in problems[0].message and kinds in problems[0].message


def test_parameter_that_is_also_constant(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, "parameter 5, shape |f32[10]| at ShapeIndex {}:",
                       "parameter 5, shape |f32[10]| at ShapeIndex {}, constant:")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, ERROR, "allocation-kinds")]
    assert problems[0].message == "allocation 7 is both parameter and constant"


def test_output_allocation_not_maybe_live_out(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, "output shape is |f32[32,10]|, maybe-live-out:",
                       "output shape is |f32[32,10]|:")
    problems = problems_of(tmp_path)
    # Without maybe-live-out it is also a temp allocation that lacks the flag.
    assert where(problems) == [(ba.name, line, WARNING, "output-not-live-out"),
                               (ba.name, line, ERROR, "preallocated-temp")]
    assert "holds the output but is not maybe-live-out" in problems[0].message


@pytest.mark.parametrize(("stem", "value_id"), [(SPLIT_MLP, 69), (COMBINED_MLP, 66)])
def test_value_past_the_end_of_its_allocation(stem: Path, value_id: int, tmp_path: Path) -> None:
    ba, line = planted(stem, tmp_path, f"<{value_id} reduce_log_fusion @0> (size=128,offset=128)",
                       f"<{value_id} reduce_log_fusion @0> (size=128,offset=65500)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, ERROR, "value-outside-allocation")]
    assert problems[0].message == ("reduce_log_fusion occupies bytes [65500, 65628) "
                                   "but allocation 14 has only 65536 bytes")
    assert [(r.range.start.line, r.message) for r in problems[0].related] == [(30, "allocation 14: size 65536")]


def test_value_color_differs_from_its_tpu_allocation(tmp_path: Path) -> None:
    ba, line = planted(TPU_SEED, tmp_path, " value: <36 fusion.12 @1>", " value: <36 fusion.12 @2>", suffix="")
    problems = problems_of(tmp_path)
    header = ba.read_text().split("\n").index("<36 fusion.12 @1>")
    assert where(problems) == [(ba.name, line, WARNING, "memory-space"), (ba.name, line, ERROR, "value-color"),
                               (ba.name, header, ERROR, "value-header")]
    assert problems[1].message == "fusion.12 has color 2 but allocation 12 has color 1"
    assert problems[0].message == "fusion.12 has color 2 but its layout says memory space 1"


def test_value_color_differs_on_a_cpu_allocation(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, " value: <68 add_reduce_fusion @0>", " value: <68 add_reduce_fusion @1>")
    values = Path(str(ba).replace("-buffer-assignment", "-buffer-assignment-values"))
    problems = problems_of(tmp_path)
    assert where(problems) == [
        (values.name, values.read_text().split("\n").index("<68 add_reduce_fusion @0>"), ERROR, "value-header"),
        (ba.name, line, WARNING, "memory-space"), (ba.name, line, ERROR, "value-color")]
    assert problems[2].message == "add_reduce_fusion has color 1 but allocation 14 has color 0"


def test_layout_memory_space_differs_from_value_color(tmp_path: Path) -> None:
    ba, line = planted(TPU_SEED, tmp_path, "f32[8,128,3584]{2,1,0:T(8,128)S(1)}\n", "f32[8,128,3584]{2,1,0:T(8,128)}\n",
                       suffix="")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, WARNING, "memory-space")]


def test_gpu_array_value_size_differs_from_dense_size(tmp_path: Path) -> None:
    ba, line = planted(GPU_SEED, tmp_path, "<197 triton_softmax.4.0 @0> (size=524288,offset=0)",
                       "<197 triton_softmax.4.0 @0> (size=262144,offset=0)", suffix="")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, WARNING, "value-size")]
    assert problems[0].message == "triton_softmax.4.0: f32[128,8,128]{2,1,0} takes 524288 bytes (dense), not 262144"


def test_gpu_tuple_value_size_differs_from_its_pointer_table(tmp_path: Path) -> None:
    ba, line = planted(GPU_SEED, tmp_path, "<178 custom-call.5.0{} @0> (size=16,offset=1311232)",
                       "<178 custom-call.5.0{} @0> (size=24,offset=1311232)", suffix="")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, WARNING, "value-size")]
    assert problems[0].message == "custom-call.5.0{} is a tuple of 2: its table takes 16 bytes, not 24"


@pytest.mark.parametrize(("seed", "old", "new", "message"), [
    (TPU_SEED, "<36 fusion.12 @1> (size=14680064,", "<36 fusion.12 @1> (size=14680000,",
     "fusion.12: f32[8,128,3584]{2,1,0:T(8,128)S(1)} takes 14680064 bytes (tiled (padded)), not 14680000"),
    (TPU_JAX_SEED, "<74 multiply_reduce_fusion{0} @1> (size=512,", "<74 multiply_reduce_fusion{0} @1> (size=64,",
     "multiply_reduce_fusion{0}: f32[16]{0:T(128)S(1)} takes 512 bytes (tiled (padded)), not 64"),
])
def test_tpu_tiled_value_size_differs_from_padded_size(seed: Path, old: str, new: str, message: str,
                                                       tmp_path: Path) -> None:
    ba, line = planted(seed, tmp_path, old, new, suffix="")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, WARNING, "value-size")]
    assert problems[0].message == message


def test_tpu_tuple_values_are_32_bytes_whatever_their_arity() -> None:
    buffers = module_of(TPU_SEED).buffer_assignment
    assert buffers is not None
    tuples = {value.label: value.size for value in buffers.values() if value.shape_text.startswith("(")}
    assert tuples == {"copy-start.1{}": 32, "copy-start{}": 32, "all-reduce.28{}": 32, "tuple.31{}": 32}
    assert problems_of(TPU_SEED) == []


def test_a_layoutless_tpu_scalar_may_take_a_whole_tile_but_not_less_than_its_size(tmp_path: Path) -> None:
    assert problems_of(TPU_PALLAS.parent) == []  # `f32[]` without a layout in 4,096 bytes, as XLA allocated it
    ba, line = planted(TPU_PALLAS, tmp_path, "<11 add @0> (size=4096,", "<11 add @0> (size=2,")
    problems = problems_of(tmp_path)
    assert ("value-size", line) in [(p.code, p.range.start.line) for p in problems if p.source == str(ba)]
    message = next(p.message for p in problems if p.code == "value-size")
    assert message == "add: f32[] takes at least 4 bytes (dense), not 2"


def test_values_out_of_id_order(tmp_path: Path) -> None:
    first = " value: <58 ynn_fusion.2 @0> (size=32768,offset=32768): f32[32,256]{1,0}\n"
    second = " value: <60 broadcast_maximum_fusion @0> (size=32768,offset=32768): f32[32,256]{1,0}\n"
    ba, line = planted(SPLIT_MLP, tmp_path, first + second, second + first)
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line + 1, WARNING, "value-order")]
    assert problems[0].message == "value 58 listed after 60; values are sorted by id"


def test_allocation_bigger_than_its_values(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, "<59 bs_0_.1 @0> (size=1024,offset=0)",
                       "<59 bs_0_.1 @0> (size=1000,offset=0)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line - 1, WARNING, "allocation-size"), (ba.name, line, WARNING, "value-size")]
    assert problems[0].message == "allocation 5 is 1024 bytes but its values end at 1000 (24 bytes unused)"


def test_no_value_has_the_parameter_shape(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, "parameter 5, shape |f32[10]|", "parameter 5, shape |f32[11]|")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, WARNING, "parameter-shape")]
    assert problems[0].message == "no value of allocation 7 has the parameter's shape f32[11]"


def test_allocation_without_values(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, " value: <67 bs_2_.1 @0> (size=40,offset=0): f32[10]{0}\n", "")
    values = Path(str(ba).replace("-buffer-assignment", "-buffer-assignment-values"))
    lr = Path(str(ba).replace("-buffer-assignment", "-live-range"))
    problems = problems_of(tmp_path)
    # The removed value is still in Used values and in the live ranges: those say so too.
    assert where(problems) == [
        (values.name, values.read_text().split("\n").index("<67 bs_2_.1 @0>"), ERROR, "unallocated-used-value"),
        (ba.name, line - 1, INFO, "empty-allocation"),
        (ba.name, line - 1, WARNING, "parameter-shape"),
        (lr.name, lr.read_text().split("\n").index("    bs_2_.1{}:0-15"), WARNING, "unallocated-live-range")]
    assert problems[1].message == "allocation 7 has no values"


def test_value_id_used_twice(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, "<70 broadcast_subtract_fusion @0>", "<66 broadcast_subtract_fusion @0>")
    values = Path(str(ba).replace("-buffer-assignment", "-buffer-assignment-values")).read_text().split("\n")
    problems = problems_of(tmp_path)
    # Used values still lists 66 as ynn_fusion and 70 as broadcast_subtract_fusion.
    assert [p[1:] for p in where(problems)] == [
        (values.index("<66 ynn_fusion @0>"), ERROR, "value-header"),
        (values.index("<70 broadcast_subtract_fusion @0>"), ERROR, "unallocated-used-value"),
        (line, ERROR, "duplicate-value-id")]
    assert problems[2].source == str(ba)
    assert problems[2].message == "value id 66 is also used by ynn_fusion in allocation 4"
    assert problems[2].related[0].range.start.line == line - 1


def test_unknown_allocation_property(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, tmp_path, "|f32[32,10]|, maybe-live-out:", "|f32[32,10]|, maybe-live-out, pinned:")
    problems = problems_of(tmp_path)
    assert where(problems) == [(ba.name, line, WARNING, "allocation-properties")]
    assert problems[0].message == "unknown allocation property: ', pinned'"

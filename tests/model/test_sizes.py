"""dense_size / tiled_size / human_bytes against the sizes XLA printed in every bundled dump."""

from __future__ import annotations

import pytest

from helpers import DATA
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.sizes import dense_size, has_tiles, human_bytes, tiled_size
from hlo_lsp.parsing.hlo_syntax import parse_shape
from hlo_lsp.parsing.syntax import Shape, TupleShape, subshape
from hlo_lsp.workspace.loader import load

MODULES = [module for module in load([str(DATA)]).modules if module.buffer_assignment is not None]
TPU_STEMS = ("tpu-allreduce-mlp", "jax-tpu-mini-attention", "jax-tpu-reference-attention")
TPU_PRODUCER_MODULES = (
    "producers/jax-0.10.2-tpu/pallas_kernels/module_0000.jit_loss.cl_933746096.after_optimizations",
    "producers/jax-0.10.2-tpu/sharded_matmul_2x2/module_0000.jit_mm.cl_933746096.after_optimizations",
    "producers/jax-0.10.2-tpu/sharded_matmul_2x2/module_0005.jit_step.cl_933746096.after_optimizations",
)


def name_of(module: ModuleDump) -> str:
    return module.stem.split("/data/")[-1]


def shape(text: str) -> Shape:
    parsed = parse_shape(text)
    assert not hasattr(parsed, "message"), f"{text}: {parsed}"
    return parsed


def is_tpu(module: ModuleDump) -> bool:
    return any(has_tiles(shape(value.shape_text)) for value in module.buffer_assignment.values())


# The 14 compilations of one small program's --xla_dump_to folder (its MANIFEST.txt lists them).
FOLDER_SMALL_EAGER_MODULES = tuple(f"jax-0.10.2/folder_small_eager/{name}.cpu_after_optimizations" for name in (
    "module_0000.jit_stage", "module_0002.jit__threefry_seed", "module_0004.jit__threefry_split",
    "module_0006.jit_unstack", "module_0008.jit__normal", "module_0010.jit_multiply",
    "module_0012.jit_convert_element_type", "module_0014.jit_broadcast_in_dim", "module_0016.jit__normal",
    "module_0018.jit__normal", "module_0020.jit_step", "module_0022.jit_norm", "module_0024.jit_abs",
    "module_0026.jit__reduce_max"))


def test_every_bundled_buffer_assignment_is_measured():
    assert sorted(name_of(module) for module in MODULES) == [
        "jax-0.10.2/control_flow/module_0000.jit_f.cpu_after_optimizations",
        *FOLDER_SMALL_EAGER_MODULES,
        "jax-0.10.2/lowp_outputs/module_0004.jit_quantize.cpu_after_optimizations",
        "jax-0.10.2/mlp3/module_0000.jit_mlp.cpu_after_optimizations",
        "jax-0.10.2/pair_mlp_narrow/module_0000.jit__lambda.cpu_after_optimizations",
        "jax-0.10.2/pair_mlp_wide/module_0000.jit__lambda.cpu_after_optimizations",
        "jax-0.10.2/tiny_add/module_0000.jit__lambda.cpu_after_optimizations",
        "jax-0.10.2/tiny_add/module_0002.jit__lambda.cpu_after_optimizations",
        "jax-0.4.38/control_flow/module_0001.jit_f.cpu_after_optimizations",
        "jax-0.4.38/mlp3/module_0001.jit_mlp.cpu_after_optimizations",
        "producers/jax-0.10.2-flax/lowp_dtypes/module_0000.jit_f.cpu_after_optimizations",
        "producers/jax-0.10.2-flax/scan_remat_policy/module_0000.jit_step.cpu_after_optimizations",
        *TPU_PRODUCER_MODULES,
        "producers/tf-2.21.0/keras_mlp_train/module_0002.a_inference_eval_step_505__XlaMustCompile_true_config_proto_"
        "13561319589895757934_executor_type_11160318154034397263_.3.cpu_after_optimizations",
        "producers/torch-xla-2.9.0/mlp_hlo_debug/module_0003.SyncTensorsGraph.175.cpu_after_optimizations",
        "producers/torch-xla-2.9.0/mlp_train/module_0004.SyncTensorsGraph.66.cpu_after_optimizations",
        "seeds/jax-tpu-mini-attention",
        "seeds/jax-tpu-reference-attention",
        "seeds/torchxla-gpu-decode",
        "seeds/tpu-allreduce-mlp",
    ]
    assert [name_of(module) for module in MODULES if is_tpu(module)] == [
        *TPU_PRODUCER_MODULES, *(f"seeds/{s}" for s in sorted(TPU_STEMS))]


@pytest.mark.parametrize("module", [m for m in MODULES if not is_tpu(m)], ids=name_of)
def test_dense_size_of_every_gpu_and_cpu_value(module):
    values = list(module.buffer_assignment.values())
    assert values
    assert [(v.label, dense_size(shape(v.shape_text))) for v in values] == [(v.label, v.size) for v in values]


@pytest.mark.parametrize("module", [m for m in MODULES if is_tpu(m)], ids=name_of)
def test_tiled_size_of_every_tpu_array_value_with_a_layout(module):
    arrays = [v for v in module.buffer_assignment.values() if not isinstance(shape(v.shape_text), TupleShape)
              and shape(v.shape_text).layout is not None]
    assert arrays
    assert [(v.label, tiled_size(shape(v.shape_text))) for v in arrays] == [(v.label, v.size) for v in arrays]


def test_layoutless_tpu_scalars_take_a_whole_tile_of_memory():
    (module,) = [m for m in MODULES if name_of(m) == TPU_PRODUCER_MODULES[0]]
    layoutless = {(v.label, v.shape_text, v.size) for v in module.buffer_assignment.values()
                  if not isinstance(shape(v.shape_text), TupleShape) and shape(v.shape_text).layout is None}
    assert layoutless == {(name, "f32[]", 4096) for name in ("add", "lhs", "rhs", "add.2", "lhs.1", "rhs.1")}


@pytest.mark.parametrize("module", [m for m in MODULES if is_tpu(m)], ids=name_of)
def test_tpu_tuple_tables_are_backend_sized_and_have_no_tiled_size(module):
    """The seeds' TPU printed 32 bytes for every tuple table, libtpu 0.0.42 prints 512."""
    tuples = [v for v in module.buffer_assignment.values() if isinstance(shape(v.shape_text), TupleShape)]
    assert tuples and {v.size for v in tuples} == ({512} if name_of(module).startswith("producers/") else {32})
    assert {tiled_size(shape(v.shape_text)) for v in tuples} == {None}


def test_cpu_tuples_are_eight_bytes_per_element():
    module = next(m for m in MODULES if name_of(m).startswith("jax-0.10.2/control_flow"))
    tuples = [(v.label, len(shape(v.shape_text).elements), v.size) for v in module.buffer_assignment.values()
              if isinstance(shape(v.shape_text), TupleShape)]
    assert {arity for _, arity, _ in tuples} == {1, 2, 3}
    assert [size for _, _, size in tuples] == [8 * arity for _, arity, _ in tuples]


@pytest.mark.parametrize("module", [m for m in MODULES if m.buffer_assignment.live_range], ids=name_of)
def test_peak_entries_are_dense_sizes_also_on_tpu(module):
    buffers = module.buffer_assignment
    instruction_shapes = {used.instruction_name: used.instruction_shape for used in buffers.used_values}
    measured = []
    for entry in buffers.live_range.peak:
        whole = shape(instruction_shapes[entry.name])
        # old format: the whole defining instruction's shape; new format: the value's own subshape
        measured.append(dense_size(whole if entry.index is None else subshape(whole, entry.index)))
    assert measured == [entry.size for entry in buffers.live_range.peak]


@pytest.mark.parametrize("module", MODULES, ids=name_of)
def test_total_bytes_used_is_printed_in_human_form(module):
    totals = module.buffer_assignment.totals
    assert totals.size == sum(allocation.size for allocation in module.buffer_assignment.allocations)
    assert human_bytes(totals.size) == totals.human


# ---- examples from dump-format.md §1.5 ----------------------------------------------------------


@pytest.mark.parametrize(("text", "tiled", "dense"), [
    ("f32[]{:T(128)}", 512, 4),
    ("f32[64,32]{0,1:T(8,128)}", 16384, 8192),
    ("f32[16]{0:T(128)}", 512, 64),
    ("f32[8,128,4096]{2,1,0:T(8,128)}", 16777216, 16777216),
    ("bf16[3,5]{1,0:T(8,128)(2,1)}", 2048, 30),  # the second tile applies to the tiled dims
    ("u32[]{:S(2)}", 4, 4),  # no tiles: dense
])
def test_tiled_and_dense_size_examples(text, tiled, dense):
    assert (tiled_size(shape(text)), dense_size(shape(text))) == (tiled, dense)


@pytest.mark.parametrize(("text", "size"), [
    ("pred[]", 1),
    ("pred[10]{0}", 10),  # one byte per element
    ("s4[1000]{0}", 1000),  # sub-byte types take a byte each without E(n)
    ("u4[33]", 33),
    ("s4[1000]{0:E(4)}", 500),  # E(4) packs two per byte
    ("s4[1001]{0:E(4)}", 501),  # rounded up
    ("f4e2m1fn[10]{0:E(4)}", 5),
    ("f8e4m3fn[10]", 10),
    ("c128[2]", 32),
    ("f32[<=10,4]", 160),  # a bounded dynamic dim takes its bound
    ("token[]", 0),
    ("(f32[], s32[2], pred[])", 24),  # tuple: 8 bytes per top-level element
    ("((f32[], f32[]), s32[])", 16),
])
def test_dense_size_examples(text, size):
    assert dense_size(shape(text)) == size


def test_unbounded_dynamic_shape_has_no_size():
    assert dense_size(shape("f32[?,4]")) is None
    assert tiled_size(shape("f32[?,4]{1,0:T(8,128)}")) is None


@pytest.mark.parametrize(("count", "text"), [
    (0, "0B"),
    (512, "512B"),
    (1023, "1023B"),
    (1024, "1.0KiB"),
    (12288, "12.0KiB"),
    (172580, "168.5KiB"),
    (1048575, "1024.0KiB"),  # integer division stops below 1 MiB
    (488768, "477.3KiB"),
    (299944008, "286.05MiB"),
    (932847568, "889.63MiB"),
    (1 << 30, "1.00GiB"),
])
def test_human_bytes(count, text):
    assert human_bytes(count) == text

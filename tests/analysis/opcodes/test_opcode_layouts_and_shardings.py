"""hlo-opcodes on the layouts of shapes and on `sharding=` values (see opcode_cases.py for what was run
through XLA's parser: each text said rejected here, XLA's parser rejects, with the message quoted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opcode_cases import module, one, opcode_problems


@pytest.mark.parametrize(("instruction", "message", "underlined"), [
    # XLA: Dimensions size is 1, but minor to major size is 2.
    ("ROOT v = f32[4]{1,0} abs(p)", "the layout orders 2 dimensions (minor to major), but its shape has 1", "{1,0}"),
    ("ROOT v = f32[4]{:T(128)} abs(p)", "the layout orders 0 dimensions (minor to major), but its shape has 1",
     "{:T(128)}"),
    # XLA: expected a DimLevelType abbreviation (D, C, or S)
    ("ROOT v = f32[4]{0:D(X)} abs(p)", "X is no dimension level type: D(...) lists D (dense), C (compressed), "
     "S (singleton) or H (loose compressed)", "X"),
    # XLA: Layout has physical shape, but is not for a sparse array: {0:P(f32[4]{0})}
    ("ROOT v = f32[4]{0:P(f32[4])} abs(p)", "a layout's physical shape P(...) is for sparse arrays only, which XLA's "
     "HLO text does not declare", "P(f32[4])"),
    ("ROOT v = f32[4] add(f32[4]{1,0} p, p)", "the layout orders 2 dimensions (minor to major), but its shape has 1",
     "{1,0}"),
])
def test_layouts_xla_rejects(tmp_path: Path, instruction: str, message: str, underlined: str) -> None:
    assert one(tmp_path, module(instruction)) == (4, "layout", message, underlined)


def test_layouts_xla_accepts(tmp_path: Path) -> None:
    shapes = ("f32[4]{0:D(D+~)}", "f32[4]{0:D()}", "f32[]{:T(256)}", "f32[4]{0:D(C,S)}", "f32[4]{0:T(2,*)}",
              "f32[2,3]{1,0:T(2,*)S(1)}", "f32[4]{0:D(H)}")
    text = module(*(f"v{n} = {shape} copy(p{n})" for n, shape in enumerate(shapes)),
                  params=tuple(f"p{n} = {shape} parameter({n})" for n, shape in enumerate(shapes)))
    assert opcode_problems(tmp_path, text) == []


def test_a_custom_calls_layout_constraints_are_read_as_shapes(tmp_path: Path) -> None:
    instruction = 'ROOT c = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={f32[4]{1,0}}'
    assert one(tmp_path, module(instruction))[1:] == (
        "layout", "the layout orders 2 dimensions (minor to major), but its shape has 1", "{1,0}")


@pytest.mark.parametrize(("sharding", "message", "underlined"), [
    # XLA: replicated shardings should not have any devices assigned
    ("{replicated devices=[2]0,1}", "a replicated sharding has no devices assigned", "replicated devices=[2]0,1"),
    # XLA: unknown attribute in sharding: expected device=, devices= metadata= or last_tile_dims=
    ("{mode=highest, tolerance={atol=1}}", "unknown attribute mode= in a sharding: expected device=, devices=, "
     "metadata= or last_tile_dims=", "mode="),
    # XLA: unexpected token
    ("{0}", "unexpected '0' in a sharding: expected replicated, maximal, manual, unknown, last_tile_dim_replicate, "
     "shard_as N, shard_like N, device=, devices=, metadata= or last_tile_dims=", "0"),
    # XLA: maximal shardings should have exactly one device assigned
    ("{maximal}", "a maximal sharding names exactly one device: {maximal device=0}", "maximal"),
    # XLA: non-maximal shardings must have more than one device assigned
    ("{devices=[1]0}", "a tiled sharding spreads over more than one device", "devices=[1]0"),
    # XLA: device= attribute must be an integer
    ("{maximal device=x}", "device= expects an integer, the device: device=0", "device="),
])
def test_shardings_xla_rejects(tmp_path: Path, sharding: str, message: str, underlined: str) -> None:
    assert one(tmp_path, module(f"ROOT v = f32[4] abs(p), sharding={sharding}")) == (
        4, "attribute-value", f"sharding: {message}", underlined)


def test_shardings_xla_accepts(tmp_path: Path) -> None:
    shardings = ("{replicated}", "{maximal device=0}", "{devices=[2]0,1}", "{devices=[2]<=[2]}",
                 "{devices=[2,2]<=[2,2]T(1,0)}", "{devices=[2,2]0,1,2,3 last_tile_dim_replicate}",
                 "{{replicated}, {maximal device=1}}", "{}", "{manual}", "{unknown}",
                 '{replicated metadata={op_name="a"}}', "{devices=[2,1]0,1 last_tile_dims={manual}}",
                 "{devices=[2]0,1 shard_as 1}")
    text = module(*(f"v{n} = f32[4] abs(p), sharding={sharding}" for n, sharding in enumerate(shardings)))
    assert opcode_problems(tmp_path, text) == []

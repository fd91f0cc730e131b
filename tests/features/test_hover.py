"""Hover: what a user sees over names in real dumps, checked against what XLA printed in them."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

from helpers import (
    COMBINED_HLO,
    COMBINED_MLP,
    DATA,
    GPU_HLO_SEED,
    GPU_SEED,
    HANDWRITTEN,
    PRODUCERS,
    SPLIT_HLO,
    SPLIT_MLP,
    TPU_MATMUL,
    TPU_SEED,
    module_of,
)
from hlo_lsp.features.hover import hover, module_free_hover
from hlo_lsp.features.targets import target_at
from hlo_lsp.features.types import Target
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.sizes import human_bytes
from hlo_lsp.text import Position, Range

SPLIT_ALLOCATIONS = Path(f"{SPLIT_MLP}-buffer-assignment.txt")
SPLIT_LIVE_RANGE = Path(f"{SPLIT_MLP}-live-range.txt")
COMBINED_BUFFERS = Path(f"{COMBINED_MLP}-buffer-assignment.txt")


def hover_text(path: Path, needle: str, offset: int = 0, module: ModuleDump | None = None) -> str | None:
    """The hover over the character `offset` into the first occurrence of `needle` in `path`."""
    module = module or module_of(path)
    document = next(d for d in module.all_documents() if Path(d.source).name == path.name)
    line = next(i for i in range(document.line_count) if needle in document.line(i))
    target = target_at(document, Position(line, document.line(line).index(needle) + offset))
    assert target is not None, f"nothing under the cursor at {needle!r}"
    found = hover(module, target)
    if found is not None:
        assert found.range == target.range
    return found.markdown if found is not None else None


def printed(path: Path, pattern: str) -> re.Match[str]:
    """The first line of `path` that `pattern` matches (what XLA printed there)."""
    for line in path.read_text().splitlines():
        match = re.search(pattern, line)
        if match:
            return match
    raise AssertionError(f"{pattern!r} not in {path.name}")


def allocation_holding(path: Path, value: str) -> re.Match[str]:
    """The header of the allocation whose value list holds the line containing `value`."""
    header = None
    for line in path.read_text().splitlines():
        header = re.match(r"allocation (\d+): size (\d+), (.*):$", line) or header
        if value in line:
            assert header is not None
            return header
    raise AssertionError(f"{value!r} not in {path.name}")


def sizes(count: int) -> str:
    return f"{count:,} bytes ({human_bytes(count)})"


# ---- an instruction: the HLO module and its companion files -------------------------------------


def test_instruction_in_split_dump_shows_its_memory_as_the_companion_files_print_it() -> None:
    markdown = hover_text(SPLIT_HLO, "%ynn_fusion.1 =", 1)
    value = printed(SPLIT_ALLOCATIONS, r"value: <(\d+) ynn_fusion\.1 @0> \(size=(\d+),offset=(\d+)\)")
    allocation = allocation_holding(SPLIT_ALLOCATIONS, value.group(0))
    live = printed(SPLIT_LIVE_RANGE, r"^\s+ynn_fusion\.1\{\}:(\d+)-(\d+)$")
    first = printed(SPLIT_LIVE_RANGE, rf"^\s+{live.group(1)}:(\S+)$").group(1)
    last = printed(SPLIT_LIVE_RANGE, rf"^\s+{live.group(2)}:(\S+)$").group(1)
    peak_time = printed(SPLIT_LIVE_RANGE, r"Live ranges at (\d+) \(peak\)").group(1)
    peak_instruction = printed(SPLIT_LIVE_RANGE, rf"^\s+{peak_time}:(\S+)$").group(1)
    peak_bytes = int(printed(SPLIT_LIVE_RANGE, r"breakdown for peak usage: ([\d ]+) bytes").group(1).replace(" ", ""))
    counted = int(printed(SPLIT_LIVE_RANGE, r"^\s+ynn_fusion\.1\{\}: (\d+) bytes").group(1))

    assert markdown is not None
    lines = markdown.splitlines()
    assert lines[0] == "**ynn_fusion.1** = `f32[32,256]{1,0}` fusion"
    assert f"`<{value.group(1)} ynn_fusion.1 @0>`" in lines
    assert (f"- {sizes(int(value.group(2)))} in allocation {allocation.group(1)} ({allocation.group(3)}),"
            f" offset {int(value.group(3)):,}") in lines
    assert f"- live [{live.group(1)}, {live.group(2)}]: from `{first}` to `{last}`" in lines
    assert (f"- live at the peak (time {peak_time}, `{peak_instruction}`): counted as {counted:,}"
            f" of {sizes(peak_bytes)}") in lines


def test_instruction_hover_in_full() -> None:
    assert hover_text(SPLIT_HLO, "%ynn_fusion.1 =", 1) == """\
**ynn_fusion.1** = `f32[32,256]{1,0}` fusion

`<62 ynn_fusion.1 @0>`
- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0
- live [9, 10]: from `ynn_fusion.1` to `add_maximum_fusion`
- live at the peak (time 9, `ynn_fusion.1`): counted as 32,768 of 487,464 bytes (476.0KiB)

- op_name `jit(mlp)/dot_general`
- source `/home/dev/xla-examples/gen_dumps.py:169` in `_mlp3.<locals>.mlp`
- Python stack, innermost first:
  1. `/home/dev/xla-examples/gen_dumps.py:169` in `_mlp3.<locals>.mlp`
  2. `/home/dev/xla-examples/gen_dumps.py:174` in `_mlp3`
  3. `/home/dev/xla-examples/gen_dumps.py:646` in `main`
  4. `/home/dev/xla-examples/gen_dumps.py:669` in `<module>`"""


def test_instruction_in_combined_dump_live_at_the_peak() -> None:
    markdown = hover_text(COMBINED_HLO, "  dot.8 =", 2)
    value = printed(COMBINED_BUFFERS, r"value: <(\d+) dot\.8 @0> \(size=(\d+),offset=(\d+)\)")
    allocation = allocation_holding(COMBINED_BUFFERS, value.group(0))
    live = printed(COMBINED_BUFFERS, r"^\s+dot\.8\{\}:(\d+)-(\d+)$")
    peak_time = int(printed(COMBINED_BUFFERS, r"Live ranges at (\d+) \(peak\)").group(1))
    peak_list = COMBINED_BUFFERS.read_text().split("(peak):\n", 1)[1]
    peak_bytes = sum(int(size) for size in re.findall(r": (\d+) bytes", peak_list))  # the old format has no total

    assert markdown is not None
    assert markdown.startswith("**dot.8** = `f32[32,256]{1,0}` dot\n")
    assert (f"- {sizes(int(value.group(2)))} in allocation {allocation.group(1)} ({allocation.group(3)}),"
            f" offset {int(value.group(3)):,}") in markdown
    assert f"- live [{live.group(1)}, {live.group(2)}]: from `dot.8` to `broadcast_maximum_fusion`" in markdown
    assert int(live.group(1)) <= peak_time <= int(live.group(2))
    assert (f"- live at the peak (time {peak_time}, `broadcast_maximum_fusion`): counted as 32,768"
            f" of {sizes(peak_bytes)}") in markdown
    assert "- op_name `jit(mlp)/jit(main)/dot_general`" in markdown
    assert "- source `/home/dev/xla-examples/gen_dumps.py:169`" in markdown


def test_instruction_not_live_at_the_peak() -> None:
    markdown = hover_text(COMBINED_HLO, "  dot.20 =", 2)
    assert markdown is not None
    assert "- live [6, 8]: from `dot.20` to `add_maximum_fusion`" in markdown
    assert "- not live at the peak (time 4, `broadcast_maximum_fusion`), which holds 487,464 bytes (476.0KiB)" \
        in markdown


def test_parameter_lives_to_the_end_of_the_program() -> None:
    markdown = hover_text(SPLIT_HLO, "%ws_1_.1 =", 1)
    assert markdown is not None
    assert "- 262,144 bytes (256.0KiB) in allocation 0 (parameter 1), offset 0" in markdown
    assert "- live [0, 15]: from `ws_0_.1` to the end of the program" in markdown
    assert "- op_name `ws[1]`" in markdown


def test_operand_resolves_to_the_instruction_it_names() -> None:
    markdown = hover_text(SPLIT_HLO, "fusion(%ynn_fusion.2,", 8)
    assert markdown is not None
    assert markdown.startswith("**ynn_fusion.2** = `f32[32,256]{1,0}` fusion\n\n`<58 ynn_fusion.2 @0>`")


def test_instruction_on_a_peak_list_line() -> None:
    markdown = hover_text(SPLIT_LIVE_RANGE, "    broadcast_maximum_fusion{}: 32768 bytes", 6)
    assert markdown is not None
    assert markdown.startswith("**broadcast_maximum_fusion** = `f32[32,256]{1,0}` fusion\n")
    assert "- live [8, 9]: from `broadcast_maximum_fusion` to `ynn_fusion.1`" in markdown
    assert "- live at the peak (time 9, `ynn_fusion.1`): counted as 32,768 of 487,464 bytes (476.0KiB)" in markdown


def test_fused_instruction_has_no_buffer_of_its_own() -> None:
    markdown = hover_text(SPLIT_HLO, "%dot_general.1 =", 1)
    assert markdown is not None
    assert markdown.splitlines()[0] == "**dot_general.1** = `f32[32,256]{1,0}` dot"
    assert "no buffer of its own in the buffer assignment" in markdown


def test_thread_local_value_says_it_has_no_live_range() -> None:
    markdown = hover_text(SPLIT_ALLOCATIONS, "<5 reduce_sum.5 @0>", 4)
    assert markdown is not None
    assert "- 4 bytes in allocation 8 (thread-local), offset 0" in markdown
    assert "- no live range: thread-local (it lives only while its computation runs)" in markdown
    assert "peak" not in markdown


# ---- dumps without an HLO module: the GPU and TPU seeds ------------------------------------------


def test_tuple_instruction_lists_a_value_per_index() -> None:
    markdown = hover_text(GPU_SEED, "<179 custom-call.5.0{0} @0>", 6)
    assert markdown is not None
    sections = markdown.split("\n\n")
    assert sections[0] == "**custom-call.5.0** = `(bf16[128,6144]{1,0}, s8[4194304]{0})` custom-call"
    assert sections[1].splitlines()[:3] == [
        "`<178 custom-call.5.0{} @0>`",
        "- 16 bytes in allocation 25 (preallocated-temp), offset 1,311,232",
        "- live [37, 38]: from `custom-call.5.0` to `get-tuple-element.5`"]
    assert sections[2].splitlines()[:2] == [
        "`<179 custom-call.5.0{0} @0>` `bf16[128,6144]{1,0}`",
        "- 1,572,864 bytes (1.50MiB) in allocation 2 (maybe-live-out), offset 0"]
    assert sections[3].splitlines()[:3] == [
        "`<180 custom-call.5.0{1} @0>` `s8[4194304]{0}`",
        "- 4,194,304 bytes (4.00MiB) in allocation 3 (maybe-live-out), offset 0",
        "- live [37, 37]: from `custom-call.5.0` to `custom-call.5.0`"]
    assert sections[4] == ("- framework op `aten::mm`\n- op_name `aten__mm`\n"
                           "- source `/usr/local/lib/python3.10/site-packages/torch/_ops.py:756`")


def test_value_id_in_the_gpu_seed() -> None:
    assert hover_text(GPU_SEED, "<179 custom-call.5.0{0} @0>", 2) == """\
**value 179** `<179 custom-call.5.0{0} @0>` `bf16[128,6144]{1,0}`

- 1,572,864 bytes (1.50MiB) in allocation 2 (maybe-live-out), offset 0
- live [37, 39]: from `custom-call.5.0` to `loop_convert_fusion`
- not live at the peak (time 58, `tuple`), which holds 931,536,164 bytes (888.38MiB)"""


def test_value_id_in_used_values_is_the_same_value() -> None:
    in_allocations = hover_text(GPU_SEED, "value: <179 custom-call.5.0{0} @0>", 9)
    module = module_of(GPU_SEED)
    document = module.all_documents()[0]
    header = next(i for i in range(document.line_count) if document.line(i) == "<179 custom-call.5.0{0} @0>")
    target = target_at(document, Position(header, 2))
    assert target is not None and target.kind == "value"
    found = hover(module, target)
    assert found is not None and found.markdown == in_allocations


def test_colored_value_in_the_tpu_seed_by_id_and_by_name() -> None:
    by_id = hover_text(TPU_SEED, "<31 copy-start.1{0} @1>", 2)
    assert by_id is not None
    assert by_id.splitlines()[0] == "**value 31** `<31 copy-start.1{0} @1>` `f32[8,128,4096]{2,1,0:T(8,128)S(1)}`"
    # without a memory-usage report, a space other than the default one is known by its color alone
    assert "- 16,777,216 bytes (16.00MiB) in allocation 12 (preallocated-temp, color 1), offset 73,400,320" in by_id
    assert "- not live at the peak of color 1 (time 11, `fusion`), which holds 31,457,304 bytes (30.00MiB)" in by_id
    by_name = hover_text(TPU_SEED, "<31 copy-start.1{0} @1>", 6)
    assert by_name is not None
    assert by_name.startswith("**copy-start.1** = `(f32[8,128,4096]{2,1,0:T(8,128)S(1)},"
                              " f32[8,128,4096]{2,1,0:T(8,128)}, u32[]{:S(2)})` copy-start\n")
    assert ("`<32 copy-start.1{2} @2>` `u32[]{:S(2)}`\n"
            "- 4 bytes in allocation 11 (preallocated-temp, color 2), offset 4") in by_name


def test_tpu_value_sizes_are_the_tiled_ones_xla_allocated() -> None:
    markdown = hover_text(TPU_SEED, "<45 all-reduce.28{1} @0>", 2)
    assert markdown is not None
    assert ("- 512 bytes in the default space, allocation 10 (preallocated-temp), offset 16,384\n"
            "- unpadded 4 bytes: 508 bytes (99.2%) are padding") in markdown


def test_old_format_peak_counts_a_live_tuple_element_with_the_whole_tuple() -> None:
    markdown = hover_text(TPU_SEED, "    copy-start: 24 bytes", 6)
    assert markdown is not None
    assert ("- live at the peak of color 1 (time 11, `fusion`): counted as 24 of 31,457,304 bytes"
            " (30.00MiB); this XLA counts a live tuple element with its whole tuple's size") in markdown


# ---- allocations, computations, shapes, stack frames, the peak breakdown -------------------------


def test_allocation_header() -> None:
    assert hover_text(SPLIT_ALLOCATIONS, "allocation 14:", 2) == """\
**allocation 14 (preallocated-temp)**: 65,536 bytes (64.0KiB), 6 values

| largest values (5 of 6) | size | offset |
|---|--:|--:|
| `<58 ynn_fusion.2 @0>` | 32,768 bytes (32.0KiB) | 32,768 |
| `<60 broadcast_maximum_fusion @0>` | 32,768 bytes (32.0KiB) | 32,768 |
| `<62 ynn_fusion.1 @0>` | 32,768 bytes (32.0KiB) | 0 |
| `<64 add_maximum_fusion @0>` | 32,768 bytes (32.0KiB) | 0 |
| `<68 add_reduce_fusion @0>` | 128 bytes | 0 |"""


def test_parameter_allocation_header() -> None:
    markdown = hover_text(GPU_SEED, "allocation 1:", 2)
    assert markdown is not None
    assert markdown.startswith("**allocation 1 (parameter 16)**: 277,413,888 bytes (264.56MiB), 1 value\n\n"
                               "- parameter 16: `bf16[2,4233,16,8,128]` at ShapeIndex {}\n")


def test_computation_with_its_signature_and_callers() -> None:
    assert hover_text(SPLIT_HLO, "%fused_computation.1 (", 1) == """\
**computation** `fused_computation.1`

```
fused_computation.1 (param_0.1: f32[32,256], param_1.1: f32[256,256]) -> f32[32,256]
```

3 instructions

called by:
- `ynn_fusion.1` (fusion) in `main.5`"""


def test_computation_printed_without_a_signature_and_called_as_a_reducer() -> None:
    markdown = hover_text(COMBINED_HLO, "to_apply=region_1.42", 9)
    assert markdown is not None
    assert "region_1.42 (Arg_0.43: f32[], Arg_1.44: f32[]) -> f32[]" in markdown
    assert "called by:\n- `reduce.2` (reduce) in `fused_computation.1`" in markdown


def test_entry_computation() -> None:
    markdown = hover_text(SPLIT_HLO, "ENTRY %main.5", 7)
    assert markdown is not None
    assert markdown.startswith("**ENTRY computation** `main.5`\n")
    assert "15 instructions" in markdown
    assert "called by" not in markdown


def test_tiled_shape_shows_dense_and_tiled_sizes() -> None:
    assert hover_text(TPU_SEED, "f32[]{:T(128)} parameter(0)", 1) == """\
`f32[]{:T(128)}`: 1 × f32
- dense: 4 bytes
- tiled: 512 bytes"""
    markdown = hover_text(TPU_SEED, "(size=14680064,offset=58720256): f32[8,128,3584]", 33)
    assert markdown is not None
    assert markdown.splitlines()[1:] == ["- dense: 14,680,064 bytes (14.00MiB)", "- tiled: 14,680,064 bytes (14.00MiB)",
                                         "- memory space 1"]


def test_a_shape_is_hovered_without_its_module_as_with_it() -> None:
    """A shape says all about itself: the hover a glance gives before the module is read."""
    for path in (SPLIT_HLO, TPU_SEED):  # a module; a buffer assignment with tiled shapes
        module = module_of(path)
        document = next(d for d in module.all_documents() if Path(d.source).name == path.name)
        shapes = [target for line in range(document.line_count) for column in range(0, len(document.line(line)), 7)
                  if (target := target_at(document, Position(line, column))) is not None and target.kind == "shape"]
        assert len(shapes) > 20
        for target in shapes:
            assert module_free_hover(target) == hover(module, target), target
    module = module_of(SPLIT_HLO)
    document = module.hlo_document
    assert document is not None
    name = next(line for line in range(document.line_count) if document.scan(line).kind == "instruction")
    instruction = target_at(document, Position(name, document.scan(name).refs[0].start))
    assert instruction is not None and instruction.kind == "instruction"
    assert module_free_hover(instruction) is None and hover(module, instruction) is not None


def test_stack_frame_resolves_to_its_source_and_callers() -> None:
    assert hover_text(SPLIT_HLO, "stack_frame_id=4", 15) == """\
**stack frame 4**: `/home/dev/xla-examples/gen_dumps.py:169` in `_mlp3.<locals>.mlp`

called from:
- `/home/dev/xla-examples/gen_dumps.py:174` in `_mlp3` (frame 3)
- `/home/dev/xla-examples/gen_dumps.py:646` in `main` (frame 2)
- `/home/dev/xla-examples/gen_dumps.py:669` in `<module>` (frame 1)"""


def test_breakdown_label_names_the_instructions_with_that_op_name() -> None:
    markdown = hover_text(SPLIT_LIVE_RANGE, "── jit(mlp)/dot_general (", 3)
    assert markdown is not None
    lines = markdown.splitlines()
    assert lines[0] == ("**`jit(mlp)/dot_general`** at the peak: 32,768 bytes (32.0KiB), 6.7%"
                        " of 487,464 bytes (476.0KiB)")
    assert "- `ynn_fusion.1` (fusion)" in lines
    assert "- `dot_general.1` (dot)" in lines


def test_breakdown_root_is_the_entry_computation() -> None:
    markdown = hover_text(SPLIT_LIVE_RANGE, "main.5 (100.0%", 1)
    assert markdown == ("**`main.5`** at the peak: 487,464 bytes (476.0KiB), 100.0% of 487,464 bytes (476.0KiB)"
                        "\n\ncomputation `main.5`")


# ---- odd input -----------------------------------------------------------------------------------


def test_hlo_module_without_companions_gives_shape_and_origin_only() -> None:
    assert hover_text(GPU_HLO_SEED, "%custom-call.5.0 =", 1) == """\
**custom-call.5.0** = `(bf16[32,6144]{1,0}, s8[4194304]{0})` custom-call

- framework op `aten::mm`
- op_name `aten__mm`
- source `/usr/local/lib/python3.10/site-packages/torch/_ops.py:756`"""


def test_split_dump_without_live_ranges(tmp_path: Path) -> None:
    for path in (SPLIT_HLO, SPLIT_ALLOCATIONS):
        shutil.copyfile(path, tmp_path / path.name)
    markdown = hover_text(tmp_path / SPLIT_HLO.name, "%ynn_fusion.1 =", 1)
    assert markdown is not None
    assert "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0" in markdown
    assert "live" not in markdown


def test_buffer_assignment_of_another_compilation_is_not_mixed_in(tmp_path: Path) -> None:
    """Both folders number their module; two runs under one name must not pair the wrong files."""
    shutil.copyfile(SPLIT_HLO, tmp_path / "module_0001.jit_mlp.cpu_after_optimizations.txt")
    shutil.copyfile(COMBINED_BUFFERS, tmp_path / COMBINED_BUFFERS.name)
    in_hlo = hover_text(tmp_path / "module_0001.jit_mlp.cpu_after_optimizations.txt", "%ynn_fusion.1 =", 1)
    assert in_hlo is not None and "allocation" not in in_hlo
    in_buffers = hover_text(tmp_path / COMBINED_BUFFERS.name, "<55 dot.8 @0>", 5)
    assert in_buffers is not None
    assert in_buffers.startswith("**dot.8** = `f32[32,256]{1,0}` dot\n")


def test_unknown_names_have_no_hover() -> None:
    module = module_of(SPLIT_HLO)
    source = module.hlo_document.source if module.hlo_document else ""
    anywhere = Range.on_line(0, 0, 1)
    for kind, name in [("instruction", "no_such"), ("value", "9999"), ("value", "x"), ("allocation", "99"),
                       ("computation", "no_such"), ("frame", "77"), ("frame", "x"), ("shape", "f32[2"),
                       ("op_name", "nothing/here"), ("location", "1"), ("file_name", "1")]:
        assert hover(module, Target(kind, name, source, anywhere)) is None, (kind, name)


# A hover's first line names what the cursor is on.
HOVER_TITLES = {"instruction": ["**{}** = "], "value": ["**value {}** "], "frame": ["**stack frame {}**:"],
                "computation": ["**computation** `{}`", "**ENTRY computation** `{}`"]}
# Indices in the stack frame tables' file, function and location columns have no hover of their own.
NO_HOVER = {"file_name", "function_name", "location"}


def test_every_name_in_the_bundled_dumps_hovers_with_its_own_title() -> None:
    """Every name in these files hovers without error; a hover that shows underlines the name under the
    cursor and its first line names it. With the module's HLO file there, every instruction, value,
    computation and stack frame shows one; a buffer assignment alone (the seeds) shows one for every value,
    but not for the instructions and computations it only mentions."""
    for path, silent_kinds in ((SPLIT_HLO, NO_HOVER), (SPLIT_LIVE_RANGE, NO_HOVER), (COMBINED_BUFFERS, NO_HOVER),
                               (GPU_SEED, {"instruction", "computation"}), (TPU_SEED, {"instruction", "computation"})):
        module = module_of(path)
        document = next(d for d in module.all_documents() if Path(d.source).name == path.name)
        shown, silent = Counter[str](), Counter[str]()
        for line in range(document.line_count):
            for ref in document.refs_on_line(line):
                target = target_at(document, Position(line, ref.start))
                if target is None:
                    continue
                found = hover(module, target)
                if found is None:
                    silent[target.kind] += 1
                    continue
                shown[target.kind] += 1
                where = (path.name, line + 1, target.kind, target.name)
                assert found.range == target.range, where
                title = found.markdown.split("\n")[0]
                assert any(title.startswith(form.format(target.name)) for form in HOVER_TITLES[target.kind]), \
                    (*where, title)
        assert shown["instruction"] > 0, (path.name, shown)
        assert set(silent) <= silent_kinds, (path.name, silent)


# ---- other producers: element types, host offload, framework ops ------------------------------------

LOWP_OUTPUTS = DATA / "jax-0.10.2" / "lowp_outputs" / "module_0004.jit_quantize.cpu_after_optimizations"
TORCH_DEBUG = (PRODUCERS / "torch-xla-2.9.0" / "mlp_hlo_debug"
               / "module_0003.SyncTensorsGraph.175.cpu_after_optimizations")


def test_values_of_new_element_types_have_the_sizes_xla_allocated() -> None:
    """f8e4m3fn, f8e5m2, f8e4m3b11fnuz take a byte an element; s4/u4 and s2/u2 pack with E(4) and E(2)."""
    allocations = Path(f"{LOWP_OUTPUTS}-buffer-assignment.txt").read_text()
    printed = re.findall(r"^ value: <\d+ ([\w.]+) @0> \(size=(\d+),offset=0\): ((?:f8|[su][24])\w*\[64,128\]\S*)$",
                         allocations, re.MULTILINE)
    assert {shape.split("[")[0] for _, _, shape in printed} == {
        "f8e4m3fn", "f8e5m2", "f8e4m3b11fnuz", "s4", "u4", "s2", "u2"}
    module = module_of(Path(f"{LOWP_OUTPUTS}.txt"))
    for name, size, shape in printed:
        markdown = hover_text(Path(f"{LOWP_OUTPUTS}.txt"), f"%{name} = ", 1, module)
        assert markdown is not None and markdown.startswith(f"**{name}** = `{shape}`")
        assert f"- {sizes(int(size)) if int(size) >= 1024 else size + ' bytes'} in allocation" in markdown
        assert hover_text(Path(f"{LOWP_OUTPUTS}.txt"), f"%{name} = {shape}", len(name) + 5, module).split(
            "\n")[1] == f"- dense: {sizes(int(size))}"  # the shape's own hover: the same bytes


def test_a_copy_to_host_memory_and_back() -> None:
    path = HANDWRITTEN.parent / "host_offload.hlo"
    assert hover_text(path, "%offloaded =", 1) == (
        "**offloaded** = `f32[1024,256]{1,0:S(5)}` copy-done\n\n"
        "copies 1,048,576 bytes (1.00MiB) from the default space to host memory (started by `to-host`)")
    assert hover_text(path, "%reloaded =", 1) == (
        "**reloaded** = `f32[1024,256]{1,0}` copy-done\n\n"
        "copies 1,048,576 bytes (1.00MiB) from host memory to the default space (started by `to-device`)")


def test_pytorch_xla_op_type_is_the_framework_op() -> None:
    hlo = Path(f"{TORCH_DEBUG}.txt")
    assert 'metadata={op_type="aten__mm" op_name="aten__mm"}' in hlo.read_text()
    markdown = hover_text(hlo, "%dot.150 =", 1)
    assert markdown is not None and markdown.endswith("- framework op `aten::mm`\n- op_name `aten__mm`")


def test_the_peak_of_each_space_follows_the_module_it_is_read_with() -> None:
    """Found by the differential sessions (seed 1275): the peaks of the spaces were kept per live-range
    section, so after a hover on an edited HLO file (other shapes: other peaks), the module as it was
    again still had the edited one's. They are kept per buffer assignment and module structure."""
    from hlo_lsp.features.hover_memory import space_peaks
    from hlo_lsp.model.document import Document
    from hlo_lsp.model.hlo_module import HloModule
    from hlo_lsp.parsing.file_kinds import FileKind

    hlo_path = Path(f"{TPU_MATMUL}.txt")
    module = module_of(hlo_path)
    buffers, spaces = module.buffer_assignment, module.memory_spaces
    assert buffers is not None and module.hlo is not None
    text = hlo_path.read_text()
    edited = text.replace("  %fusion = f32[128,512]", "  %fusion = f32[128,128]")
    assert edited != text
    smaller = space_peaks(HloModule(Document(edited, FileKind.HLO_MODULE, str(hlo_path))), buffers, spaces)
    assert smaller[1].total == 589_824  # vmem: the copy's 524,288 bytes and the fusion's 65,536
    peaks = space_peaks(module.hlo, buffers, spaces)
    assert {color: (peak.time, peak.total) for color, peak in peaks.items()} == {
        0: (5, 917_504), 1: (4, 786_432), 2: (1, 4)}


def test_an_instruction_among_several_items_of_a_line_hovers_as_itself(tmp_path: Path) -> None:
    """Fuzzer mutants #220784 and #237133: a hover read the shape of a line of several items as if it held one."""
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  p = f32[4] parameter(0) ROOT v = s32[4] convert(p), "
                    'metadata={op_name="jit(f)/convert"}\n}\n')
    text = hover_text(path, "v = s32")
    assert text is not None and text.startswith("**v** = `s32[4]` convert") and "jit(f)/convert" in text
    text = hover_text(path, "p = f32")
    assert text is not None and text.startswith("**p** = `f32[4]` parameter")

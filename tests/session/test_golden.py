"""Hover, outline and diagnostics on real dumps, as a user sees them, against the files in tests/golden/
(to accept a deliberate change: HLO_LSP_UPDATE_GOLDEN=1 .venv/bin/pytest tests/session/test_golden.py)."""

from __future__ import annotations

from pathlib import Path

from helpers import COMBINED_MLP, SPLIT_MLP, TPU_PALLAS, copy_module, plant
from helpers.golden import Spot, assert_golden, diagnostics_text, hover_text, outline_text


def files(stem: Path, *suffixes: str) -> list[Path]:
    return [Path(f"{stem}{suffix}") for suffix in suffixes]


def test_hovers_over_every_file_of_a_split_module() -> None:
    hlo, ba, values, live, report = files(SPLIT_MLP, ".txt", "-buffer-assignment.txt",
                                          "-buffer-assignment-values.txt", "-live-range.txt",
                                          "-memory-usage-report.txt")
    assert_golden("hover/jax-0.10.2-mlp3.txt", hover_text([
        Spot(hlo, "%ynn_fusion.2 = ", "ynn_fusion.2"),  # an instruction where it is defined
        Spot(hlo, "%broadcast_maximum_fusion = ", "ynn_fusion.2"),  # the same instruction, used
        Spot(hlo, "%broadcast_maximum_fusion = ", "fused_computation.7"),  # a computation, called
        Spot(hlo, "ENTRY %main.5", "main.5"),
        Spot(hlo, "%x.1 = ", "x.1"),  # a parameter of the module
        Spot(hlo, "%param_2.2 = ", "param_2.2"),  # a parameter of a fused computation
        Spot(hlo, "%ynn_fusion.2 = ", "f32[32,256]{1,0}"),  # a shape
        Spot(hlo, "4 {file_location_id=4 ", "4"),  # a stack frame
        Spot(ba, "allocation 14: ", "14"),
        Spot(ba, "<58 ynn_fusion.2 @0>", "ynn_fusion.2"),
        Spot(values, "<60 broadcast_maximum_fusion @0>", "60"),
        Spot(live, "    ynn_fusion.2{}:7-8", "ynn_fusion.2"),
        Spot(live, "    9:ynn_fusion.1", "ynn_fusion.1"),  # the instruction at the peak
        Spot(report, "3; f32[32], 2×f32[32,256]", "f32[32]"),
    ]))


def test_hovers_over_a_module_with_one_combined_buffer_assignment_file() -> None:
    hlo, ba = files(COMBINED_MLP, ".txt", "-buffer-assignment.txt")
    assert_golden("hover/jax-0.4.38-mlp3.txt", hover_text([
        Spot(hlo, "  dot.8 = ", "dot.8"),
        Spot(hlo, "  broadcast_maximum_fusion = ", "dot.8"),
        Spot(hlo, "  broadcast_maximum_fusion = ", "fused_computation.4"),
        Spot(hlo, "  Arg_6.7 = ", "Arg_6.7"),
        Spot(ba, " value: <63 dot.32 @0>", "dot.32"),  # in an allocation
        Spot(ba, "from instruction: %reduce_log_fusion = ", "reduce_log_fusion"),  # in Used values
        Spot(ba, "    dot.8{}:2-4", "dot.8"),
        Spot(ba, "    Arg_1.2: 262144 bytes", "Arg_1.2"),  # live at the peak XLA prints
    ]))


def test_hovers_over_a_module_of_several_memory_spaces() -> None:
    hlo, ba = files(TPU_PALLAS, ".txt", "-buffer-assignment.txt")
    assert_golden("hover/jax-0.10.2-tpu-pallas.txt", hover_text([
        Spot(hlo, "%jvp__.1 = ", "jvp__.1"),  # in vmem (S(1))
        Spot(hlo, "%multiply.1 = ", "multiply.1"),  # in memory space 6
        Spot(hlo, "%q.1 = ", "q.1"),  # in the default space
        Spot(ba, "allocation 29: ", "29"),  # smem
        Spot(ba, "allocation 31: ", "31"),  # vmem
    ]))


def test_outlines_of_a_split_module() -> None:
    assert_golden("outline/jax-0.10.2-mlp3.txt", outline_text(*files(
        SPLIT_MLP, ".txt", "-buffer-assignment.txt", "-live-range.txt", "-memory-usage-report.txt")))


def test_outlines_of_a_combined_module() -> None:
    assert_golden("outline/jax-0.4.38-mlp3.txt", outline_text(*files(COMBINED_MLP, ".txt", "-buffer-assignment.txt")))


def test_outlines_of_a_module_of_several_memory_spaces() -> None:
    assert_golden("outline/jax-0.10.2-tpu-pallas.txt", outline_text(*files(
        TPU_PALLAS, ".txt", "-memory-usage-report.txt")))


def test_a_real_module_has_no_diagnostics() -> None:
    text = diagnostics_text(Path(f"{SPLIT_MLP}.txt"))
    assert text == ""
    assert_golden("diagnostics/jax-0.10.2-mlp3-clean.txt", text)


def broken_copy(stem: Path, tmp_path: Path, *changes: tuple[str, str, str]) -> Path:
    """The module copied into `tmp_path`, checked clean, then each (suffix, old, new) planted in the file
    `stem + suffix` of the copy; returns the copy's HLO file."""
    copy = copy_module(stem, tmp_path)
    assert diagnostics_text(Path(f"{copy}.txt")) == ""
    for suffix, old, new in changes:
        plant(Path(f"{copy}{suffix}"), old, new)
    return Path(f"{copy}.txt")


def test_diagnostics_of_a_split_module_broken_in_each_file(tmp_path: Path) -> None:
    hlo = broken_copy(
        SPLIT_MLP, tmp_path,
        (".txt", "fusion(%ynn_fusion.2, %bs_0_.1), kind=kLoop", "fusion(%ynn_fusion.7, %bs_0_.1), kind=kLoop"),
        ("-buffer-assignment.txt", "allocation 3: size 10240", "allocation 4: size 10240"),
        # reduce_log_fusion moved onto add_reduce_fusion's bytes while both are live
        ("-buffer-assignment.txt", "<69 reduce_log_fusion @0> (size=128,offset=128)",
         "<69 reduce_log_fusion @0> (size=128,offset=0)"),
        ("-buffer-assignment-values.txt", "calls=%fused_computation.7,", "calls=%fused_computation.70,"),
        ("-live-range.txt", "    ynn_fusion{}:11-14", "    ynn_fusion{}:14-11"))
    assert_golden("diagnostics/jax-0.10.2-mlp3-broken.txt", diagnostics_text(hlo))


def test_diagnostics_of_a_combined_module_broken_in_both_files(tmp_path: Path) -> None:
    hlo = broken_copy(
        COMBINED_MLP, tmp_path,
        (".txt", "  Arg_5.6 = f32[10]{0} parameter(5)", "  Arg_5.6 = f32[10]{0} parameter(5"),
        ("-buffer-assignment.txt", "  Arg_1.2\n", "  Arg_1.22\n"))
    assert_golden("diagnostics/jax-0.4.38-mlp3-broken.txt", diagnostics_text(hlo))


def test_diagnostics_of_a_module_of_several_memory_spaces(tmp_path: Path) -> None:
    hlo = broken_copy(
        TPU_PALLAS, tmp_path,
        ("-buffer-assignment.txt", "<11 add @0> (size=4096,", "<11 add @0> (size=2,"),
        # past the end of its allocation, in memory space 6
        ("-buffer-assignment.txt", "<54 multiply @6> (size=512,offset=0)", "<54 multiply @6> (size=512,offset=768)"))
    assert_golden("diagnostics/jax-0.10.2-tpu-pallas-broken.txt", diagnostics_text(hlo))

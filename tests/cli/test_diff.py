"""`hlo-lsp diff A B` as a user runs it: the table, the JSON an editor or a script reads, and the exit status a CI
gate reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import DATA, HANDWRITTEN, PAIR_NARROW, PAIR_WIDE, TPU_MATMUL
from hlo_lsp.cli import main
from hlo_lsp.cli.diff import Threshold, threshold

NARROW_HLO = PAIR_NARROW / "module_0000.jit__lambda.cpu_after_optimizations.txt"
WIDE_HLO = PAIR_WIDE / "module_0000.jit__lambda.cpu_after_optimizations.txt"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["diff", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_the_table_says_what_grew_largest_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = _run(capsys, str(PAIR_NARROW), str(PAIR_WIDE), "--top", "2")
    assert (code, err) == (0, "")
    assert lines[0] == "jit__lambda"
    assert lines[3] == ("  peak: 1,341,744 → 17,899,824 bytes (1.28MiB → 17.07MiB): "
                        "+16,558,080 bytes (+15.79MiB, +1234.1%)")
    assert lines[4] == ("  at the peak: parameters 861.3KiB → 12.32MiB, constants 4B → 4B, outputs 4B → 4B, "
                        "temporaries 449.0KiB → 4.75MiB")
    assert lines[5] == "  buffers live at the peaks, largest change first (18 rows, 100.0% of B's peak matched to A's):"
    assert lines[6].split() == ["+3.75MiB", "copy.3{}", "256.0KiB", "→", "copy.3{}", "4.00MiB", "temporary",
                                "f32[256,256]", "→", "f32[1024,1024]"]
    assert lines[8] == "    ... and 16 more row(s), +8.29MiB together"
    assert lines[9].startswith("  counts: instructions 330 → 330, fusions 39 → 39, copies 4 → 4, schedule steps 60")


def test_the_json_rows_add_up_to_the_peaks_and_point_at_each_instruction(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _run(capsys, str(NARROW_HLO), str(WIDE_HLO), "--format", "json")
    answer = json.loads("\n".join(lines))
    (pair,) = answer["pairs"]
    assert (pair["a"]["peak"], pair["b"]["peak"], pair["delta"]) == (1_341_744, 17_899_824, 16_558_080)
    assert sum(row["delta"] for row in pair["buffers"]) == pair["delta"]
    assert pair["matchedShare"] == 1.0 and answer["unpaired"] == []
    first = pair["buffers"][0]
    assert (first["a"]["instruction"], first["b"]["instruction"]) == ("copy.3", "copy.3")
    assert (first["a"]["shape"], first["shape"]) == ("f32[256,256]", "f32[1024,1024]")
    for side, hlo in (("a", NARROW_HLO), ("b", WIDE_HLO)):
        assert first[side]["uri"] == hlo.as_uri()
        line = hlo.read_text().splitlines()[first[side]["range"]["start"]["line"]]
        assert line.lstrip().startswith("%copy.3 = ")
    assert pair["counts"]["fusions"] == {"a": 39, "b": 39, "delta": 0}


def test_a_peak_grown_over_the_limit_fails_naming_what_grew_most(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, str(PAIR_NARROW), str(PAIR_WIDE), "--fail-over", "10%")
    assert code == 1
    assert err.startswith("hlo-lsp: jit__lambda: the peak of memory space default grew by +16,558,080 bytes "
                          "(+15.79MiB, +1234.1%), over 10%; grew most: copy.3{} +3.75MiB, copy.5{} +3.75MiB")
    assert _run(capsys, str(PAIR_NARROW), str(PAIR_WIDE), "--fail-over", "1300%")[0] == 0
    assert _run(capsys, str(PAIR_NARROW), str(PAIR_WIDE), "--fail-over", "16MiB")[0] == 0
    assert _run(capsys, str(PAIR_WIDE), str(PAIR_NARROW), "--fail-over", "0")[0] == 0  # it shrank


def test_limits_read_as_a_user_writes_them() -> None:
    assert threshold("10%") == Threshold(10.0, True)
    assert threshold("512MiB") == Threshold(512 * 2**20, False)
    assert threshold("1.5GB") == Threshold(1.5e9, False)
    assert threshold("1048576") == Threshold(1048576, False)
    for wrong in ("", "ten", "10 parsecs", "%"):
        with pytest.raises(ValueError):
            threshold(wrong)


def test_a_wrong_limit_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["diff", str(PAIR_NARROW), str(PAIR_WIDE), "--fail-over", "lots"])
    assert exited.value.code == 2 and "invalid threshold value: 'lots'" in capsys.readouterr().err


def test_every_memory_space_of_a_tpu_module_is_compared(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _run(capsys, str(TPU_MATMUL.parent), str(TPU_MATMUL.parent))
    assert code == 0
    assert [line for line in lines if line and not line.startswith(" ")] == ["jit_mm", "jit_step"]
    assert lines[3:7] == [
        "  peak (memory space default): 917,504 → 917,504 bytes (896.0KiB → 896.0KiB): 0 bytes (0, 0.0%)",
        "    default (color 0): 896.0KiB → 896.0KiB, 0 bytes (0, 0.0%)",
        "    vmem (color 1): 768.0KiB → 768.0KiB, 0 bytes (0, 0.0%)",
        "    smem (color 2): 4B → 4B, 0 bytes (0, 0.0%)",
    ]


def test_dumps_without_memory_say_so_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines, err = _run(capsys, str(HANDWRITTEN), str(PAIR_WIDE))
    assert code == 2 and lines == []
    assert err.startswith("hlo-lsp: no module with a memory peak on both sides")
    assert "only in B: jit__lambda" in err
    code, _, err = _run(capsys, str(tmp_path / "missing"), str(PAIR_WIDE))
    assert code == 2 and "missing" in err


def test_each_pairs_picture_gets_a_file_of_its_own(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines, _ = _run(capsys, str(PAIR_NARROW), str(PAIR_WIDE), "--svg", str(tmp_path / "one.svg"))
    assert code == 0 and lines[-2] == f"  picture: {tmp_path / 'one.svg'}"
    assert (tmp_path / "one.svg").read_text().startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    tiny = DATA / "jax-0.10.2" / "tiny_add"  # two compilations of one `jit__lambda`: two pairs of one name
    code, lines, _ = _run(capsys, str(tiny), str(tiny), "--svg", str(tmp_path / "two.svg"))
    assert code == 0 and sorted(path.name for path in tmp_path.glob("two.*")) == [
        "two.module_0000.jit__lambda.cpu_after_optimizations.svg",
        "two.module_0002.jit__lambda.cpu_after_optimizations.svg"]

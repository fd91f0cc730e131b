"""The README's "From Python" example, run as written against a bundled dump folder (its `dump` folder
replaced by the folder's path): the peak, the buffers live at it and every space's totals a user reads are
XLA's own figures."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from helpers import SPLIT_MLP

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    section = README.read_text().split("## From Python", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_example_prints_the_peak_its_buffers_and_each_space_as_xla_does() -> None:
    code = readme_example()
    assert code.count('"dump') == 2  # the folder, and one file of it
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.replace('"dump', f'"{SPLIT_MLP.parent}'), str(README), "exec"), {})  # noqa: S102
    lines = printed.getvalue().split("\n")
    live_ranges = Path(f"{SPLIT_MLP}-live-range.txt").read_text()
    listed = re.findall(r"^    (\S+): (\d+) bytes \(cumulative", live_ranges, re.MULTILINE)
    assert lines[0] == f"{SPLIT_MLP.name} 487464 bytes at step 9 ynn_fusion.1"
    assert "Live ranges at 9 (peak):" in live_ranges and sum(int(size) for _, size in listed) == 487_464
    buffers = [line.split() for line in lines[1:1 + len(listed)]]
    assert sorted((label, int(size)) for label, size, *_ in buffers) == sorted(
        (label, int(size)) for label, size in listed)
    assert ["ynn_fusion.1{}", "32768", "temporary", "jit(mlp)/dot_general",
            "/home/dev/xla-examples/gen_dumps.py:169"] in buffers
    report = Path(f"{SPLIT_MLP}-memory-usage-report.txt").read_text()
    allocated = re.search(r"^Total bytes: (\d+) ", report, re.MULTILINE)
    assert allocated is not None and lines[1 + len(listed)].split() == ["default", allocated.group(1), "487464"]
    hover = "\n".join(lines[2 + len(listed):])
    assert hover.startswith("**ynn_fusion.2** = `f32[32,256]{1,0}` fusion")  # the README's line 123, column 5
    assert "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 32,768" in hover
    assert lines[-2:] == ["[]", ""]  # a clean module: no problem

"""Other producers over stdio, as VS Code and as Neovim: TPU stages, memory spaces, async copies and side
files; TensorFlow's and PyTorch/XLA's framework ops. Figures are read from the dumps' own files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import TF_EVAL, TPU_MATMUL
from helpers.lsp import all_diagnostics, close_file, forget_diagnostics, open_and_check, open_file, position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPTIMIZED = Path(f"{TPU_MATMUL}.txt")
STAGE = Path(str(TPU_MATMUL).replace("after_optimizations", "{}") + ".txt")
CODEGEN = Path(str(STAGE).format("after_codegen"))
AFTER_BA = Path(str(STAGE).format("after_optimizations_after_buffer_assignment"))
BEFORE = Path(str(STAGE).format("before_optimizations"))
SIDE_FILE = Path(str(STAGE).format("tpu_comp_env"))
REPORT = Path(f"{TPU_MATMUL}-memory-usage-report.txt")
ALLOCATIONS = Path(f"{TPU_MATMUL}-buffer-assignment.txt")


async def hover_text(client: LanguageClient, path: Path, line_containing: str, name: str) -> str | None:
    uri = open_file(client, path)
    position = position_of(path, line_containing, name)
    answer = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position))
    return answer.contents.value if answer is not None else None  # type: ignore[union-attr]


def instruction_names(path: Path) -> list[str]:
    return re.findall(r"^  (?:ROOT )?%([\w.-]+) = ", path.read_text(), re.MULTILINE)


def printed_value(name: str) -> tuple[int, int, int]:
    """(size, offset, allocation) of `name`'s value line, and the color of its allocation, as printed."""
    allocation = -1
    for line in ALLOCATIONS.read_text().split("\n"):
        header = re.match(r"allocation (\d+): ", line)
        allocation = int(header.group(1)) if header else allocation
        value = re.match(rf" value: <\d+ {re.escape(name)} @\d+> \(size=(\d+),offset=(\d+)\)", line)
        if value:
            return int(value.group(1)), int(value.group(2)), allocation
    raise AssertionError(name)


async def test_every_instruction_of_after_codegen_hovers_as_in_after_optimizations(client: LanguageClient) -> None:
    """The stage XLA writes after codegen names the same instructions: it reads the same buffer assignment."""
    names = instruction_names(CODEGEN)
    assert names == instruction_names(OPTIMIZED)
    with_memory = []
    for name in names:
        line = f"%{name} = "
        in_codegen = await hover_text(client, CODEGEN, line, name)
        assert in_codegen == await hover_text(client, OPTIMIZED, line, name), name
        assert in_codegen == await hover_text(client, AFTER_BA, line, name), name
        if "bytes" in (in_codegen or ""):
            with_memory.append(name)
    allocated = set(re.findall(r"^ value: <\d+ ([\w.-]+?)(?:\{[\d,]*\})? @", ALLOCATIONS.read_text(), re.MULTILINE))
    assert set(with_memory) == allocated | {"copy-done"}  # a copy-done holds its copy-start's value
    for path in (CODEGEN, OPTIMIZED, AFTER_BA):
        close_file(client, path)


async def test_a_value_in_vmem_says_so_with_its_bytes(client: LanguageClient) -> None:
    size, offset, allocation = printed_value("fusion")
    assert "Memory Space: vmem (color=1)" in REPORT.read_text()
    assert re.search(rf"^allocation {allocation}: size \d+, color 1, preallocated-temp:$", ALLOCATIONS.read_text(),
                     re.MULTILINE)
    markdown = await hover_text(client, CODEGEN, "%fusion = ", "fusion")
    assert markdown is not None
    assert (f"- {size:,} bytes (256.0KiB) in vmem, allocation {allocation} (preallocated-temp, color 1), "
            f"offset {offset:,}") in markdown.split("\n")
    assert "- live at the peak of vmem (time 4, `fusion`): counted as 262,144 of 786,432 bytes (768.0KiB)" in markdown
    close_file(client, CODEGEN)


async def test_copy_done_holds_its_starts_value_in_vmem(client: LanguageClient) -> None:
    values = Path(f"{TPU_MATMUL}-buffer-assignment-values.txt").read_text()
    assert "<13 copy-start{0} @1>\n positions:\n  copy-start {0}\n  copy-done\n" in values
    size, offset, allocation = printed_value("copy-start{0}")
    markdown = await hover_text(client, CODEGEN, "%copy-done = ", "copy-done")
    assert markdown is not None
    assert markdown.split("\n\n")[1:4] == [
        "no buffer of its own: it holds the value of `copy-start`",
        "`<13 copy-start{0} @1>` `f32[256,512]{1,0:T(8,128)S(1)}`\n"
        f"- {size:,} bytes (512.0KiB) in vmem, allocation {allocation} (preallocated-temp, color 1), offset {offset}\n"
        "- live [1, 4]: from `copy-start` to `fusion`\n"
        "- live at the peak of vmem (time 4, `fusion`): counted as 524,288 of 786,432 bytes (768.0KiB)",
        "copies 524,288 bytes (512.0KiB) from the default space to vmem (started by `copy-start`)"]
    close_file(client, CODEGEN)


async def test_a_stage_before_buffer_assignment_has_no_memory(client: LanguageClient) -> None:
    markdown = await hover_text(client, BEFORE, "%dot_general.2 = ", "dot_general.2")
    assert markdown is not None and markdown.startswith("**dot_general.2** = `f32[256,512]{1,0}` dot")
    assert "bytes" not in markdown and "allocation" not in markdown
    close_file(client, BEFORE)


async def test_the_entry_lenses_give_each_spaces_peak_then_xlas(client: LanguageClient) -> None:
    uri = open_file(client, CODEGEN)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    entry = position_of(CODEGEN, "ENTRY %main.0_spmd", "ENTRY").line
    titles = [lens.command.title if lens.command else lens.data["title"]  # type: ignore[index]
              for lens in lenses or [] if lens.range.start.line == entry]
    assert titles == ["peak of the default space 896.0 KiB at time 5 (all-reduce)",
                      "peak of vmem 768.0 KiB at time 4 (fusion)",
                      "peak of smem 4 B at time 1 (copy-start)",
                      "every space counted, as XLA prints its peak: 1.12 MiB at time 5 (all-reduce)",
                      "3 buffers live at peak of the default space"]
    printed = Path(f"{TPU_MATMUL}-live-range.txt").read_text()
    assert "Stack trace breakdown for peak usage: 1 179 648 bytes" in printed  # 1.12 MiB, as XLA prints it
    close_file(client, CODEGEN)


async def test_a_stage_file_gets_its_own_diagnostics_and_a_side_file_one_note(client: LanguageClient) -> None:
    companions = [Path(f"{TPU_MATMUL}{suffix}").as_uri() for suffix in (
        "-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt", "-memory-usage-report.txt")]
    forget_diagnostics(client, companions)
    assert await open_and_check(client, CODEGEN) == []
    assert all(uri not in client.diagnostics for uri in companions)  # checked with after_optimizations
    (note,) = await open_and_check(client, SIDE_FILE)
    assert (note.severity, note.code, note.range.start.line) == (types.DiagnosticSeverity.Information, "side-file", 0)
    assert note.message.startswith("written by XLA beside the dump, but not a dump")
    forget_diagnostics(client, companions + [OPTIMIZED.as_uri()])
    open_file(client, OPTIMIZED)
    published = await all_diagnostics(client, [OPTIMIZED.as_uri(), *companions])
    assert all(diagnostics == [] for diagnostics in published.values())
    for path in (CODEGEN, SIDE_FILE, OPTIMIZED):
        close_file(client, path)


async def test_tensorflow_op_type_is_the_framework_op(client: LanguageClient) -> None:
    hlo = Path(f"{TF_EVAL}.txt")
    assert 'op_type="MatMul" op_name="sequential_1/dense_1_2/MatMul"' in hlo.read_text()
    markdown = await hover_text(client, hlo, "%MatMul.8 = ", "MatMul.8")
    assert markdown is not None
    assert "- framework op `MatMul`\n- op_name `sequential_1/dense_1_2/MatMul`" in markdown
    close_file(client, hlo)

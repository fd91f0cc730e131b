"""Hover over stdio, as VS Code and as Neovim: the memory of an instruction or value with the exact
figures XLA printed (read here from the dump's own files), its origin, and the range of the name."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from helpers import COMBINED_HLO, COMBINED_MLP, DATA, SPLIT_HLO, SPLIT_MLP
from helpers.lsp import SERVER, column_of, negotiated_encoding, open_file, position_of, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT = SPLIT_MLP
SPLIT_FILES = [Path(f"{SPLIT}{suffix}") for suffix in
               ("-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt")]
COMBINED_BA = Path(f"{COMBINED_MLP}-buffer-assignment.txt")
GPU_SEED = DATA / "seeds" / "torchxla-gpu-decode.buffer-assignment.txt"
TPU_SEED = DATA / "seeds" / "tpu-allreduce-mlp.buffer-assignment.txt"


# ---- what XLA printed --------------------------------------------------------------------------


def xla_bytes(count: int) -> str:
    """XLA's human-readable byte count (tsl::strings::HumanReadableNumBytes), as in `Total bytes used`."""
    if count < 1024:
        return f"{count}B"
    value, unit = count / 1024, 0
    while value >= 1024 and unit < 7:
        value, unit = value / 1024, unit + 1
    return f"{value:.1f}KiB" if unit == 0 else f"{value:.2f}{'KMGTPEZY'[unit]}iB"


def byte_text(count: int) -> str:
    """How the hover spells a byte count: exact with separators, then XLA's human form."""
    return f"{count:,} bytes" + (f" ({xla_bytes(count)})" if count >= 1024 else "")


class Printed:
    """The figures in a module's buffer-assignment-family files, found by reading their lines."""

    _VALUE = re.compile(r"^ value: <(\d+) (\S+) @\d+> \(size=(\d+),offset=(\d+)\): (.*)$")
    _ALLOCATION = re.compile(r"^allocation (\d+): size (\d+)")

    def __init__(self, *paths: Path) -> None:
        self.lines = [line for path in paths for line in path.read_text().split("\n")]

    def value(self, value_id: int) -> tuple[str, int, int, str, int]:
        """(label, size, offset, shape, allocation index) of the value line `<value_id ...>`."""
        allocation = -1
        for line in self.lines:
            header = self._ALLOCATION.match(line)
            if header:
                allocation = int(header.group(1))
            value = self._VALUE.match(line)
            if value and int(value.group(1)) == value_id:
                return value.group(2), int(value.group(3)), int(value.group(4)), value.group(5), allocation
        raise AssertionError(f"no value {value_id}")

    def max_time(self) -> int:
        return int(next(re.match(r"HloLiveRange \(max (\d+)\)", line).group(1)  # type: ignore[union-attr]
                        for line in self.lines if line.startswith("HloLiveRange (max ")))

    def live_range(self, label: str) -> tuple[int, int]:
        live = label if "{" in label else label + "{}"
        found = [match for line in self.lines if (match := re.fullmatch(rf"    {re.escape(live)}:(\d+)-(\d+)", line))]
        assert len(found) == 1, live
        return int(found[0].group(1)), int(found[0].group(2))

    def scheduled(self, time: int) -> str:
        return next(line.split(":", 1)[1] for line in self.lines if line.startswith(f"    {time}:"))

    def peak(self) -> tuple[int, dict[str, int]]:
        """The peak time and the bytes XLA listed for each entry at it (by `name{index}` or by name)."""
        start = next(i for i, line in enumerate(self.lines) if line.startswith("  Live ranges at "))
        time = int(re.match(r"  Live ranges at (\d+) \(peak\):", self.lines[start]).group(1))  # type: ignore[union-attr]
        entries = {}
        for line in self.lines[start + 1:]:
            entry = re.match(r"    (\S+): (\d+) bytes", line)
            if entry is None:
                break
            entries[entry.group(1)] = int(entry.group(2))
        return time, entries

    def memory_lines(self, value_id: int, kinds: str) -> list[str]:
        """The hover's list items for a value: size, allocation and offset, live range, place at the peak."""
        label, size, offset, _, allocation = self.value(value_id)
        start, end = self.live_range(label)
        last = "the end of the program" if end >= self.max_time() else f"`{self.scheduled(end)}`"
        time, entries = self.peak()
        counted = entries.get(label if "{" in label else label + "{}", entries.get(label.split("{")[0]))
        assert counted is not None and start <= time <= end
        total = sum(entries.values())
        return [f"- {byte_text(size)} in allocation {allocation} ({kinds}), offset {offset:,}",
                f"- live [{start}, {end}]: from `{self.scheduled(start)}` to {last}",
                f"- live at the peak (time {time}, `{self.scheduled(time)}`): counted as {counted:,}"
                f" of {byte_text(total)}"]


def table_row(hlo: str, table: str, row: int) -> str:
    """The text after the id of row `row` of a stack-frame table (FileNames, StackFrames...)."""
    lines = hlo.split("\n")
    start = lines.index(table)
    return next(line.split(" ", 1)[1] for line in lines[start + 1:] if line.startswith(f"{row} "))


def field(text: str, name: str) -> int:
    return int(re.search(rf"\b{name}=(\d+)", text).group(1))  # type: ignore[union-attr]


def frame_source(hlo: str, frame: int) -> str:
    """`file:line` in `function` of a stack frame, through the module's tables."""
    location = table_row(hlo, "FileLocations", field(table_row(hlo, "StackFrames", frame), "file_location_id"))
    file_name = table_row(hlo, "FileNames", field(location, "file_name_id")).strip('"')
    function = table_row(hlo, "FunctionNames", field(location, "function_name_id")).strip('"')
    return f"`{file_name}:{field(location, 'line')}` in `{function}`"


def frame_stack(hlo: str, frame: int) -> list[int]:
    """The frame and its callers, innermost first: XLA prints a parent as its id + 1, and 1 for none."""
    frames = [frame]
    while (parent := field(table_row(hlo, "StackFrames", frames[-1]), "parent_frame_id") - 1) >= 1:
        frames.append(parent)
    return frames


# ---- requests ----------------------------------------------------------------------------------


async def hover_on(client: LanguageClient, path: Path, line_containing: str, name: str
                   ) -> tuple[types.Hover, types.Range]:
    """The hover on `name` (on the one line containing `line_containing`) and the range of `name`."""
    uri = open_file(client, path)
    position = position_of(path, line_containing, name)
    answer = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position))
    assert answer is not None
    return answer, types.Range(position, types.Position(position.line, position.character + len(name)))


def markdown_of(client: LanguageClient, answer: types.Hover) -> str:
    """The hover's text, after checking it is Markdown for a client that renders Markdown."""
    assert client.capabilities is not None and client.capabilities.text_document is not None
    hover = client.capabilities.text_document.hover
    assert hover is not None and types.MarkupKind.Markdown in (hover.content_format or ())
    assert isinstance(answer.contents, types.MarkupContent)
    assert answer.contents.kind == types.MarkupKind.Markdown
    return answer.contents.value


# ---- instructions --------------------------------------------------------------------------------


async def test_hover_on_an_instruction_of_the_split_dump(client: LanguageClient) -> None:
    line = "%ynn_fusion.1 = f32[32,256]{1,0} fusion("
    answer, name = await hover_on(client, SPLIT_HLO, line, "ynn_fusion.1")
    assert answer.range == name

    hlo = SPLIT_HLO.read_text()
    defined = re.search(r"  %ynn_fusion\.1 = (\S+) (\w+)\(.*op_name=\"([^\"]+)\" stack_frame_id=(\d+)", hlo)
    assert defined is not None
    printed = Printed(*SPLIT_FILES)
    label = printed.value(62)[0]
    assert label == "ynn_fusion.1"
    assert markdown_of(client, answer).split("\n") == [
        f"**ynn_fusion.1** = `{defined.group(1)}` {defined.group(2)}",
        "",
        "`<62 ynn_fusion.1 @0>`",
        *printed.memory_lines(62, "preallocated-temp"),
        "",
        f"- op_name `{defined.group(3)}`",
        f"- source {frame_source(hlo, int(defined.group(4)))}",
        "- Python stack, innermost first:",
        *(f"  {number}. {frame_source(hlo, frame)}"
          for number, frame in enumerate(frame_stack(hlo, int(defined.group(4))), 1)),
    ]


async def test_split_dump_figures_are_the_printed_ones(client: LanguageClient) -> None:
    """The same hover, against the literal figures of the dump, so that a misread file cannot agree with itself."""
    answer, _ = await hover_on(client, SPLIT_HLO, "%ynn_fusion.1 = f32[32,256]{1,0} fusion(", "ynn_fusion.1")
    text = markdown_of(client, answer)
    assert " value: <62 ynn_fusion.1 @0> (size=32768,offset=0): f32[32,256]{1,0}" in SPLIT_FILES[0].read_text()
    assert "allocation 14: size 65536, preallocated-temp:" in SPLIT_FILES[0].read_text()
    live = SPLIT_FILES[2].read_text()
    assert "    ynn_fusion.1{}:9-10" in live and "    9:ynn_fusion.1\n    10:add_maximum_fusion" in live
    assert "ynn_fusion.1{}: 32768 bytes (cumulative: 458752 bytes)" in live
    assert "bs_2_.1{}: 40 bytes (cumulative: 487464 bytes)" in live
    assert "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0\n" in text
    assert "- live [9, 10]: from `ynn_fusion.1` to `add_maximum_fusion`\n" in text
    assert "- live at the peak (time 9, `ynn_fusion.1`): counted as 32,768 of 487,464 bytes (476.0KiB)\n" in text


async def test_hover_on_an_instruction_of_the_combined_dump(client: LanguageClient) -> None:
    answer, name = await hover_on(client, COMBINED_HLO, "  dot.8 = f32[32,256]{1,0} dot(", "dot.8")
    assert answer.range == name

    defined = re.search(r"  dot\.8 = (\S+) (\w+)\(.*op_name=\"([^\"]+)\" source_file=\"([^\"]+)\" source_line=(\d+)",
                        COMBINED_HLO.read_text())
    assert defined is not None
    printed = Printed(COMBINED_BA)
    value_id = int(re.search(r"<(\d+) dot\.8 @0>", COMBINED_BA.read_text()).group(1))  # type: ignore[union-attr]
    assert markdown_of(client, answer).split("\n") == [
        f"**dot.8** = `{defined.group(1)}` {defined.group(2)}",
        "",
        f"`<{value_id} dot.8 @0>`",
        *printed.memory_lines(value_id, "preallocated-temp"),
        "",
        f"- op_name `{defined.group(3)}`",
        f"- source `{defined.group(4)}:{defined.group(5)}`",
    ]


async def test_hover_on_a_use_names_the_used_instruction(client: LanguageClient) -> None:
    """On an operand, the hover is about the operand (its range is the operand's), not the instruction of the line."""
    line = "%add_maximum_fusion = f32[32,256]{1,0} fusion(%ynn_fusion.1"
    answer, name = await hover_on(client, SPLIT_HLO, line, "ynn_fusion.1")
    assert answer.range == name
    title = "**ynn_fusion.1** = `f32[32,256]{1,0}` fusion\n\n`<62 ynn_fusion.1 @0>`\n"
    assert markdown_of(client, answer).startswith(title)


async def test_hover_on_a_label_of_the_peak_breakdown_after_non_ascii_text(client: LanguageClient) -> None:
    """The stack-trace breakdown draws its tree with "├──" (3 UTF-16 units, 9 UTF-8 bytes): the label's
    range is counted in the negotiated encoding, and its figures are the breakdown's own."""
    live = SPLIT_FILES[2]
    text = next(line for line in live.read_text().split("\n") if "── x (" in line)
    row = live.read_text().split("\n").index(text)
    figures = re.search(r"── x \(([\d.]+)%, total: ([\d ]+) bytes, current: ([\d ]+) bytes", text)
    header = re.search(r"Stack trace breakdown for peak usage: ([\d ]+) bytes", live.read_text())
    assert figures is not None and header is not None and figures.group(2) == figures.group(3)
    total, breakdown = int(figures.group(2).replace(" ", "")), int(header.group(1).replace(" ", ""))

    encoding = negotiated_encoding(client.capabilities)
    start = text.index("x (")
    label = types.Range(types.Position(row, column_of(text, start, encoding)),
                        types.Position(row, column_of(text, start + 1, encoding)))
    uri = open_file(client, live)
    answer = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), label.start))
    assert answer is not None and answer.range == label
    parameter = re.search(r"  %(\S+) = \S+ (parameter)\(\d+\), metadata=\{op_name=\"x\"\}", SPLIT_HLO.read_text())
    assert parameter is not None
    assert markdown_of(client, answer).split("\n") == [
        f"**`x`** at the peak: {byte_text(total)}, {figures.group(1)}% of {byte_text(breakdown)}",
        "",
        "instructions with this op_name:",
        f"- `{parameter.group(1)}` ({parameter.group(2)})",
    ]


# ---- values of the seeds (buffer assignments without their HLO module) -------------------------


async def test_hover_on_a_value_of_the_gpu_seed(client: LanguageClient) -> None:
    answer, name = await hover_on(client, GPU_SEED, " value: <201 wrapped_slice.1 @0>", "201")
    assert answer.range == name
    printed = Printed(GPU_SEED)
    label, _, _, shape, _ = printed.value(201)
    total = re.search(r"Total bytes used: (\d+) \((\S+)\)", GPU_SEED.read_text())
    assert total is not None and xla_bytes(int(total.group(1))) == total.group(2)  # the spelling is XLA's
    assert markdown_of(client, answer).split("\n") == [
        f"**value 201** `<201 {label} @0>` `{shape}`",
        "",
        *printed.memory_lines(201, "maybe-live-out"),
    ]
    # wrapped_slice.1 lives to the end: [57, 66], and the old peak list names it without an index.
    assert "- live [57, 66]: from `wrapped_slice.1` to the end of the program" in answer.contents.value


async def test_hover_on_a_value_of_the_tpu_seed(client: LanguageClient) -> None:
    """A tuple element live at the peak: this XLA lists its whole tuple (24 bytes) in the peak list."""
    answer, name = await hover_on(client, TPU_SEED, " value: <39 copy-start{0} @1>", "39")
    assert answer.range == name
    printed = Printed(TPU_SEED)
    label, _, _, shape, _ = printed.value(39)
    memory = printed.memory_lines(39, "preallocated-temp, color 1")
    # The module has three memory spaces (colors 0, 1 and 2): the peak is the one of the value's space,
    # by the accounting of this XLA, which counts the live tuple element with its whole tuple's 24 bytes.
    memory[-1] = ("- live at the peak of color 1 (time 11, `fusion`): counted as 24 of 31,457,304 bytes (30.00MiB);"
                  " this XLA counts a live tuple element with its whole tuple's size")
    assert markdown_of(client, answer).split("\n") == [f"**value 39** `<39 {label} @1>` `{shape}`", "", *memory]
    assert "    copy-start: 24 bytes" in TPU_SEED.read_text()


async def test_hover_on_a_thread_local_value_of_the_tpu_seed(client: LanguageClient) -> None:
    answer, name = await hover_on(client, TPU_SEED, " value: <6 add.27 @0>", "6")
    assert answer.range == name
    _, size, offset, shape, allocation = Printed(TPU_SEED).value(6)
    assert markdown_of(client, answer).split("\n") == [
        f"**value 6** `<6 add.27 @0>` `{shape}`",
        "",
        f"- {byte_text(size)} in the default space, allocation {allocation} (thread-local), offset {offset}",
        f"- unpadded 4 bytes: {size - 4:,} bytes ({100 * (size - 4) / size:.1f}%) are padding",
        "- no live range: thread-local (it lives only while its computation runs)",
    ]
    assert shape == "f32[]{:T(128)}"


async def test_no_hover_on_punctuation(client: LanguageClient) -> None:
    uri = open_file(client, SPLIT_HLO)
    position = position_of(SPLIT_HLO, "%ynn_fusion.1 = f32[32,256]{1,0} fusion(", "= f32")  # on the `=`
    answer = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position))
    assert answer is None


# ---- a client that shows plain text only ---------------------------------------------------------


def plain_text_capabilities() -> types.ClientCapabilities:
    """VS Code's capabilities, except that hovers can only be shown as plain text."""
    capabilities = copy.deepcopy(client_capabilities("visual-studio-code"))
    assert capabilities.text_document is not None and capabilities.text_document.hover is not None
    capabilities.text_document.hover.content_format = [types.MarkupKind.PlainText]
    return capabilities


@pytest_lsp.fixture(config=SERVER, scope="module")
async def plain_client(lsp_client: LanguageClient):  # noqa: ANN201
    await start_session(lsp_client, plain_text_capabilities())
    yield
    await lsp_client.shutdown_session()


async def test_a_plain_text_client_gets_plain_text(plain_client: LanguageClient) -> None:
    answer, name = await hover_on(plain_client, SPLIT_HLO, "%ynn_fusion.1 = f32[32,256]{1,0} fusion(", "ynn_fusion.1")
    assert answer.range == name
    assert isinstance(answer.contents, types.MarkupContent)
    assert answer.contents.kind == types.MarkupKind.PlainText
    assert "32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0" in answer.contents.value


async def test_plain_text_hovers_carry_no_markdown_markup(plain_client: LanguageClient) -> None:
    answer, _ = await hover_on(plain_client, SPLIT_HLO, "%ynn_fusion.1 = f32[32,256]{1,0} fusion(", "ynn_fusion.1")
    assert isinstance(answer.contents, types.MarkupContent)
    text = answer.contents.value
    assert "**" not in text and "`" not in text, text

"""Source links: `source_file=`/`source_line=`, `stack_frame_id=N` and the stack-frame tables become
links to the user's Python file, found by name when it is not at the printed path; and the hover of an
instruction shows its whole Python stack."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import COMBINED_MLP, SPLIT_MLP, copy_module, module_of
from hlo_lsp.features.hover import hover
from hlo_lsp.features.links import Link, document_links
from hlo_lsp.features.targets import target_at
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.sources import SourceFinder

PRINTED = "/home/dev/xla-examples/gen_dumps.py"


def workspace(tmp_path: Path, stem: Path, source_folder: str | None = "src") -> tuple[Path, Path]:
    """A workspace folder holding a copy of the module under dumps/ and (unless None) a gen_dumps.py in
    `source_folder`; returns (workspace folder, copied stem)."""
    root = tmp_path / "workspace"
    dumps = root / "dumps" / stem.parent.name
    dumps.mkdir(parents=True)
    copy = copy_module(stem, dumps)
    if source_folder is not None:
        (root / source_folder).mkdir(parents=True, exist_ok=True)
        (root / source_folder / "gen_dumps.py").write_text("# the program that made the dumps\n")
    return root, copy


def links_of(path: Path, root: Path, module: ModuleDump | None = None) -> list[Link]:
    module = module or module_of(path)
    document = next(d for d in module.all_documents() if Path(d.source).name == path.name)
    return document_links(module, document, SourceFinder([str(root)]).find)


def text_at(path: Path, link: Link) -> str:
    return path.read_text().split("\n")[link.range.start.line][link.range.start.character:link.range.end.character]


def test_stack_frame_ids_link_to_the_innermost_frame_found_by_name(tmp_path: Path) -> None:
    root, stem = workspace(tmp_path, SPLIT_MLP)
    hlo = Path(f"{stem}.txt")
    links = links_of(hlo, root)
    source = str(root / "src" / "gen_dumps.py")
    frame_links = [link for link in links if text_at(hlo, link) == "stack_frame_id"]
    lines = hlo.read_text().split("\n")
    assert sorted(link.range.start.line for link in frame_links) == [
        number for number, text in enumerate(lines) if "stack_frame_id=" in text]
    assert {link.path for link in links} == {source}
    dot = next(link for link in frame_links if "%ynn_fusion.2 = " in lines[link.range.start.line])
    assert "stack_frame_id=4}" in lines[dot.range.start.line]
    # frame 4 -> FileLocations 4 -> line 169 of FileNames 1, in function 4
    assert dot.line == 169
    assert dot.tooltip == f"{PRINTED}:169 in _mlp3.<locals>.mlp (found at {source}) (and 3 callers)"
    relu = next(link for link in frame_links if "stack_frame_id=5}" in lines[link.range.start.line])
    assert relu.line == 171


def test_the_tables_link_their_rows(tmp_path: Path) -> None:
    root, stem = workspace(tmp_path, SPLIT_MLP)
    hlo = Path(f"{stem}.txt")
    links = [link for link in links_of(hlo, root) if text_at(hlo, link) != "stack_frame_id"]
    lines = hlo.read_text().split("\n")
    described = [(lines[link.range.start.line].split(" ", 1)[0], text_at(hlo, link), link.line) for link in links]
    assert described == [
        ("1", PRINTED, None),
        ("1", "line=669", 669), ("2", "line=646", 646), ("3", "line=174", 174), ("4", "line=169", 169),
        ("5", "line=171", 171), ("6", "line=172", 172),
        ("1", "file_location_id", 669), ("2", "file_location_id", 646), ("3", "file_location_id", 174),
        ("4", "file_location_id", 169), ("5", "file_location_id", 171), ("6", "file_location_id", 172)]


def test_the_values_file_links_through_the_modules_tables(tmp_path: Path) -> None:
    root, stem = workspace(tmp_path, SPLIT_MLP)
    values = Path(f"{stem}-buffer-assignment-values.txt")
    links = links_of(values, root)
    with_frames = [n for n, text in enumerate(values.read_text().split("\n")) if "stack_frame_id=" in text]
    assert sorted(link.range.start.line for link in links) == with_frames
    assert all(text_at(values, link) == "stack_frame_id" and link.line in (169, 171, 172) for link in links)


def test_no_link_when_no_file_of_that_name_is_found(tmp_path: Path) -> None:
    root, stem = workspace(tmp_path, SPLIT_MLP, source_folder=None)
    (root / "src").mkdir()
    (root / "src" / "other.py").write_text("")
    assert links_of(Path(f"{stem}.txt"), root) == []


def test_source_file_and_source_line_of_older_xla(tmp_path: Path) -> None:
    root, stem = workspace(tmp_path, COMBINED_MLP, source_folder="dumps")  # gen_dumps.py beside the dump folder
    hlo = Path(f"{stem}.txt")
    links = links_of(hlo, root)
    lines = hlo.read_text().split("\n")
    assert sorted({link.range.start.line for link in links}) == [
        number for number, text in enumerate(lines) if "source_file=" in text]
    assert {text_at(hlo, link) for link in links} == {PRINTED}
    assert {link.path for link in links} == {str(root / "dumps" / "gen_dumps.py")}
    for link in links:
        printed = re.search(r'source_file="[^"]*" source_line=(\d+)', lines[link.range.start.line])
        assert printed is not None and link.line == int(printed.group(1))
    combined = Path(f"{stem}-buffer-assignment.txt")
    from_instruction = links_of(combined, root)
    assert from_instruction and all(text_at(combined, link) == PRINTED for link in from_instruction)


def test_a_path_that_exists_as_printed_links_to_itself(tmp_path: Path) -> None:
    program = tmp_path / "elsewhere" / "train.py"
    program.parent.mkdir()
    program.write_text("")
    text = (f'HloModule m\n\nENTRY %main {{\n  ROOT %c = f32[] constant(1), metadata={{op_name="c" '
            f'source_file="{program}" source_line=12}}\n}}\n')
    document = Document(text, FileKind.HLO_MODULE, str(tmp_path / "m.hlo"))
    module = ModuleDump(str(tmp_path / "m"), {FileKind.HLO_MODULE: document})
    (link,) = document_links(module, document, SourceFinder([str(tmp_path / "workspace")]).find)
    assert (link.path, link.line, link.tooltip) == (str(program), 12, f"{program}:12")


def test_in_a_long_module_only_the_lines_naming_a_found_file_link(tmp_path: Path) -> None:
    """Two thousand instructions (several chunks of lines); only some, far down, name a file that exists."""
    program = tmp_path / "train.py"
    program.write_text("")
    found_at = {1500, 1501, 1900}
    body = [f'  %c.{n} = f32[] constant(1), metadata={{op_name="c" source_file="'
            f'{program if n in found_at else "/nowhere/gone.py"}" source_line={n}}}' for n in range(2000)]
    text = "\n".join(["HloModule m", "", "ENTRY %main {", *body, "  ROOT %r = f32[] add(%c.0, %c.1)", "}", ""])
    document = Document(text, FileKind.HLO_MODULE, str(tmp_path / "m.hlo"))
    module = ModuleDump(str(tmp_path / "m"), {FileKind.HLO_MODULE: document})
    links = document_links(module, document, SourceFinder([str(tmp_path / "workspace")]).find)
    assert [(link.range.start.line, link.line) for link in links] == [(3 + n, n) for n in sorted(found_at)]


def test_after_edits_a_long_module_links_the_lines_that_name_a_found_file_now(tmp_path: Path) -> None:
    """What each chunk names is read once and kept with the chunk, which edits share: an edit that
    names a found file in a chunk that named none links it, and one that names it no more unlinks it."""
    program = tmp_path / "train.py"
    program.write_text("")
    body = [f'  %c.{n} = f32[] constant(1), metadata={{op_name="c" source_file="/nowhere/gone.py" source_line={n}}}'
            for n in range(2000)]
    text = "\n".join(["HloModule m", "", "ENTRY %main {", *body, "  ROOT %r = f32[] add(%c.0, %c.1)", "}", ""])
    document = Document(text, FileKind.HLO_MODULE, str(tmp_path / "m.hlo"))
    find = SourceFinder([str(tmp_path / "workspace")]).find

    def links(version: Document) -> list[tuple[int, int | None]]:
        module = ModuleDump(str(tmp_path / "m"), {FileKind.HLO_MODULE: version})
        return [(link.range.start.line, link.line) for link in document_links(module, version, find)]

    assert links(document) == []
    line = 3 + 1700
    start = document.line(line).index("/nowhere/gone.py")
    named = document.apply_edit(Range(Position(line, start), Position(line, start + len("/nowhere/gone.py"))),
                                str(program))
    assert links(named) == [(line, 1700)]
    start = named.line(line).index(str(program))
    unnamed = named.apply_edit(Range(Position(line, start), Position(line, start + len(str(program)))), "/gone.py")
    assert links(unnamed) == []


def test_a_document_gets_at_most_max_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hlo_lsp.features.links as links_module
    root, stem = workspace(tmp_path, SPLIT_MLP)
    monkeypatch.setattr(links_module, "MAX_LINKS", 5)
    assert len(links_of(Path(f"{stem}.txt"), root)) == 5


def test_stack_frames_follow_printed_parents() -> None:
    hlo = module_of(Path(f"{SPLIT_MLP}.txt")).hlo
    assert hlo is not None
    assert [f"{frame.file_name}:{frame.line} in {frame.function_name}" for frame in hlo.stack(6)] == [
        f"{PRINTED}:172 in _mlp3.<locals>.mlp", f"{PRINTED}:174 in _mlp3", f"{PRINTED}:646 in main",
        f"{PRINTED}:669 in <module>"]
    assert hlo.stack(99) == []


def test_the_hover_of_an_instruction_shows_its_whole_python_stack() -> None:
    hlo = Path(f"{SPLIT_MLP}.txt")
    module = module_of(hlo)
    document = module.hlo_document
    assert document is not None
    line = next(n for n in range(document.line_count) if "  %ynn_fusion.2 = " in document.line(n))
    target = target_at(document, Position(line, document.line(line).index("ynn_fusion.2")))
    assert target is not None
    found = hover(module, target)
    assert found is not None
    lines = found.markdown.split("\n")
    start = lines.index("- Python stack, innermost first:")
    assert lines[start - 1] == f"- source `{PRINTED}:169` in `_mlp3.<locals>.mlp`"
    assert lines[start + 1:] == [f"  1. `{PRINTED}:169` in `_mlp3.<locals>.mlp`", f"  2. `{PRINTED}:174` in `_mlp3`",
                                 f"  3. `{PRINTED}:646` in `main`", f"  4. `{PRINTED}:669` in `<module>`"]


@pytest.mark.parametrize("workspace_folder", ["corpus", "elsewhere"])
def test_the_real_corpus_layout_finds_gen_dumps_above_the_dump(corpus: Path, tmp_path: Path,
                                                               workspace_folder: str) -> None:
    """The corpus keeps gen_dumps.py two folders above each dump: found among the dump folder's parents,
    up to the workspace folder that holds the dump, or a few levels up when none does."""
    program = corpus / "gen_dumps.py"
    if not program.is_file():
        pytest.skip("the corpus has no gen_dumps.py")
    hlo = corpus / "jax-0.10.2" / "mlp3" / "module_0000.jit_mlp.cpu_after_optimizations.txt"
    links = links_of(hlo, corpus if workspace_folder == "corpus" else tmp_path)
    assert links and {link.path for link in links} == {str(program)}
    assert {link.line for link in links} == {169, 171, 172, 174, 646, 669, None}

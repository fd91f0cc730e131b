"""File kinds: every file a producer wrote is the kind its MANIFEST says, by content with the name as a hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import CORPUS, DATA, HANDWRITTEN, SPLIT_MLP
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind, dump_name, kind_from_name

SHARED_PRODUCERS = CORPUS.parent / "producers"
# The kinds gen_dumps.py and the producers' generators wrote in each case's MANIFEST.txt.
MANIFEST_KINDS = {
    "hlo-before-optimizations": FileKind.HLO_MODULE,
    "hlo-after-optimizations": FileKind.HLO_MODULE,
    "hlo-after-optimizations-before-buffer-assignment": FileKind.HLO_MODULE,
    "hlo-after-optimizations-after-buffer-assignment": FileKind.HLO_MODULE,
    "hlo-after-codegen": FileKind.HLO_MODULE,
    "buffer-assignment": FileKind.BUFFER_ASSIGNMENT,
    "buffer-assignment-values": FileKind.BUFFER_ASSIGNMENT_VALUES,
    "live-range": FileKind.LIVE_RANGE,
    "memory-usage-report": FileKind.MEMORY_USAGE_REPORT,
}


def manifest_kinds(folder: Path) -> list[tuple[Path, FileKind]]:
    """(file, kind) of every file a MANIFEST.txt under `folder` says was kept."""
    found = []
    for manifest in sorted(folder.rglob("MANIFEST.txt")):
        for line in manifest.read_text().splitlines():
            fields = line.split("\t")
            if fields[0] == "KEEP" and (manifest.parent / fields[4]).is_file():
                kind = FileKind.SIDE_FILE if fields[3].startswith("txt:") else MANIFEST_KINDS[fields[3]]
                found.append((manifest.parent / fields[4], kind))
    return found


BUNDLED = manifest_kinds(DATA)


@pytest.mark.parametrize(("path", "kind"), BUNDLED, ids=[p.name[-70:] for p, _ in BUNDLED])
def test_every_bundled_file_is_the_kind_its_producer_wrote(path: Path, kind: FileKind) -> None:
    assert detect_kind(path.name, path.read_text()) is kind
    assert kind_from_name(path.name) is kind


def test_the_bundled_manifests_name_every_kind_and_every_stage() -> None:
    assert {kind for _, kind in BUNDLED} == {kind for kind in FileKind if kind is not FileKind.UNKNOWN}
    assert len(BUNDLED) > 60


def test_every_file_of_the_shared_producers_and_corpus_is_the_kind_its_producer_wrote() -> None:
    if not SHARED_PRODUCERS.is_dir():
        pytest.skip(f"the shared producers are not beside the project ({SHARED_PRODUCERS})")
    found = manifest_kinds(SHARED_PRODUCERS) + manifest_kinds(CORPUS)
    wrong = [(path.name, kind, detect_kind(path.name, path.read_text())) for path, kind in found
             if detect_kind(path.name, path.read_text()) is not kind]
    assert len(found) > 300 and wrong == []


@pytest.mark.parametrize(("file_name", "compilation", "stage"), [
    ("module_0000.jit_mm.cl_933746096.after_codegen.txt", "module_0000.jit_mm.cl_933746096", "after_codegen"),
    ("module_0000.jit_mm.cl_933746096.after_optimizations-buffer-assignment-values.txt",
     "module_0000.jit_mm.cl_933746096", "after_optimizations"),
    ("module_0000.jit_mm.cl_933746096.tpu_comp_env.txt", "module_0000.jit_mm.cl_933746096", "tpu_comp_env"),
    ("module_0004.SyncTensorsGraph.66.cpu_after_optimizations.txt", "module_0004.SyncTensorsGraph.66",
     "cpu_after_optimizations"),
    ("module_0002.a_inference_eval_step_505__XlaMustCompile_true_config_proto_1_executor_type_2_.3"
     ".before_optimizations.txt", "module_0002.a_inference_eval_step_505__XlaMustCompile_true_config_proto_1_"
     "executor_type_2_.3", "before_optimizations"),
    ("1700000000.module_0012.jit_f.0003.cpu-pipeline.after_dce.before_cse.txt", "1700000000.module_0012.jit_f",
     "0003.cpu-pipeline.after_dce.before_cse"),
    ("module_0001.after_optimizations.txt", "module_0001", "after_optimizations"),
])
def test_xla_names_are_read_as_a_compilation_and_a_stage(file_name: str, compilation: str, stage: str) -> None:
    name = dump_name(file_name)
    assert name is not None and (name.compilation, name.stage) == (compilation, stage)


@pytest.mark.parametrize(("stage", "after_buffer_assignment"), [
    ("after_optimizations", True), ("cpu_after_optimizations", True),
    ("after_optimizations_after_buffer_assignment", True), ("after_codegen", True),
    ("before_optimizations", False), ("after_optimizations_before_buffer_assignment", False),
    ("0003.cpu-pipeline.after_dce.before_cse", False),
])
def test_the_stages_whose_names_are_the_buffer_assignments(stage: str, after_buffer_assignment: bool) -> None:
    name = dump_name(f"module_0000.jit_f.{stage}.txt")
    assert name is not None and name.is_hlo_stage and name.is_after_buffer_assignment is after_buffer_assignment


def test_names_xla_did_not_write_are_not_read_as_dump_names() -> None:
    assert dump_name("notes.txt") is None
    assert dump_name("module_x.txt") is None
    assert dump_name("tpu-allreduce-mlp.buffer-assignment.txt") is None


def test_the_first_line_decides_where_the_name_does_not() -> None:
    assert detect_kind("notes.txt", "BufferAssignment:\nallocation 0: size 4:\n") is FileKind.BUFFER_ASSIGNMENT
    assert detect_kind("module_0000.jit_f.renamed.txt", "HloModule m\n") is FileKind.HLO_MODULE
    assert detect_kind("module_0000.jit_f.renamed.txt", "HloLiveRange (max 3):\n") is FileKind.LIVE_RANGE


def test_xla_naming_wins_over_the_first_line() -> None:
    """One module's files keep their kinds whatever is typed at their top (two HLO files would be one too many)."""
    values = f"{SPLIT_MLP.name}-buffer-assignment-values.txt"
    assert detect_kind(values, "HloModule m\n") is FileKind.BUFFER_ASSIGNMENT_VALUES
    assert detect_kind("module_0000.jit_f.tpu_comp_env.txt", "HloModule m\n") is FileKind.SIDE_FILE


def test_the_name_decides_when_the_first_line_is_broken() -> None:
    hlo = Path(f"{SPLIT_MLP}.txt").read_text().split("\n", 1)[1]  # the HloModule line deleted
    assert detect_kind(f"{SPLIT_MLP.name}.txt", "x = \n" + hlo) is FileKind.HLO_MODULE
    assert detect_kind(f"{SPLIT_MLP.name}-live-range.txt", "garbled\n") is FileKind.LIVE_RANGE
    assert detect_kind(HANDWRITTEN.name, "debug_options {\n") is FileKind.HLO_MODULE
    assert detect_kind(f"{SPLIT_MLP.name}.txt", "") is FileKind.HLO_MODULE


def test_protobuf_text_and_flags_named_like_a_module_are_side_files() -> None:
    assert detect_kind("module_0000.jit_f.gpu_target_config.txt", "gpu_device_info {\n  threads: 1\n}\n") is (
        FileKind.SIDE_FILE)
    assert detect_kind("module_0000.jit_f.flags.txt", "xla_cpu_enable_fast_math: false\n") is FileKind.SIDE_FILE
    assert detect_kind("module_0000.jit_f.thunk_sequence.txt", "000: kernel thunk\n") is FileKind.UNKNOWN
    assert detect_kind("notes.txt", "a: b\n") is FileKind.UNKNOWN

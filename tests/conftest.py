"""Shared fixtures: the bundled real dumps in tests/data and the shared corpus beside the project."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
import pytest_lsp
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from hlo_lsp.analysis.run import check_module
from hlo_lsp.model import document as document_module
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.loader import load

DATA = Path(__file__).parent / "data"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

# Bundled modules, by what they exercise.
SPLIT_MLP = DATA / "jax-0.10.2" / "mlp3" / "module_0000.jit_mlp.cpu_after_optimizations"
COMBINED_MLP = DATA / "jax-0.4.38" / "mlp3" / "module_0001.jit_mlp.cpu_after_optimizations"
SPLIT_CONTROL_FLOW = DATA / "jax-0.10.2" / "control_flow" / "module_0000.jit_f.cpu_after_optimizations"
COMBINED_CONTROL_FLOW = DATA / "jax-0.4.38" / "control_flow" / "module_0001.jit_f.cpu_after_optimizations"
GPU_SEED = DATA / "seeds" / "torchxla-gpu-decode.buffer-assignment.txt"
GPU_HLO_SEED = DATA / "seeds" / "torchxla-gpu-decode-batch32.after_optimizations.txt"
TPU_SEED = DATA / "seeds" / "tpu-allreduce-mlp.buffer-assignment.txt"
TPU_JAX_SEED = DATA / "seeds" / "jax-tpu-mini-attention.buffer-assignment.txt"
HANDWRITTEN = DATA / "handwritten" / "while_and_constants.hlo"
PRODUCERS = DATA / "producers"
TPU_MATMUL = PRODUCERS / "jax-0.10.2-tpu" / "sharded_matmul_2x2" / "module_0000.jit_mm.cl_933746096.after_optimizations"
TPU_STEP = PRODUCERS / "jax-0.10.2-tpu" / "sharded_matmul_2x2" / "module_0005.jit_step.cl_933746096.after_optimizations"
TPU_PALLAS = PRODUCERS / "jax-0.10.2-tpu" / "pallas_kernels" / "module_0000.jit_loss.cl_933746096.after_optimizations"
TF_EVAL = PRODUCERS / "tf-2.21.0" / "keras_mlp_train" / (
    "module_0002.a_inference_eval_step_505__XlaMustCompile_true_config_proto_13561319589895757934_executor_type_"
    "11160318154034397263_.3.cpu_after_optimizations")
TORCH_EVAL = PRODUCERS / "torch-xla-2.9.0" / "mlp_train" / "module_0004.SyncTensorsGraph.66.cpu_after_optimizations"
FLAX_LOWP = PRODUCERS / "jax-0.10.2-flax" / "lowp_dtypes" / "module_0000.jit_f.cpu_after_optimizations"
FLAX_SCAN = PRODUCERS / "jax-0.10.2-flax" / "scan_remat_policy" / "module_0000.jit_step.cpu_after_optimizations"


def is_dump(path: Path) -> bool:
    return detect_kind(path.name, path.read_text(errors="replace")).is_dump


# Every bundled dump file (not the MANIFESTs and the side files XLA writes beside TPU dumps).
DUMP_FILES = sorted(path for path in DATA.rglob("*") if path.is_file() and is_dump(path))


def copy_module(stem: Path, destination: Path) -> Path:
    """Copies every file of the module `stem` into `destination`; returns the new stem."""
    for source in stem.parent.glob(stem.name + "*"):
        target = destination / source.name
        shutil.copyfile(source, target)
    return destination / stem.name


def plant(path: Path, old: str, new: str) -> int:
    """Replaces the one line of `path` containing `old` (which must occur once); returns its 0-based line."""
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path.name}"
    line = text[: text.index(old)].count("\n")
    path.write_text(text.replace(old, new))
    return line


def plant_in_copy(stem: Path, suffix: str, destination: Path, old: str, new: str) -> tuple[Path, int]:
    """Copies the module into `destination`, checks the copy is clean, then plants one change
    into its file `stem + suffix`; returns that file and the 0-based line changed."""
    copy = copy_module(stem, destination)
    assert problems_of(destination) == []
    path = Path(f"{copy}{suffix}")
    return path, plant(path, old, new)


def lines_of(path: Path) -> list[str]:
    return path.read_text().split("\n")


def line_with(path: Path, needle: str) -> int:
    """The 0-based line of the one line of `path` that contains `needle`."""
    found = [number for number, text in enumerate(lines_of(path)) if needle in text]
    assert len(found) == 1, (needle, len(found))
    return found[0]


def where(problems: list[Problem]) -> list[tuple[str, int, Severity, str]]:
    """Each problem as (file name, 0-based line, severity, code): what a user sees in the list."""
    return [(Path(p.source).name, p.range.start.line, p.severity, p.code) for p in problems]


def problems_of(*paths: Path) -> list[Problem]:
    """Every problem `hlo-lsp check` reports on these files or folders."""
    loaded = load([str(path) for path in paths])
    problems = list(loaded.problems)
    for module in loaded.modules:
        problems.extend(check_module(module))
    return problems


# Edits of a real module, for what is derived from a document's previous version: (a line holding
# `anchor`, the text on that line to replace, what replaces it).
EDITS = [
    ("%mul.19 = ", 'op_name="', 'op_name="x'),  # text in a string: every line keeps its kind
    ("%mul.19 = ", "%mul.19", "%mul.91"),  # an instruction renamed
    ("%region_8.10 (", "%region_8.10", "%region_8.99"),  # a computation header renamed
    ("%mul.19 = ", "  %mul.19", "//  %mul.19"),  # an instruction made a comment
    ("%mul.19 = ", "  %mul.19", "  %extra = f32[] constant(0)\n  %mul.19"),  # a line added
    ("ROOT %add.23 = ", "ROOT ", ""),  # no longer the root
]


def edited_copies(path: Path) -> list[tuple[Document, Document]]:
    """(document, edited version) for each of EDITS on the module at `path`."""
    text = path.read_text()
    lines = text.split("\n")
    found = []
    for anchor, old, new in EDITS:
        line = next(number for number, line_text in enumerate(lines) if anchor in line_text)
        start = lines[line].index(old)
        document = Document(text, FileKind.HLO_MODULE, str(path))
        found.append((document, document.apply_edit(Range(Position(line, start), Position(line, start + len(old))),
                                                     new)))
    return found


# Pieces of HLO text random edits insert: some keep every line's kind, some change the structure.
HLO_PIECES = ["x", "(", ")", "{", "}", "\n", "%a.1", "// note", ' op_name="', "ROOT ", "\n}\n",
              "\n  %c.1 = f32[] constant(0)\n", "ENTRY %e () -> f32[] {\n"]


# How many random edits, drawn the same way on every run.
RANDOM_EDITS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                        suppress_health_check=[HealthCheck.too_slow])


def random_edit(data: st.DataObject, document: Document, pieces: list[str], most_removed: int,
                most_pieces: int) -> Document:
    """`document` edited on one of its lines: up to `most_removed` characters replaced by up to
    `most_pieces` of `pieces`."""
    line = data.draw(st.integers(0, document.line_count - 1), label="line")
    column = data.draw(st.integers(0, 60), label="column")
    removed = data.draw(st.integers(0, most_removed), label="removed")
    piece = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=most_pieces), label="text"))
    return document.apply_edit(Range(Position(line, column), Position(line, column + removed)), piece)


def after_random_edits_like_a_fresh_document(data: st.DataObject, text: str,
                                             answer: Callable[[Document], object], edits: int = 5) -> None:
    """Random edits of an HLO module (in chunks of 4 lines); after each, `answer` of the edited document
    is `answer` of a fresh document of its text (what a version keeps from the one before holds)."""
    with mock.patch.object(document_module, "CHUNK_LINES", 4):
        document = Document(text, FileKind.HLO_MODULE, "module.txt")
        answer(document)
        for _ in range(data.draw(st.integers(1, edits), label="edits")):
            document = random_edit(data, document, HLO_PIECES, most_removed=4, most_pieces=3)
            assert answer(document) == answer(Document(document.text, FileKind.HLO_MODULE, "module.txt"))


def after_random_module_edits_like_a_fresh_check(data: st.DataObject, text: str, pieces: list[str],
                                                 check: Callable[[ModuleDump], object]) -> None:
    """Random edits of a one-file module (in chunks of 4 lines) typing `pieces`; after each, `check` of
    the edited module, which may start from its last run, is `check` of a fresh module of the same text."""
    with mock.patch.object(document_module, "CHUNK_LINES", 4):
        document = Document(text, FileKind.HLO_MODULE, "module.hlo")
        module = ModuleDump("module", {FileKind.HLO_MODULE: document})
        check(module)
        for _ in range(data.draw(st.integers(1, 6), label="edits")):
            document = random_edit(data, document, pieces, most_removed=3, most_pieces=2)
            module = module.updated({FileKind.HLO_MODULE: document})
            fresh = Document(document.text, FileKind.HLO_MODULE, "module.hlo")
            assert check(module) == check(ModuleDump("module", {FileKind.HLO_MODULE: fresh}))


def module_of(path: Path) -> ModuleDump:
    """The module a file belongs to, companions included."""
    loaded = load([str(path)])
    assert len(loaded.modules) == 1, [m.stem for m in loaded.modules]
    return loaded.modules[0]


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared corpus is not beside the project ({CORPUS})")
    return CORPUS


# ---- end-to-end: the real server over stdio ---------------------------------------------
# Each end-to-end test runs once per client profile: their capabilities differ.
CLIENTS = ["visual-studio-code", "neovim"]
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "hlo_lsp"])


async def start_session(lsp_client: LanguageClient, capabilities: types.ClientCapabilities,
                        initialization_options: object = None) -> None:
    """Initializes a session as a client with `capabilities` (and options), rooted at tests/data."""
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        """Real editors accept the server's file watchers; the test client just says yes."""

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=DATA.as_uri(), initialization_options=initialization_options))


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
    await start_session(lsp_client, client_capabilities(request.param))
    yield
    await lsp_client.shutdown_session()

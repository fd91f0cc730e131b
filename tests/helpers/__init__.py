"""What the tests share besides fixtures (those stay in tests/conftest.py, where pytest finds them).

Tests import it as `helpers` (tests/ is on sys.path: pytest's default import mode puts the folder of
tests/conftest.py there, as it does for hlo_forms and xla_oracle):

    from helpers import SPLIT_HLO, SPLIT_MLP, problems_of      # paths, dumps, edits
    from helpers.lsp import CLIENTS, open_file, still_serving  # sessions with the real server (pytest-lsp)
    from helpers.raw import raw_session                        # raw JSON-RPC sessions with the server

- helpers.paths: the bundled dumps in tests/data by what they exercise, the shared corpus, DUMP_FILES
- helpers.dumps: copies of modules, changes planted in them, `hlo-lsp check`'s and a session's problems as a user
  sees them
- helpers.edits: fixed and random (hypothesis) edits of documents
- helpers.lsp: the client profiles, starting a session, opening files, waiting for diagnostics, positions
- helpers.raw: raw JSON-RPC sessions (`raw_session`), for what the pytest-lsp client cannot do
- helpers.golden: hover, outline and diagnostics as a user sees them, against the files in tests/golden/
- helpers.questions: a question answered in another thread meanwhile
"""

from helpers.dumps import copy_module, line_with, lines_of, module_of, plant, plant_in_copy, problems_of, seen, where
from helpers.edits import (
    EDITS,
    HLO_PIECES,
    RANDOM_EDITS,
    after_random_edits_like_a_fresh_document,
    after_random_module_edits_like_a_fresh_check,
    edited_copies,
    random_edit,
)
from helpers.paths import (
    COMBINED_CONTROL_FLOW,
    COMBINED_HLO,
    COMBINED_MLP,
    CORPUS,
    DATA,
    DUMP_FILES,
    FLAX_LOWP,
    FLAX_SCAN,
    FOLDER_SMALL_EAGER,
    GPU_HLO_SEED,
    GPU_SEED,
    HANDWRITTEN,
    PAIR_NARROW,
    PAIR_WIDE,
    PRODUCERS,
    SPLIT_CONTROL_FLOW,
    SPLIT_HLO,
    SPLIT_MLP,
    TF_EVAL,
    TORCH_EVAL,
    TPU_JAX_SEED,
    TPU_MATMUL,
    TPU_PALLAS,
    TPU_SEED,
    TPU_STEP,
    is_dump,
    pyproject_version,
)

__all__ = [
    "COMBINED_CONTROL_FLOW", "COMBINED_HLO", "COMBINED_MLP", "CORPUS", "DATA", "DUMP_FILES", "EDITS", "FLAX_LOWP",
    "FLAX_SCAN", "FOLDER_SMALL_EAGER", "GPU_HLO_SEED", "GPU_SEED", "HANDWRITTEN", "HLO_PIECES", "PAIR_NARROW",
    "PAIR_WIDE", "PRODUCERS", "RANDOM_EDITS", "SPLIT_CONTROL_FLOW", "SPLIT_HLO", "SPLIT_MLP", "TF_EVAL",
    "TORCH_EVAL", "TPU_JAX_SEED", "TPU_MATMUL", "TPU_PALLAS", "TPU_SEED", "TPU_STEP",
    "after_random_edits_like_a_fresh_document", "after_random_module_edits_like_a_fresh_check", "copy_module",
    "edited_copies", "is_dump", "line_with", "lines_of", "module_of", "plant", "plant_in_copy", "problems_of",
    "pyproject_version", "random_edit", "seen", "where",
]

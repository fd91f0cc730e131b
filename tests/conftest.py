"""Fixtures, and the `slow` marker. What tests share besides fixtures is in tests/helpers (`from helpers
import ...`); tests/README.md says how the suite is laid out.

`scripts/test` runs every test; `.venv/bin/python -m pytest -m "not slow"` is the quick run, without the
sweeps marked slow (the editor benchmark, fuzzing, random editor sessions, the shared corpus).
"""

from __future__ import annotations

from pathlib import Path

import pytest

# The helpers' own checks (a planted text found once, a module loaded alone...) fail with pytest's
# explanations, as they did when they were in this file.
pytest.register_assert_rewrite("helpers")

from helpers.lsp import client_with  # noqa: E402
from helpers.paths import CORPUS  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a sweep that takes many seconds (the editor benchmark, fuzzing, random "
                                       "editor sessions, the shared corpus); -m \"not slow\" leaves them out")


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared corpus is not beside the project ({CORPUS})")
    return CORPUS


# ---- end-to-end: the real server over stdio ---------------------------------------------
# Each end-to-end test runs once per client profile (helpers.lsp.CLIENTS): their capabilities differ.
client = client_with(None)

"""Fixtures, and the `slow` marker. What tests share besides fixtures is in tests/helpers (`from helpers
import ...`); tests/README.md says how the suite is laid out.

`scripts/test` runs every test; `.venv/bin/python -m pytest -m "not slow"` is the quick run, without the
sweeps marked slow (the editor benchmark, fuzzing, random editor sessions, the shared corpus).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient, client_capabilities

# The helpers' own checks (a planted text found once, a module loaded alone...) fail with pytest's
# explanations, as they did when they were in this file.
pytest.register_assert_rewrite("helpers")

from helpers.lsp import CLIENTS, SERVER, start_session  # noqa: E402
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
@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
    await start_session(lsp_client, client_capabilities(request.param))
    yield
    await lsp_client.shutdown_session()

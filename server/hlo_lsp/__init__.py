"""hlo-lsp: a language server and checker for XLA HLO dumps and buffer-assignment files."""

from __future__ import annotations

import functools
import re
from pathlib import Path


def __getattr__(name: str) -> str:
    """`__version__`, read when asked for: importing importlib.metadata adds tens of milliseconds to every
    start, and `hlo-lsp check` never shows the version."""
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _version() -> str:
    """pyproject.toml's [project] version, the one place it is written: from the installed package's metadata,
    else (a source checkout put on sys.path without installing) from the pyproject.toml beside it."""
    from importlib import metadata

    try:
        return metadata.version("hlo-lsp")
    except metadata.PackageNotFoundError:
        pass
    try:
        text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return "0+unknown"
    project = re.search(r"^\[project\]\n((?:(?!\[).*\n)*)", text, re.MULTILINE)
    table = project.group(1) if project else ""
    version = re.search(r'^version\s*=\s*"([^"]+)"', table, re.MULTILINE)
    ours = re.search(r'^name\s*=\s*"hlo-lsp"', table, re.MULTILINE)
    return version.group(1) if version and ours else "0+unknown"


"""How the CLI prints a path."""

from __future__ import annotations

import os


def shown(path: str) -> str:
    """The path relative to the working folder when that is shorter to read."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir + os.sep + os.pardir) else relative

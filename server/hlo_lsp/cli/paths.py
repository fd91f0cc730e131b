"""How the CLI prints a path, and names what it prints of each module."""

from __future__ import annotations

import os


def shown(path: str) -> str:
    """The path relative to the working folder when that is shorter to read."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir + os.sep + os.pardir) else relative


def distinct_names(stems: list[str]) -> dict[str, str]:
    """Each module's name as the CLI heads its block and names its picture: its file name without its suffix,
    with the folders above it where another module has that name (two dumps of one program: `before/module_0000
    .jit_step.cpu_after_optimizations`)."""
    names = {stem: os.path.basename(stem) for stem in stems}
    while True:
        repeated = {name for name in names.values() if list(names.values()).count(name) > 1}
        longer = {stem: _one_folder_more(stem, name) for stem, name in names.items() if name in repeated}
        if not longer or all(longer[stem] == names[stem] for stem in longer):
            return names
        names.update(longer)


def _one_folder_more(stem: str, name: str) -> str:
    """`name` (the end of `stem`) with the folder above it."""
    parts = stem.split(os.sep)
    depth = name.count(os.sep) + 1
    return os.sep.join(parts[-depth - 1:]) if depth < len(parts) else name

"""Shapes as XLA compares them (ShapeUtil::Compatible: layouts and dynamic bounds aside), and the shapes
it crashes on."""

from __future__ import annotations

import re

from hlo_lsp.parsing.syntax import Shape, TupleShape

# A token or opaque shape with dimensions: XLA's parser builds it, and dies on it (shape.h, buffer != nullptr).
SIZED_TOKEN = re.compile(r"(?<![A-Za-z0-9_])(?:token|opaque)\[\s*[^\]\s]")


def compatible(a: Shape, b: Shape) -> bool:
    """ShapeUtil::Compatible: the same tuple structure, element types, ranks and sizes; an unbounded
    dimension (`?`) matches any size, a bounded one (`<=4`) its bound."""
    if isinstance(a, TupleShape) or isinstance(b, TupleShape):
        return isinstance(a, TupleShape) and isinstance(b, TupleShape) and len(a.elements) == len(b.elements) and all(
            compatible(x, y) for x, y in zip(a.elements, b.elements))
    return a.element_type == b.element_type and len(a.dims) == len(b.dims) and all(
        x == y or x < 0 or y < 0 for x, y in zip(a.dims, b.dims))

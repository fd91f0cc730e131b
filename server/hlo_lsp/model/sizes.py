"""Byte sizes of shapes, reproducing what XLA prints in buffer assignments.

Two sizings appear in dumps (see ../shared/docs/dump-format.md §1.5):
- dense: ShapeUtil::ByteSizeOf(shape, pointer_size=8). GPU/CPU buffer
  assignment and every live-range / peak figure use it.
- tiled: the TPU padded size, applying the layout's tiles.
"""

from __future__ import annotations

import math

from hlo_lsp.parsing.syntax import ArrayShape, Shape, TupleShape

POINTER_SIZE = 8

_ELEMENT_BITS = {
    "pred": 8, "s1": 1, "s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u1": 1, "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "c64": 64, "c128": 128,
    "f4e2m1fn": 4, "f8e8m0fnu": 8, "f8e3m4": 8, "f8e4m3": 8, "f8e4m3fn": 8, "f8e4m3fnuz": 8,
    "f8e4m3b11fnuz": 8, "f8e5m2": 8, "f8e5m2fnuz": 8,
}
_ZERO_SIZED = frozenset(("token",))
_POINTER_SIZED = frozenset(("opaque",))


def element_bits(element_type: str) -> int | None:
    return _ELEMENT_BITS.get(element_type)


def _bytes_for(elements: int, shape: ArrayShape) -> int | None:
    if shape.element_type in _ZERO_SIZED:
        return 0
    if shape.element_type in _POINTER_SIZED:
        return POINTER_SIZE
    bits = element_bits(shape.element_type)
    if bits is None:
        return None
    layout_bits = shape.layout.element_bits if shape.layout else None
    if layout_bits:
        return -(-elements * layout_bits // 8)  # integer ceiling: a garbled shape's count exceeds any float
    return elements * -(-bits // 8)


def dense_size(shape: Shape) -> int | None:
    """ByteSizeOf(shape, 8); None for an element type this table does not know."""
    if isinstance(shape, TupleShape):
        return POINTER_SIZE * len(shape.elements)
    if any(size < 0 for size in shape.dims):
        return None  # unbounded dynamic: XLA has no size either
    return _bytes_for(math.prod(shape.dims), shape)


def tiled_size(shape: Shape) -> int | None:
    """The TPU padded size of an array shape (tuples: None, their tables are backend-sized)."""
    if isinstance(shape, TupleShape):
        return None
    if any(size < 0 for size in shape.dims):
        return None
    layout = shape.layout
    if layout is None or not layout.tiles:
        return dense_size(shape)
    dims = _major_to_minor(shape)
    if dims is None or any(size == 0 for tile in layout.tiles for size in tile):
        return None  # a tile of no elements (as in `T(0,128)`) tiles nothing
    for tile in layout.tiles:
        dims = _apply_tile(dims, tile)
    return _bytes_for(math.prod(dims), shape)


def _major_to_minor(shape: ArrayShape) -> list[int] | None:
    layout = shape.layout
    assert layout is not None
    if not shape.dims:
        return [1]
    order = layout.minor_to_major
    if sorted(order) != list(range(len(shape.dims))):
        return None
    return [shape.dims[d] for d in reversed(order)]


def _apply_tile(dims: list[int], tile: tuple[int | None, ...]) -> list[int]:
    """Dims after tiling: the last len(tile) dims become tile counts, then the tile itself."""
    count = len(tile)
    if count > len(dims):
        dims = [1] * (count - len(dims)) + dims
    outer = dims[: len(dims) - count]
    tiled = dims[len(dims) - count :]
    counts = []
    sizes = []
    for size, tile_size in zip(tiled, tile):
        if tile_size is None:  # `*`: combine the dimension into the tile
            counts.append(1)
            sizes.append(size)
        else:
            counts.append(-(-size // tile_size))  # integer ceiling: dims can exceed a float
            sizes.append(tile_size)
    return outer + counts + sizes


def has_tiles(shape: Shape) -> bool:
    if isinstance(shape, TupleShape):
        return any(has_tiles(element) for element in shape.elements)
    return bool(shape.layout and shape.layout.tiles)


_UNITS = ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def human_bytes(count: int) -> str:
    """tsl's HumanReadableNumBytes: 512B, 168.5KiB, 286.05MiB."""
    if count < 0:
        return "-" + human_bytes(-count)
    if count < 1024:
        return f"{count}B"
    if count.bit_length() > 120:  # beyond any real buffer (and beyond a float's range in the end)
        return "more than 1 EiB"
    unit = 0
    value = count
    while value >= 1024 * 1024 and unit < len(_UNITS) - 1:
        value //= 1024
        unit += 1
    scaled = value / 1024.0
    return f"{scaled:.1f}{_UNITS[unit]}" if unit == 0 else f"{scaled:.2f}{_UNITS[unit]}"

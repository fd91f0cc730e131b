"""Syntax records the grammar produces: shapes, instructions, headers. No lark types leak out.

Spans are (start, end) Python offsets into the text that was parsed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Span = tuple[int, int]

# Attributes whose value names computations.
COMPUTATION_KEYS = frozenset((
    "calls", "to_apply", "condition", "body", "select", "scatter", "true_computation", "false_computation",
    "comparator", "branch_computations", "called_computations",
))


@dataclass(frozen=True, slots=True)
class Layout:
    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int | None, ...], ...] = ()  # None: a `*` (combined) tile dimension
    element_bits: int | None = None  # E(n): sub-byte packing
    memory_space: int | None = None  # S(n)
    tail_padding: int | None = None  # L(n)


@dataclass(frozen=True, slots=True)
class ArrayShape:
    element_type: str
    dims: tuple[int, ...]  # -1 for an unbounded dynamic dimension (`?`)
    bounded: tuple[bool, ...] = ()  # per dim: printed as `<=N`
    layout: Layout | None = None

    @property
    def is_tuple(self) -> bool:
        return False

    def __str__(self) -> str:
        bounded = self.bounded or (False,) * len(self.dims)
        dims = ",".join("?" if size < 0 else ("<=" if dynamic else "") + str(size)
                        for size, dynamic in zip(self.dims, bounded))
        return f"{self.element_type}[{dims}]"


@dataclass(frozen=True, slots=True)
class TupleShape:
    elements: tuple[Shape, ...]

    @property
    def is_tuple(self) -> bool:
        return True

    def __str__(self) -> str:
        return "(" + ", ".join(str(element) for element in self.elements) + ")"


Shape = ArrayShape | TupleShape


def subshape(shape: Shape, index: tuple[int, ...]) -> Shape | None:
    """The shape at ShapeIndex `index`, or None when the index does not exist."""
    for position in index:
        if not isinstance(shape, TupleShape) or not 0 <= position < len(shape.elements):
            return None
        shape = shape.elements[position]
    return shape


@dataclass(frozen=True, slots=True)
class Operand:
    name: str | None  # None for a literal (constant(...), parameter(N))
    span: Span
    shape: Shape | None = None
    literal: str | None = None


@dataclass(frozen=True, slots=True)
class Attribute:
    key: str
    key_span: Span
    value_span: Span
    names: tuple[tuple[str, Span], ...]  # every name token in the value (sigil removed)
    pairs: tuple[tuple[str, str], ...] = ()  # key=value pairs inside the value: metadata={...}


@dataclass(frozen=True, slots=True)
class Metadata:
    fields: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str | None:
        for name, value in self.fields:
            if name == key:
                return value[1:-1] if value.startswith('"') and value.endswith('"') else value
        return None

    @property
    def op_name(self) -> str | None:
        return self.get("op_name")

    @property
    def op_type(self) -> str | None:
        return self.get("op_type")

    @property
    def source_file(self) -> str | None:
        return self.get("source_file")

    @property
    def source_line(self) -> int | None:
        value = self.get("source_line")
        return int(value) if value and value.isdigit() else None

    @property
    def stack_frame_id(self) -> int | None:
        value = self.get("stack_frame_id")
        return int(value) if value and value.isdigit() else None


@dataclass(frozen=True, slots=True)
class Instruction:
    name: str
    name_span: Span
    is_root: bool
    shape: Shape | None  # None: not written (XLA infers it)
    shape_span: Span
    opcode: str
    opcode_span: Span
    operands: tuple[Operand, ...]
    attributes: tuple[Attribute, ...] = field(default=())

    def attribute(self, key: str) -> Attribute | None:
        for attribute in self.attributes:
            if attribute.key == key:
                return attribute
        return None

    @property
    def metadata(self) -> Metadata | None:
        attribute = self.attribute("metadata")
        return Metadata(attribute.pairs) if attribute else None

    @property
    def called_computations(self) -> tuple[str, ...]:
        """Computations this instruction calls: calls=, to_apply=, condition=, body=, branches..."""
        return tuple(name for attribute in self.attributes if attribute.key in COMPUTATION_KEYS
                     for name, _ in attribute.names)

    @property
    def parameter_number(self) -> int | None:
        if self.opcode != "parameter" or not self.operands or self.operands[0].literal is None:
            return None
        literal = self.operands[0].literal
        return int(literal) if literal.isdigit() else None


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    span: Span
    shape: Shape


@dataclass(frozen=True, slots=True)
class ComputationHeader:
    name: str
    name_span: Span
    is_entry: bool
    parameters: tuple[Parameter, ...] | None  # None: printed without a signature
    result: Shape | None


@dataclass(frozen=True, slots=True)
class ModuleHeader:
    name: str
    name_span: Span
    attributes: tuple[Attribute, ...]

    def attribute(self, key: str) -> Attribute | None:
        for attribute in self.attributes:
            if attribute.key == key:
                return attribute
        return None


@dataclass(frozen=True, slots=True)
class ParseError:
    """Where a piece of text stops following the grammar."""

    start: int
    end: int
    message: str

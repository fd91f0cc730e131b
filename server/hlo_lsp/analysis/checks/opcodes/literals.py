"""Constant literals as XLA's HLO text parser (jaxlib 0.10.2) reads them: nesting and element counts
per dimension, tuples, complex pairs, and each value against its element type's range (integers,
floats rounded to the type, NaN payloads). The first error found is the one XLA prints first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hlo_lsp.analysis.checks.opcodes.values import int64_value

# Float types: (largest finite, half its last step, whether a tie at that half rounds up, NaN payload
# bits; -1: saturating, never out of range). A parsed double is rounded to the type first: it is out
# of range only when rounding overflows.
_FLOATS = {
    "f64": (1.7976931348623157e308, 0.0, False, 52), "f32": (3.4028234663852886e38, 2.0**103, True, 23),
    "bf16": (3.3895313892515355e38, 2.0**119, True, 7), "f16": (65504.0, 16.0, True, 10),
    "f8e5m2": (57344.0, 4096.0, True, 2), "f8e4m3": (240.0, 8.0, True, 3), "f8e3m4": (15.5, 0.25, True, 4),
    "f8e4m3fn": (448.0, 16.0, False, 0), "f8e4m3fnuz": (240.0, 8.0, True, 0),
    "f8e4m3b11fnuz": (30.0, 1.0, True, 0), "f8e5m2fnuz": (57344.0, 4096.0, True, 0),
    "f4e2m1fn": (6.0, 0.0, False, -1), "f6e2m3fn": (7.5, 0.0, False, -1), "f6e3m2fn": (28.0, 0.0, False, -1),
}
_E8M0 = "f8e8m0fnu"  # powers of two from 2^-127 to 2^127: no zero, no negatives
_COMPLEX = {"c64": 3.4028234663852886e38, "c128": 1.7976931348623157e308}
_INTEGERS = {f"{sign}{bits}": (bits, sign == "s") for sign in "su" for bits in (1, 2, 4, 8, 16, 32, 64)}
ELEMENT_TYPES = frozenset((*_FLOATS, _E8M0, *_COMPLEX, *_INTEGERS, "pred", "token", "opaque"))
_LITERAL_TOKEN = re.compile(
    r"(?P<space>\s+|/\*.*?\*/|//[^\n]*)|(?P<dots>\.\.\.)|(?P<punct>[{}(),])"
    r"|(?P<word>-?[A-Za-z0-9_.][A-Za-z0-9_.\-+]*(?:\(0x[0-9A-Fa-f]+\))?)|(?P<other>.)", re.S)
_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
LiteralProblem = tuple[int, int, str, str]  # start, end (in the literal's text), code, message
_SHAPE, _RANGE = "literal-shape", "literal-range"


@dataclass(frozen=True, slots=True)
class LiteralShape:
    """An array shape's element type and dimensions (the bound of a bounded one; -2**63 unbounded),
    or a tuple's element shapes."""

    element_type: str
    dims: tuple[int, ...] = ()
    elements: tuple[LiteralShape, ...] | None = None


def literal_problem(shape: LiteralShape, text: str) -> LiteralProblem | None:
    """What XLA's parser rejects in the literal `text` of a constant of `shape` (the first error
    it prints), or None."""
    tokens = [(m.lastgroup, m.start(), m.end(), m.group()) for m in _LITERAL_TOKEN.finditer(text)
              if m.lastgroup != "space"]
    reader = _LiteralReader(tokens, len(text))
    found = reader.literal(shape)
    if found is None and reader.position < len(tokens):
        found = reader.error(_SHAPE, "expects ')' after constant literal")
    return found


class _LiteralReader:
    def __init__(self, tokens: list[tuple[str | None, int, int, str]], end: int) -> None:
        self.tokens, self.end, self.position = tokens, end, 0

    def peek(self) -> tuple[str | None, int, int, str]:
        return self.tokens[self.position] if self.position < len(self.tokens) else ("end", self.end, self.end, "")

    def error(self, code: str, message: str) -> LiteralProblem:
        _, start, end, _ = self.peek()
        return (start, end, code, message)

    def literal(self, shape: LiteralShape) -> LiteralProblem | None:
        if shape.elements is not None:
            return self.tuple_literal(shape)
        if shape.element_type in ("token", "opaque"):
            return self.error(_SHAPE, f"a constant cannot be of type {shape.element_type} (XLA's parser crashes)")
        return self.dense(shape)

    def tuple_literal(self, shape: LiteralShape) -> LiteralProblem | None:
        elements = shape.elements or ()
        if self.peek()[3] != "(":
            return self.error(_SHAPE, "expects '(' in front of tuple elements")
        self.position += 1
        if self.peek()[3] != ")":
            for index, element in enumerate(elements):
                if index > 0 and self.peek()[3] == ",":
                    self.position += 1
                found = self.literal(element)
                if found is not None:
                    return found if found[2] != _SHAPE or index == 0 or found[3].startswith("a constant") else (
                        found[0], found[1], _SHAPE, f"expects the {index}th element of the tuple")
        if self.peek()[3] != ")":
            return self.error(_SHAPE, f"expects ')' at the end of the tuple with {len(elements)} elements")
        self.position += 1
        return None

    def dense(self, shape: LiteralShape) -> LiteralProblem | None:
        """ParseDenseLiteral: nesting and counts per dimension; the first soft error (one XLA logs but
        parses on after) is what it prints first when a hard error follows."""
        state = _DenseState(shape)
        while True:
            kind, start, end, text = self.peek()
            if text == "(" and shape.element_type in _COMPLEX:
                found = self.complex_value(state, start)
            else:
                found = state.step(kind, text, (start, end))
            if found is not None:
                soft = state.soft[0] if state.soft else found
                return soft if found[2] == _SHAPE else found
            self.position += 1
            if state.level == 0:
                return None

    def complex_value(self, state: _DenseState, start: int) -> LiteralProblem | None:
        """`(real, imaginary)`: the group is taken as one value; the position is left on its `)`."""
        parts = [token for token in self.tokens[self.position + 1 : self.position + 5]]
        texts = [token[3] for token in parts]
        if len(parts) < 4 or texts[1] != "," or texts[3] != ")":
            return (start, parts[-1][2] if parts else start + 1, _SHAPE,
                    "a complex value is written (real, imaginary)")
        self.position += 4
        return state.value((start, parts[3][2]), (texts[0], texts[2]))


class _DenseState:
    def __init__(self, shape: LiteralShape) -> None:
        self.shape, self.rank = shape, len(shape.dims)
        self.level, self.index = 0, 0
        self.seen = [0] * self.rank
        self.soft: list[LiteralProblem] = []

    def where(self, dim: int) -> str:
        return "[" + ",".join(str(n - 1) for n in self.seen[:dim]) + "]"

    def step(self, kind: str | None, text: str, span: tuple[int, int]) -> LiteralProblem | None:
        if text == "{":
            return self.open(span)
        if text == "}":
            return self.close(span)
        if text == ",":
            return None
        if kind == "dots":
            if self.level != 1:
                return (*span, _SHAPE, f"expects `...` at nest level 1, but sees it at nest level {self.level}")
            self.seen[0] = self.shape.dims[0]
            return None
        if text == "(":
            return (*span, _SHAPE, "unexpected '(' in literal: parens are only valid for complex literals")
        if kind != "word":
            return (*span, _SHAPE, "unexpected token type in a literal")
        return self.value(span, text)

    def open(self, span: tuple[int, int]) -> LiteralProblem | None:
        self.level += 1
        if self.level > self.rank:
            return (*span, _SHAPE, f"expects nested array in rank {self.rank}, but sees larger")
        if self.level > 1:
            dim = self.level - 2
            self.seen[dim] += 1
            if self.seen[dim] > self.shape.dims[dim]:
                return (*span, _SHAPE, f"expects {self.shape.dims[dim]} elements in the {self.where(dim)}th "
                                       "element, but sees more")
        return None

    def close(self, span: tuple[int, int]) -> LiteralProblem | None:
        if self.level == 0:
            return (*span, _SHAPE, "unexpected '}' token")
        self.level -= 1
        dim = self.level
        if self.seen[dim] != self.shape.dims[dim]:
            return (*span, _SHAPE, f"expects {self.shape.dims[dim]} elements in the {self.where(dim)}th element, "
                                   f"but sees {self.seen[dim]}")
        self.seen[dim] = 0
        return None

    def value(self, span: tuple[int, int], text: str | tuple[str, str]) -> LiteralProblem | None:
        if self.rank > 0:
            if self.level != self.rank:
                self.soft.append((*span, _SHAPE, f"expects nested array in rank {self.rank}, but sees {self.level}"))
            else:
                self.seen[-1] += 1
                if self.seen[-1] > self.shape.dims[-1]:
                    self.soft.append((*span, _SHAPE, f"expects {self.shape.dims[-1]} elements on the minor-most "
                                                     "dimension, but sees more"))
        kind = self.shape.element_type
        found = complex_problem(kind, *text) if isinstance(text, tuple) else element_problem(kind, text)
        if found is not None:
            return (*span, *found)
        total = 1
        for size in self.shape.dims:
            total *= size
        self.index += 1
        if self.index > total:
            return (*span, _SHAPE, f"too many values: value {text} would be element {self.index - 1} of a literal "
                                   f"of {max(total, 0)} elements")
        return None


def element_problem(element_type: str, text: str) -> tuple[str, str] | None:
    """(code, message) for one value of a literal of `element_type`, or None."""
    if text in ("true", "false"):
        return None if element_type == "pred" else (_RANGE, f"{text} in a {element_type} literal (XLA's parser "
                                                            "crashes on it)")
    if element_type in _COMPLEX:
        return _complex_problem(element_type, text)
    if element_type == "pred" or element_type in _INTEGERS:
        return _integer_problem(element_type, text)
    if element_type in _FLOATS or element_type == _E8M0:
        return _float_problem(element_type, text)
    return None


def _integer_problem(element_type: str, text: str) -> tuple[str, str] | None:
    if not re.fullmatch(r"-?[0-9]+", text):
        what = "unexpected token type in a literal" if _float_value(text) is None else (
            f"expects integer for primitive type: {element_type}")
        return (_RANGE if _float_value(text) is not None else _SHAPE, what)
    value = int64_value(text)
    if value is None:
        return (_RANGE, f"integer {text} does not fit in 64 bits")
    if element_type == "pred":
        return None
    bits, signed = _INTEGERS[element_type]
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    inside = low <= value <= high if signed else value % 2**64 <= high
    return None if inside else (_RANGE, f"value {value} is out of range for {element_type} [{low}, {high}]")


def _float_value(text: str) -> float | None:
    """The double XLA's lexer reads from a float token (nan and inf included), or None."""
    if re.fullmatch(r"-?nan(?:\(0x[0-9A-Fa-f]+\))?|-?inf", text):
        return float(text.split("(")[0])
    if not _NUMBER.fullmatch(text) or text.startswith("."):
        return None
    if re.fullmatch(r"-?[0-9]+", text):
        value = int64_value(text)
        return None if value is None else float(value)
    return float(text)


def _float_problem(element_type: str, text: str) -> tuple[str, str] | None:
    value = _float_value(text)
    if value is None:
        return (_SHAPE, "unexpected token type in a literal")
    if value != value:
        return _payload_problem(element_type, text)
    if value in (float("inf"), float("-inf")):
        return None if text.lstrip("-") == "inf" else (
            _RANGE, f"{text} is out of range for double (+/-1.79769e+308)")
    if element_type == _E8M0:
        if 0 < value < 1.5 * 2.0**127:
            return None
        return (_RANGE, f"value {value:g} is out of range for {element_type} [5.87747e-39, 1.70141e+38]")
    largest, half_step, tie_up, _ = _FLOATS[element_type]
    limit = largest + half_step
    if abs(value) < limit or (abs(value) == limit and not tie_up) or _FLOATS[element_type][3] < 0:
        return None
    return (_RANGE, f"value {value:g} is out of range for {element_type} [{-largest:g}, {largest:g}]")


def _payload_problem(element_type: str, text: str) -> tuple[str, str] | None:
    if "(" not in text:
        return None
    payload = int(text[text.index("(") + 3 : -1], 16)
    if payload == 1 << 51 or element_type == "f64":
        return None
    bits = _FLOATS.get(element_type, (0, 0, False, 0))[3]
    if bits <= 0:
        return (_RANGE, f"NaN payload {payload:#x} in a {element_type} literal: {element_type} does not support "
                        "payloads")
    if payload < 1 << bits:
        return None
    return (_RANGE, f"NaN payload {payload:#x} is out of range for {element_type} (at most {(1 << bits) - 1:#x})")


def _complex_problem(element_type: str, text: str) -> tuple[str, str] | None:
    return (_SHAPE, f"a {element_type} value is written as a pair (real, imaginary)")


def complex_problem(element_type: str, real: str, imaginary: str) -> tuple[str, str] | None:
    """A (real, imaginary) pair of a complex literal: each part against the component's range,
    without rounding; a NaN payload is checked on the real part only, as XLA does."""
    component = "f32" if element_type == "c64" else "f64"
    limit = _COMPLEX[element_type]
    for name, text in (("real", real), ("imaginary", imaginary)):
        value = _float_value(text)
        if value is None:
            return (_SHAPE, f"expect floating-point value for {name} part of complex number")
        if value == value and abs(value) != float("inf") and abs(value) > limit:
            return (_RANGE, f"{name} part {value:g} is out of range for {element_type} [{-limit:g}, {limit:g}]")
    return _payload_problem(component, real) if _float_value(real) != _float_value(real) else None

"""The keys the hlo-opcodes check keeps its verdicts under, and what they must not hide.

A line's verdict is kept under its text with its digits zeroed (`%add.17` is `%add.00`), and a
line's template blanks its names and strings too. A verdict holds for every line of its key unless
the digits matter: a constant's value, a long integer, a digit XLA reads as a letter (dim_labels).
"""

from __future__ import annotations

import re

from hlo_lsp.analysis.checks.opcodes import tables, values
from hlo_lsp.analysis.checks.opcodes.literals import ELEMENT_TYPES, LiteralShape, element_problem
from hlo_lsp.memos import memo
from hlo_lsp.parsing.names import NAME

CACHE_LIMIT = 200_000  # entries a cache of the check holds before it is cleared

_ZERO_DIGIT_BYTES = bytes.maketrans(b"123456789", b"000000000")
_ZERO_DIGITS = str.maketrans("123456789", "000000000")
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
# Instruction and computation names, which no rule of a line reads: with a `%`, or with a dot (no
# keyword, opcode, type or enumeration has one).
_NAMES = re.compile(r"%" + NAME + r"|(?<![A-Za-z0-9_.\-])[A-Za-z_][A-Za-z0-9_\-]*\.[A-Za-z0-9_.\-]*")
_LONG_DIGITS = re.compile(r"[0-9]{10}")
_DIGIT_SENSITIVE_KEYS = frozenset(("dim_labels", "epsilon", "cross_program_prefetch_index"))
_INT_KEYS = frozenset(key for key, check in tables.VALIDATORS.items() if check in (values.int64, values.int32))


def line_keys(lines: list[str]) -> list[bytes]:
    """The lines' texts with their digits zeroed (in C, all lines at once)."""
    return "\n".join(lines).encode("utf-8", "surrogatepass").translate(_ZERO_DIGIT_BYTES).split(b"\n")


def template(text_from_shape: str) -> str:
    """An instruction's text from its shape on, with strings and names blanked and digits zeroed."""
    return _NAMES.sub("x", _STRINGS.sub('""', text_from_shape)).translate(_ZERO_DIGITS)


def value_digits_matter(key: str, value: str) -> bool:
    """Whether the attribute `key=value` may be judged otherwise with other digits."""
    return key in _DIGIT_SENSITIVE_KEYS or (key == "replica_groups" and "T(" in value) or (
        (key in _INT_KEYS or key == "metadata") and bool(_LONG_DIGITS.search(_STRINGS.sub("", value))))


def literal_digits_matter(shape: LiteralShape, literal: str) -> bool:
    """Whether a literal that differs from this one in its digits only (a constant zeroes to the
    same line with another type of the same letters: f16 and f32) may be judged otherwise."""
    value = literal.strip()
    if shape.dims or shape.elements is not None or not re.fullmatch(r"-?[0-9.eE+\-]+|-?inf|-?nan|true|false", value):
        return True
    return not _scalar_digit_safe(shape.element_type.translate(_ZERO_DIGITS), value.translate(_ZERO_DIGITS))


@memo(maxsize=4096)
def _scalar_digit_safe(zeroed_type: str, zeroed_value: str) -> bool:
    alike = [name for name in ELEMENT_TYPES if name.translate(_ZERO_DIGITS) == zeroed_type]
    extremes = (zeroed_value.replace("0", "9"), zeroed_value)
    return all(element_problem(name, text) is None for name in alike for text in extremes)


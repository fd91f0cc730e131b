"""The syntax of attribute values XLA's HLO text parser (jaxlib 0.10.2) reads as one token or one
flat list: booleans, integers, floats, strings, integer lists, computation and instruction names,
enumerations, precisions, and the values other parsers of XLA read whole (`{...}`).

Each validator takes an attribute's value as written and returns None, or (start, end, message)
with offsets into the value; messages follow XLA's own wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from hlo_lsp.parsing.hlo_syntax import parse_shape
from hlo_lsp.parsing.line_scan import as_one_line
from hlo_lsp.parsing.names import NAME as BARE_NAME
from hlo_lsp.parsing.syntax import ParseError

ValueProblem = tuple[int, int, str]
Validator = Callable[[str], ValueProblem | None]

INT = r"-?[0-9]+"
NAME = r"%?" + BARE_NAME
INT_LIST = re.compile(rf"\{{\s*(?:{INT}(?:\s*,\s*{INT})*)?\s*\}}")
STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'", re.S)
DECIMAL = re.compile(r"-?(?:[0-9]+\.[0-9]*|[0-9]*\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?")
_FLOAT_MAX = 3.4028234663852886e38
_NAME_LIST = re.compile(rf"\{{\s*{NAME}(?:\s*,\s*{NAME})*\s*\}}")


def whole(value: str, message: str) -> ValueProblem:
    return (0, len(value), message)


def int64_value(text: str) -> int | None:
    """An integer token as XLA's lexer reads it (beyond int64, as uint64 cast to int64), or None."""
    if not re.fullmatch(INT, text):
        return None
    number = int(text)
    if number > 2**64 - 1 or number < -(2**63):
        return None
    return number - 2**64 if number >= 2**63 else number


def split_top_level(text: str) -> list[str]:
    """The comma-separated items of `text` outside brackets and strings."""
    items, depth, start = [], 0, 0
    for token in re.finditer(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[\[({]|[\])}]|,", text, re.S):
        mark = token.group()
        if mark in "[({":
            depth += 1
        elif mark in "])}":
            depth -= 1
        elif mark == "," and depth == 0:
            items.append(text[start:token.start()])
            start = token.end()
    items.append(text[start:])
    return [item for item in items if item.strip()]


def boolean(value: str) -> ValueProblem | None:
    return None if value in ("true", "false") else whole(value, "expects true or false")


def int64(value: str) -> ValueProblem | None:
    return None if int64_value(value) is not None else whole(value, "expects integer")


def int32(value: str) -> ValueProblem | None:
    number = int64_value(value)
    if number is None:
        return whole(value, "expects integer")
    return None if -(2**31) <= number < 2**31 else whole(value, "value out of range for int32_t")


def decimal(value: str) -> ValueProblem | None:
    """A float attribute (epsilon), read as XLA's parser reads a float32."""
    if value == "nan":
        return None
    if value in ("inf", "-inf"):
        return whole(value, "value out of range for float")
    if not DECIMAL.fullmatch(value) or value.startswith("."):
        return whole(value, "expects decimal or integer")
    return None if abs(float(value)) <= _FLOAT_MAX else whole(value, "value out of range for float")


def string(value: str) -> ValueProblem | None:
    return None if STRING.fullmatch(value) else whole(value, "expects string")


def int_list(value: str) -> ValueProblem | None:
    return None if INT_LIST.fullmatch(value) else whole(value, "expects a list of integers, e.g. {0,1}")


_AROUND_PUNCTUATION = re.compile(r"\s*([{},])\s*")


def int_lists(value: str) -> list[list[int]] | None:
    """`{ {ints}, {ints} }` read, or None."""
    body = re.fullmatch(r"\{\s*(.*?)\s*\}", value, re.S)
    if body is None:
        return None
    if not body.group(1):
        return []
    compact = _AROUND_PUNCTUATION.sub(r"\1", body.group(1))  # (a comment is a space too: `{/* c */1,3}`)
    groups = re.findall(r"\{[^{}]*\}", compact)
    if ",".join(groups) != compact or not all(INT_LIST.fullmatch(g) for g in groups):
        return None
    return [[int(n) for n in re.findall(INT, group)] for group in groups]


def int_list_list(value: str) -> ValueProblem | None:
    return None if int_lists(value) is not None else whole(value, "expects a list of integer lists, e.g. {{0,1}}")


def pairs(value: str) -> ValueProblem | None:
    lists = int_lists(value)
    if lists is None:
        return int_list_list(value)
    return None if all(len(pair) == 2 for pair in lists) else whole(
        value, "expects 'source_target_pairs=' to be a list of pairs")


def computation(value: str) -> ValueProblem | None:
    inline = value.startswith("{") and value[1:-1].strip()  # a computation written in place
    return None if re.fullmatch(NAME, value) or inline else whole(value, "expects computation name")


def computations(value: str) -> ValueProblem | None:
    if _NAME_LIST.fullmatch(value):
        return None
    return whole(value, "expects a list of computation names, e.g. {a, b}")


def instructions(value: str) -> ValueProblem | None:
    if _NAME_LIST.fullmatch(value):
        return None
    return whole(value, "expects a list of instruction names, e.g. {a, b} (it may not be empty)")


def enum(what: str, values: str, any_case: bool = False) -> Validator:
    """A validator of one of the space-separated `values` (in any letter case when `any_case`)."""
    allowed = frozenset(v.lower() if any_case else v for v in values.split())

    def check(value: str) -> ValueProblem | None:
        if (value.lower() if any_case else value) in allowed:
            return None
        return whole(value, f"expects {what} but sees: {value} (one of {', '.join(values.split())})")

    return check


DOT_ALGORITHMS = ("unset dot_any_f8_any_f8_f32 dot_any_f8_any_f8_f32_fast_accum dot_f16_f16_f16 dot_f16_f16_f32 "
                  "dot_bf16_bf16_bf16 dot_bf16_bf16_f32 dot_bf16_bf16_f32_x3 dot_bf16_bf16_f32_x6 "
                  "dot_bf16_bf16_f32_x9 dot_tf32_tf32_f32 dot_tf32_tf32_f32_x3 dot_f32_f32_f32 dot_f64_f64_f64")
_API_VERSIONS = ("API_VERSION_ORIGINAL API_VERSION_STATUS_RETURNING API_VERSION_STATUS_RETURNING_UNIFIED "
                 "API_VERSION_TYPED_FFI")


def api_version(value: str) -> ValueProblem | None:
    if value == "API_VERSION_UNSPECIFIED":
        return whole(value, "Invalid API version: API_VERSION_UNSPECIFIED")
    return enum("custom-call API version", _API_VERSIONS)(value)


def precisions(value: str) -> ValueProblem | None:
    body = re.fullmatch(r"\{(.*)\}", value, re.S)
    if body is None:
        return whole(value, "expects a list of precisions, e.g. {default,default}")
    offset = 1
    for item in body.group(1).split(","):
        name = item.strip()
        if name and name.lower() not in ("default", "high", "highest"):
            start = offset + item.index(name)
            return (start, start + len(name), f"expects precision but sees: {name} (default, high or highest)")
        offset += len(item) + 1
    return None


def string_or_dict(value: str) -> ValueProblem | None:
    if STRING.fullmatch(value) or (value.startswith("{") and value.endswith("}")):
        return None
    return whole(value, "expects a string or a JSON dict")


def braced(value: str) -> ValueProblem | None:
    """A value read by a parser of its own (sharding, domain, ...), as one `{...}` group."""
    if value.startswith("{") and value.endswith("}") and not split_top_level(value)[1:]:
        return None
    return whole(value, "expects one `{...}` value")


def shape_list(value: str) -> ValueProblem | None:
    if not (value.startswith("{") and value.endswith("}")):
        return whole(value, "expects a list of shapes")
    span = first_non_shape(value, split_top_level(value[1:-1]), 1)
    return None if span is None else (*span, "expects a list of shapes: expected primitive type")


def first_non_shape(text: str, items: Iterable[str], start: int) -> tuple[int, int] | None:
    """Where in `text` the first of `items` (found in order from `start`) is that XLA does not read as a shape
    (comments and line ends read as spaces), or None. Each distinct item is parsed once: a large module's
    entry computation layout lists thousands of parameters of a few dozen shapes."""
    items = tuple(items)
    wrong = {item for item in set(items) if isinstance(parse_shape(as_one_line(item).strip()), ParseError)}
    if not wrong:
        return None
    for item in items:
        start = text.index(item, start)
        if item in wrong:
            return start, start + len(item)
        start += len(item)
    return None


def parameter_replication(value: str) -> ValueProblem | None:
    if re.fullmatch(r"\{\s*(?:(?:true|false)(?:\s*,\s*(?:true|false))*)?\s*\}", value):
        return None
    return whole(value, "expects a list of booleans, e.g. {true,false}")

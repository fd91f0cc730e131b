"""What XLA's HLO text parser checks on each instruction: known opcodes, operand counts, the
attributes each opcode takes and the syntax of their values, constant literals, parameter
numbers, async chains, and the inputs on which the parser crashes (hlo_opcode_rules has the tables).

Real modules have hundreds of thousands of instructions but a few thousand distinct lines once
their digits are zeroed (`%add.17` is `%add.00`): each such line is judged once, and its verdict
says what, if anything, each line of that text still needs (its parameter number, the shape of
its operand). A chunk's findings are kept with the chunk, for the structure they were read in.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from hlo_lsp.analysis.checks import hlo_opcode_rules as rules
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model.document import Chunk
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_syntax import parse_shape
from hlo_lsp.parsing.syntax import ArrayShape, ParseError, Shape, TupleShape
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range, utf16_column

Finding = tuple[int, int, str, str]  # start, end (offsets in the instruction's text), code, message
Verdict = tuple[str, ...]  # what each line of a text still needs; () for nothing

_ZERO = bytes.maketrans(b"123456789", b"000000000")
_ZERO_TEXT = str.maketrans("123456789", "000000000")
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
# Instruction and computation names, which no rule of a line reads: with a `%`, or with a dot (no
# keyword, opcode, type or enumeration has one).
_NAMES = re.compile(r"%[A-Za-z_][A-Za-z0-9_.\-]*|(?<![A-Za-z0-9_.\-])[A-Za-z_][A-Za-z0-9_\-]*\.[A-Za-z0-9_.\-]*")
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|/\*.*?\*/|//[^\n]*|[()\[\]{},]', re.S)
_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.\-]*)=")
_LONG_DIGITS = re.compile(r"[0-9]{10}")
_ARRAY = re.compile(r"\s*([a-z][a-z0-9]*)\[([^\]]*)\]")
_SIZED_TOKEN = re.compile(r"(?<![A-Za-z0-9_])(?:token|opaque)\[\s*[^\]\s]")
_DIGIT_SENSITIVE_KEYS = frozenset(("dim_labels", "epsilon", "cross_program_prefetch_index"))
_INT_KEYS = frozenset(key for key, check in rules.VALIDATORS.items() if check in (rules._int64, rules._int32))
_PER_RUN = frozenset(("async", "channel"))  # read again on every run: they depend on other lines' text
_DERIVED_KEY = "hlo-opcodes"
_CACHE_LIMIT = 200_000


@dataclass(slots=True)
class _Read:
    """An instruction's text as XLA's parser sees its parts (offsets into `text`, where comments
    are blanked)."""

    text: str
    opcode: str
    opcode_span: tuple[int, int]
    shape: str
    operands_span: tuple[int, int]  # from `(` to after `)`
    operands: list[tuple[int, int]]  # the non-empty operand slots
    attributes: list[tuple[str, int, int, int]]  # key, key start, value start, value end

    def item(self, span: tuple[int, int]) -> str:
        return self.text[span[0] : span[1]]

    def attribute(self, key: str) -> str | None:
        return next((self.text[v0:v1] for name, _, v0, v1 in self.attributes if name == key), None)


def read_instruction(text: str, data: tuple[object, ...]) -> _Read | None:
    """The parts of the instruction `text` the scanner found (data: name, shape start, opcode start,
    opcode, is_root), or None where its brackets do not close (a syntax problem)."""
    _, shape_start, opcode_start, opcode, _ = data
    assert isinstance(shape_start, int) and isinstance(opcode_start, int) and isinstance(opcode, str)
    open_paren = opcode_start + len(opcode)
    if not text.startswith("(", open_paren):
        return None
    marks = _marks(text, open_paren)
    if marks is None:
        return None
    close, slots, commas, clean = marks
    operands = [span for span in _spans(clean, [open_paren, *slots, close]) if span[0] < span[1]]
    segments = _spans(clean, [close, *commas, len(text)])
    if segments[0][0] < segments[0][1]:
        return None  # text after the operands that is no attribute: the grammar's problem
    attributes = []
    for start, end in segments[1:]:
        key = _KEY.match(clean, start, end)
        if key is None or _INSTRUCTION_HEAD.search(_flat(clean[key.end() : end])):
            return None  # no attribute, or a second instruction on the line: the grammar's problem
        value = _stripped(clean, key.end(), end)
        attributes.append((key.group(1), key.start(1), value[0], value[1]))
    return _Read(clean, opcode, (opcode_start, open_paren), text[shape_start:opcode_start].strip(),
                 (open_paren, close + 1), operands, attributes)


_INSTRUCTION_HEAD = re.compile(r"\s(?:ROOT\s+)?%?[A-Za-z_][A-Za-z0-9_.\-]*\s*=")


def _flat(value: str) -> str:
    """`value` with its bracketed groups and strings blanked (one pass, however deep they nest)."""
    parts, depth, kept = [], 0, 0
    for match in _STRUCTURE.finditer(value):
        mark = match.group()[0]
        if depth == 0:
            parts.append(value[kept : match.start()])
        if mark in "([{":
            depth += 1
        elif mark in ")]}":
            depth = max(depth - 1, 0)
        kept = match.end()
    parts.append(value[kept:] if depth == 0 else "")
    return " ".join(parts)


def _marks(text: str, open_paren: int) -> tuple[int, list[int], list[int], str] | None:
    """(the matching `)`, the commas between operands, those between attributes, the text with
    comments blanked)."""
    depth, close, slots, commas, comments = 0, -1, [], [], []
    for match in _STRUCTURE.finditer(text, open_paren):
        mark = match.group()[0]
        if mark in "([{":
            depth += 1
        elif mark in ")]}":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and close < 0:
                close = match.start()
        elif mark == ",":
            if close < 0 and depth == 1:
                slots.append(match.start())
            elif close >= 0 and depth == 0:
                commas.append(match.start())
        elif mark == "/":
            comments.append(match.span())
    if close < 0 or depth != 0:
        return None
    clean, kept = [], 0
    for start, end in comments:
        clean += [text[kept:start], " " * (end - start)]
        kept = end
    return close, slots, commas, "".join(clean) + text[kept:]


def _spans(text: str, bounds: list[int]) -> list[tuple[int, int]]:
    return [_stripped(text, bounds[i] + 1, bounds[i + 1]) for i in range(len(bounds) - 1)]


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# ---- the rules of one line ----------------------------------------------------------------------
@dataclass(slots=True)
class _Judgement:
    findings: list[Finding] = field(default_factory=list)
    actions: set[str] = field(default_factory=set)
    digit_sensitive: bool = False

    def add(self, span: tuple[int, int], code: str, message: str) -> None:
        self.findings.append((span[0], span[1], code, message))


def judge(read: _Read) -> _Judgement:
    """What XLA's parser says of this instruction alone, and what it needs of other lines."""
    judgement = _Judgement()
    opcode = read.opcode
    rule, wrapped = rules.RULES.get(opcode), rules.async_wrapped(opcode)
    if rule is None and wrapped is None:
        judgement.add(read.opcode_span, "unknown-opcode", f"unknown opcode {opcode}")
        return judgement
    inferable = rule.inferable if rule is not None else False
    if not read.shape and not inferable:
        judgement.add(read.opcode_span, "shape-required", f"cannot infer shape for opcode: {opcode}; "
                                                          "write the result shape before it")
        return judgement
    if _SIZED_TOKEN.search(read.shape):
        judgement.add(read.opcode_span, "result-shape", f"{read.shape}: token and opaque shapes have no dimensions, "
                                                        "token[] (XLA's parser crashes)")
    if wrapped is not None or opcode.startswith("async-"):
        judgement.actions.add("async")
    allowed, required = _allowed(opcode, rule, wrapped)
    if rule is not None:
        _operand_count(read, rule, judgement)
    _attributes(read, allowed, required, judgement)
    _opcode_rules(read, judgement)
    return judgement


def _allowed(opcode: str, rule: rules.OpcodeRule | None, wrapped: tuple[str, str] | None,
             ) -> tuple[frozenset[str], frozenset[str]]:
    if wrapped is None:
        assert rule is not None
        return rules.GENERIC | rule.attributes, rule.required
    inner, suffix = wrapped
    if suffix == "-start":
        own = rules.RULES[inner]
        required = own.required - {"dimensions"} if inner == "broadcast" else own.required
        return rules.GENERIC | rules.WRAPPED_START_ATTRIBUTES | own.attributes, required
    return rules.GENERIC | rules.WRAPPED_DONE_ATTRIBUTES, frozenset()


def _operand_count(read: _Read, rule: rules.OpcodeRule, judgement: _Judgement) -> None:
    count, expected = len(read.operands), rule.operands
    span, opcode = read.operands_span, read.opcode
    if isinstance(expected, int):
        if count != expected:
            judgement.add(span, "operand-count", f"{opcode} expects {expected} operand{'s' * (expected != 1)}, "
                                                 f"but has {count}")
    elif expected in ("even", "odd") and count % 2 != (expected == "odd"):
        judgement.add(span, "operand-count", f"{opcode} expects an {expected} number of operands, but has {count}")
    elif expected == "tuple" and read.shape:
        _tuple_count(read, count, judgement)
    elif expected in _FEWEST and count < _FEWEST[expected][0]:
        judgement.add(span, "operand-count", _FEWEST[expected][1])
    elif expected == "dynamic-reshape" and count != 1 + _rank(read.shape):
        judgement.add(span, "operand-count", f"dynamic-reshape to a rank-{_rank(read.shape)} shape takes the "
                                             f"operand and {_rank(read.shape)} sizes, but has {count} operands "
                                             "(XLA's parser crashes)")
    if expected in ("dynamic-slice", "dynamic-update-slice", "conditional") and count >= _FEWEST[expected][0]:
        judgement.actions.add("cross")


_FEWEST = {
    "dynamic-slice": (1, "Expected at least one operand."),
    "dynamic-update-slice": (2, "Expected at least two operands."),
    "dynamic-reshape": (1, "DynamicReshape requires at least one operand."),
    "dot": (2, "dot needs two operands (XLA's parser crashes on fewer)"),
    "at-least-1": (1, "rng-bit-generator needs its state operand (XLA's parser crashes without it)"),
    "conditional": (1, "conditional needs its branch selector (XLA's parser crashes without operands)"),
}


def _rank(shape: str) -> int:
    array = _ARRAY.match(shape)
    return len(rules.split_top_level(array.group(2))) if array else -1


def _tuple_count(read: _Read, count: int, judgement: _Judgement) -> None:
    if not read.shape.startswith("("):
        judgement.add(read.opcode_span, "result-shape", f"tuple with the non-tuple shape {read.shape} "
                                                        "(XLA's parser crashes)")
        return
    elements = len(rules.split_top_level(read.shape.strip()[1:-1]))
    if count != elements:
        judgement.add(read.operands_span, "operand-count", f"tuple expects {elements} operands, but has {count}")


def _attributes(read: _Read, allowed: frozenset[str], required: frozenset[str], judgement: _Judgement) -> None:
    seen: set[str] = set()
    for key, key_start, value_start, value_end in read.attributes:
        key_span = (key_start, key_start + len(key))
        if key not in allowed:
            judgement.add(key_span, "unknown-attribute", f'unexpected attribute "{key}" for {read.opcode}; '
                                                         f"allowed: {', '.join(sorted(allowed))}")
        elif key in seen:
            judgement.add(key_span, "duplicate-attribute", f"attribute {key} already exists")
        else:
            _value(read, key, value_start, value_end, judgement)
        seen.add(key)
    for key in sorted(required - seen):
        judgement.add(read.opcode_span, "missing-attribute", f"attribute {key} is expected but not seen "
                                                             f"({read.opcode} requires it)")
    if read.opcode in ("broadcast", "broadcast-start") and "dimensions" not in seen:
        judgement.actions.add("broadcast")
    if "control-predecessors" in seen:
        judgement.actions.add("cross")


def _value(read: _Read, key: str, start: int, end: int, judgement: _Judgement) -> None:
    value = read.text[start:end]
    validator = rules.OPCODE_VALIDATORS.get((read.opcode, key)) or rules.VALIDATORS.get(key)
    found = validator(value) if validator is not None else None
    if found is not None:
        judgement.add((start + found[0], start + found[1]), "attribute-value", f"{key}: {found[2]}")
    if key in _DIGIT_SENSITIVE_KEYS or (key == "replica_groups" and "T(" in value) or (
            (key in _INT_KEYS or key == "metadata") and _LONG_DIGITS.search(_STRINGS.sub("", value))):
        judgement.digit_sensitive = True


def _opcode_rules(read: _Read, judgement: _Judgement) -> None:
    check = _OPCODE_RULES.get(read.opcode)
    if check is not None:
        check(read, judgement)
    wrapped = rules.async_wrapped(read.opcode)
    if read.opcode == "async-start" or (wrapped is not None and wrapped[1] == "-start"):
        _async_start_shape(read, judgement)
    if "parameter_replication" in (name for name, *_ in read.attributes) and read.opcode != "parameter":
        judgement.add(read.opcode_span, "unknown-attribute", "parameter_replication on a non-parameter "
                                                             "(XLA's parser crashes)")


def _async_start_shape(read: _Read, judgement: _Judgement) -> None:
    shape = _shape(read.shape)
    if not (isinstance(shape, TupleShape) and len(shape.elements) >= 2 and shape.elements[0].is_tuple):
        judgement.add(read.opcode_span, "async-chain", "AsyncStart expects the op shape to be in the form of "
                                                       "((async-operands), async-outputs, state)")


def _dimensions_size(read: _Read, judgement: _Judgement) -> None:
    value = read.attribute("dimensions")
    if value is None or rules.VALIDATORS["dimensions"](value) is not None:
        return
    count = len(re.findall(r"-?[0-9]+", value))
    if read.opcode in rules.ONE_DIMENSION and count != 1:
        judgement.add(_value_span(read, "dimensions"), "attribute-value",
                      f"dimensions: {read.opcode} expects exactly one dimension, but sees {count}")
    elif read.opcode in rules.SOME_DIMENSION and count == 0:
        judgement.add(_value_span(read, "dimensions"), "attribute-value",
                      f"dimensions: {read.opcode} reads its first dimension (XLA's parser crashes on {{}})")


def _value_span(read: _Read, key: str) -> tuple[int, int]:
    return next((v0, v1) for name, _, v0, v1 in read.attributes if name == key)


def _shape(text: str) -> Shape | None:
    if not text:
        return None
    parsed = parse_shape(text)
    return None if isinstance(parsed, ParseError) else parsed


def _constant(read: _Read, judgement: _Judgement) -> None:
    start, end = read.operands_span[0] + 1, read.operands_span[1] - 1
    shape = _literal_shape(_shape(read.shape))
    if shape is None:
        return
    found = rules.literal_problem(shape, read.text[start:end])
    if found is not None:
        judgement.add((start + found[0], start + max(found[1], found[0] + 1)), found[2], found[3])
    judgement.digit_sensitive = judgement.digit_sensitive or not _digit_safe(shape, read.text[start:end])


def _literal_shape(shape: Shape | None) -> rules.LiteralShape | None:
    if isinstance(shape, TupleShape):
        elements = [_literal_shape(element) for element in shape.elements]
        return None if None in elements else rules.LiteralShape("", (), tuple(e for e in elements if e))
    if shape is None or shape.element_type not in rules.ELEMENT_TYPES:
        return None
    dims = tuple(-(2**63) if size < 0 else size for size in shape.dims)
    return rules.LiteralShape(shape.element_type, dims)


def _digit_safe(shape: rules.LiteralShape, literal: str) -> bool:
    """Whether every literal that differs from this one in its digits only (a constant zeroes to the
    same line with another type of the same letters: f16 and f32) would be judged the same."""
    value = literal.strip()
    if shape.dims or shape.elements is not None or not re.fullmatch(r"-?[0-9.eE+\-]+|-?inf|-?nan|true|false", value):
        return False
    return _scalar_digit_safe(shape.element_type.translate(_ZERO_TEXT), value.translate(_ZERO_TEXT))


@functools.lru_cache(maxsize=4096)
def _scalar_digit_safe(zeroed_type: str, zeroed_value: str) -> bool:
    alike = [name for name in rules.ELEMENT_TYPES if name.translate(_ZERO_TEXT) == zeroed_type]
    extremes = (zeroed_value.replace("0", "9"), zeroed_value)
    return all(rules.element_problem(name, text) is None for name in alike for text in extremes)


def _parameter(read: _Read, judgement: _Judgement) -> None:
    span = read.operands[0] if len(read.operands) == 1 else read.operands_span
    number = rules.int64_value(read.item(span)) if len(read.operands) == 1 else None
    if number is None:
        judgement.add(span, "parameter-number", "parameter expects one integer, its number: parameter(0)")
    elif number < 0:
        judgement.add(span, "parameter-number", "parameter number must be >= 0")
    judgement.actions.add("parameter")
    replication = read.attribute("parameter_replication")
    shape = _shape(read.shape) if replication is not None else None
    if replication is None or shape is None or rules.VALIDATORS["parameter_replication"](replication):
        return
    given, leaves = len(re.findall(r"true|false", replication)), _leaf_count(shape)
    if given != leaves:
        judgement.add(_value_span(read, "parameter_replication"), "attribute-value",
                      f"parameter has {leaves} leaf buffers, but parameter_replication has {given} elements")


def _leaf_count(shape: Shape) -> int:
    return sum(_leaf_count(e) for e in shape.elements) if isinstance(shape, TupleShape) else 1


def _id_shape(read: _Read, judgement: _Judgement) -> None:
    judgement.digit_sensitive = True  # u32 and u64 zero alike
    if read.shape and re.sub(r"\s", "", read.shape) != "u32[]":
        judgement.add(read.opcode_span, "result-shape", f"{read.opcode} must have shape u32[], not {read.shape} "
                                                        "(XLA's parser crashes)")


def _tuple_result(read: _Read, judgement: _Judgement) -> None:
    shape = _shape(read.shape)
    if read.opcode == "infeed" and isinstance(shape, TupleShape) and not shape.elements:
        judgement.add(read.opcode_span, "result-shape", "infeed with the empty tuple shape () (XLA's parser crashes)")
    elif shape is not None and not shape.is_tuple:
        judgement.add(read.opcode_span, "result-shape", f"{read.opcode} must have a non-empty tuple shape" + (
            " (XLA's parser crashes)" if read.opcode == "recv" else ""))


def _collective_permute(read: _Read, judgement: _Judgement) -> None:
    if read.attribute("slice_sizes") is not None and len(read.operands) != 4:
        judgement.add(read.operands_span, "operand-count", "CollectivePermute and CollectivePermuteStart must "
                                                           "have exactly four operands with slice_sizes")


def _global_device_ids(read: _Read, judgement: _Judgement) -> None:
    if read.attribute("mode") is None and read.attribute("use_global_device_ids") == "true" and (
            read.attribute("channel_id") is None):
        judgement.add(_value_span(read, "use_global_device_ids"), "attribute-value",
                      "Cannot have use_global_device_ids=true without channel_id")
    _dimensions_size(read, judgement)


def _custom_call(read: _Read, judgement: _Judgement) -> None:
    constraints = read.attribute("operand_layout_constraints")
    if constraints is None or not constraints.startswith("{"):
        return
    given = len(rules.split_top_level(constraints[1:-1]))
    if given != len(read.operands):
        judgement.add(_value_span(read, "operand_layout_constraints"), "operand-count",
                      f"Expected {len(read.operands)} operand layout constraints, {given} given")
    else:
        judgement.actions.add("cross")


def _scan(read: _Read, judgement: _Judgement) -> None:
    dimensions, carries = read.attribute("dimensions"), rules.int64_value(read.attribute("num_carries") or "")
    if dimensions is not None and len(re.findall(r"-?[0-9]+", dimensions)) != 1:
        judgement.add(_value_span(read, "dimensions"), "attribute-value", "dimensions: expects exactly one dimension")
    if carries is not None and carries > len(read.operands):
        judgement.add(read.operands_span, "operand-count", f"expects at least {carries} operands to match the "
                                                           f"number of carries, but has {len(read.operands)}")
    judgement.actions.add("cross")


def _needs(action: str):  # noqa: ANN202 - a rule that only asks for work on other lines
    def rule(read: _Read, judgement: _Judgement) -> None:
        if action != "cross" or not read.shape:
            judgement.actions.add(action)
    return rule


_OPCODE_RULES = {
    "constant": _constant, "parameter": _parameter, "replica-id": _id_shape, "partition-id": _id_shape,
    "infeed": _tuple_result, "recv": _tuple_result, "collective-permute": _collective_permute,
    "collective-permute-start": _collective_permute, "all-reduce": _global_device_ids,
    "all-reduce-start": _global_device_ids, "reduce-scatter": _global_device_ids, "custom-call": _custom_call,
    "scan": _scan, "reshape": _needs("reshape"), "send-done": _needs("channel"), "recv-done": _needs("channel"),
    "get-tuple-element": _needs("cross"),
    **dict.fromkeys(("concatenate", "sort", "all-to-all", "ragged-all-to-all", "get-dimension-size",
                     "set-dimension-size", "all-gather", "all-gather-start"), _dimensions_size),
}


# ---- rules that read other lines ---------------------------------------------------------------
def _definition(hlo: HloModule, line: int, item: str) -> int | None:
    """The line defining the operand written `item` (`%x`, `f32[2] %x`) in the computation of `line`."""
    if not item or "(" in item or "/*" in item:
        return None
    name = item.split()[-1].lstrip("%")
    here = hlo.computation_at(line)
    if here is None:
        return None
    found = hlo.line_of(name) if hlo.names_are_unique else (site.line if (site := hlo.site(name, line)) else None)
    return found if found is not None and hlo.computation_at(found) is here else None


def _shape_text(hlo: HloModule, line: int) -> str:
    scan = hlo.document.scan(line)
    if scan.kind != "instruction" or len(scan.data) < 5:
        return ""
    return hlo.document.line(line)[scan.data[1] : scan.data[2]].strip()


def _operand_shape(hlo: HloModule, line: int, read: _Read, index: int) -> Shape | None:
    if index >= len(read.operands):
        return None
    definition = _definition(hlo, line, read.item(read.operands[index]))
    return _shape(_shape_text(hlo, definition)) if definition is not None else None


_ELEMENTS: dict[str, int | None] = {}


def _element_count(shape: str) -> int | None:
    if shape not in _ELEMENTS:
        if len(_ELEMENTS) > _CACHE_LIMIT:
            _ELEMENTS.clear()
        array = _ARRAY.fullmatch(re.sub(r"\{[^{}]*\}$", "", shape.strip()))
        sizes = [size.strip().lstrip("<=").strip() for size in array.group(2).split(",")] if array else None
        count: int | None = None
        if sizes is not None and all(size.isdigit() for size in sizes if size.strip()):
            count = 1
            for size in filter(None, sizes):
                count *= int(size)
        _ELEMENTS[shape] = count
    return _ELEMENTS[shape]


def _reshape(hlo: HloModule, line: int, text: str, data: tuple[object, ...]) -> Finding | None:
    _, shape_start, opcode_start, opcode, _ = data
    assert isinstance(shape_start, int) and isinstance(opcode_start, int) and isinstance(opcode, str)
    open_paren = opcode_start + len(opcode)
    close = text.find(")", open_paren)
    item = text[open_paren + 1 : close].strip()
    definition = _definition(hlo, line, item)
    if definition is None:
        return None
    mine, theirs = text[shape_start:opcode_start].strip(), _shape_text(hlo, definition)
    counts = _element_count(mine), _element_count(theirs)
    if None in counts or counts[0] == counts[1]:
        return None
    start = text.index(item, open_paren)
    return (start, start + len(item), "operand-shape", f"reshape of {theirs} ({counts[1]} elements) to {mine} "
                                                       f"({counts[0]} elements) (XLA's parser crashes)")


def _cross(hlo: HloModule, line: int, read: _Read) -> list[Finding]:
    judgement = _Judgement()
    check = _CROSS_RULES.get(read.opcode)
    if check is not None:
        check(hlo, line, read, judgement)
    if read.attribute("control-predecessors") is not None:
        _control_predecessors(hlo, line, read, judgement)
    return judgement.findings


def _rank_of(shape: Shape | None) -> int | None:
    return len(shape.dims) if isinstance(shape, ArrayShape) else None


def _broadcast(hlo: HloModule, line: int, read: _Read, judgement: _Judgement) -> None:
    rank = _rank_of(_operand_shape(hlo, line, read, 0))
    if rank:
        judgement.add(read.opcode_span, "missing-attribute", "attribute dimensions is expected but not seen "
                                                             "(the operand of broadcast is not a scalar)")


def _dynamic_slice(hlo: HloModule, line: int, read: _Read, judgement: _Judgement) -> None:
    fixed = 1 if read.opcode == "dynamic-slice" else 2
    operand, vector = _rank_of(_operand_shape(hlo, line, read, 0)), _operand_shape(hlo, line, read, fixed)
    count = len(read.operands)
    if operand is None or (count == fixed + 1 and _rank_of(vector) == 1) or count == fixed + operand:
        return
    judgement.add(read.operands_span, "operand-count", f"Wrong number of operands: {read.opcode} of a rank-{operand} "
                                                       f"operand takes {operand} scalar start indices (or one vector)")


def _conditional(hlo: HloModule, line: int, read: _Read, judgement: _Judgement) -> None:
    selector = _operand_shape(hlo, line, read, 0)
    if not isinstance(selector, ArrayShape):
        return
    if selector.dims:
        judgement.add(read.operands_span, "operand-shape", "The first operand must be a scalar")
    elif selector.element_type not in ("pred", "s32"):
        judgement.add(read.operands_span, "operand-shape", "The first operand must be a scalar of PRED or S32")
    else:
        keys = ("true_computation", "false_computation") if selector.element_type == "pred" else (
            "branch_computations",)
        _attributes(read, rules.GENERIC | frozenset(keys), frozenset(keys), judgement)
        kept = [f for f in judgement.findings if f[2] == "unknown-attribute"]  # the other family's keys
        judgement.findings[:] = kept or [f for f in judgement.findings if f[2] == "missing-attribute"]
        _branch_count(read, judgement)


def _branch_count(read: _Read, judgement: _Judgement) -> None:
    branches = read.attribute("branch_computations")
    expected = 2 if branches is None else len(rules.split_top_level(branches.strip()[1:-1]))
    if branches is None and read.attribute("true_computation") is None:
        return
    if expected == 0 or len(read.operands) != expected + 1:
        judgement.add(read.operands_span, "operand-count", f"conditional with {expected} branches takes "
                                                           f"{expected + 1} operands, but has {len(read.operands)}")


def _get_tuple_element(hlo: HloModule, line: int, read: _Read, judgement: _Judgement) -> None:
    operand, index = _operand_shape(hlo, line, read, 0), rules.int64_value(read.attribute("index") or "")
    if operand is None or index is None:
        return
    size = len(operand.elements) if isinstance(operand, TupleShape) else -1
    if not 0 <= index < size:
        judgement.add(read.operands_span, "operand-shape", f"index {index} is out of range for an operand of shape "
                                                           f"{operand} (XLA's parser crashes inferring the shape)")


def _layout_constraints(hlo: HloModule, line: int, read: _Read, judgement: _Judgement) -> None:
    constraints = read.attribute("operand_layout_constraints") or "{}"
    for index, text in enumerate(rules.split_top_level(constraints.strip()[1:-1])):
        wanted, operand = _shape(text.strip()), _operand_shape(hlo, line, read, index)
        if wanted is not None and operand is not None and not _compatible(wanted, operand):
            judgement.add(_value_span(read, "operand_layout_constraints"), "operand-shape",
                          f"Operand layout constraint shape {text.strip()} for operand {index} is not compatible "
                          f"with operand shape {operand}")


def _compatible(a: Shape, b: Shape) -> bool:
    """ShapeUtil::Compatible: the same types and sizes, layouts and dynamic flags aside."""
    if isinstance(a, TupleShape) or isinstance(b, TupleShape):
        return isinstance(a, TupleShape) and isinstance(b, TupleShape) and len(a.elements) == len(b.elements) and all(
            _compatible(x, y) for x, y in zip(a.elements, b.elements))
    return a.element_type == b.element_type and len(a.dims) == len(b.dims) and all(
        x == y or x < 0 or y < 0 for x, y in zip(a.dims, b.dims))


def _scan_parameters(hlo: HloModule, line: int, read: _Read, judgement: _Judgement) -> None:
    name = (read.attribute("to_apply") or "").lstrip("%")
    computation = hlo.computations.get(name)
    if computation is None:
        return
    scans = (hlo.document.scan(body_line) for body_line in computation.instruction_lines)
    parameters = sum(1 for scan in scans if scan.data[3] == "parameter")
    if parameters != len(read.operands):
        judgement.add(read.operands_span, "operand-count", f"expects {len(read.operands)} operands to match the "
                                                           f"number of parameters of to_apply, but {name} has "
                                                           f"{parameters} parameters")


def _control_predecessors(hlo: HloModule, line: int, read: _Read, judgement: _Judgement) -> None:
    start, end = _value_span(read, "control-predecessors")
    here = hlo.computation_at(line)
    for match in re.finditer(r"%?([A-Za-z_][A-Za-z0-9_.\-]*)", read.text[start:end]):
        name = match.group(1)
        defined = hlo.line_of(name) if hlo.names_are_unique else None
        if here is not None and defined is not None and defined >= line and hlo.computation_at(defined) is here:
            judgement.add((start + match.start(1), start + match.end(1)), "attribute-value",
                          f"control-predecessors: instruction '{name}' is not defined before this one "
                          "(XLA's parser reads names in order)")


_CROSS_RULES = {
    "broadcast": _broadcast, "broadcast-start": _broadcast, "dynamic-slice": _dynamic_slice,
    "dynamic-update-slice": _dynamic_slice,
    "conditional": _conditional, "get-tuple-element": _get_tuple_element, "custom-call": _layout_constraints,
    "scan": _scan_parameters,
}


# ---- async chains and channels: read again on every run ------------------------------------------
@dataclass(slots=True)
class _AsyncOp:
    line: int
    read: _Read
    stage: str  # -start, -update or -done
    wrapped: str | None  # the opcode of an `<op>-start`, None for async-start


def _async_op(read: _Read, line: int) -> _AsyncOp | None:
    if read.opcode.startswith("async-"):
        return _AsyncOp(line, read, "-" + read.opcode[len("async-"):], None)
    wrapped = rules.async_wrapped(read.opcode)
    return _AsyncOp(line, read, wrapped[1], wrapped[0]) if wrapped else None


def _async_problems(hlo: HloModule, reads: dict[int, _Read]) -> list[tuple[int, Finding]]:
    ops = {line: op for line, read in reads.items() if (op := _async_op(read, line)) is not None}
    found: list[tuple[int, Finding]] = []
    callers: dict[str, int] = {}
    for line, op in sorted(ops.items()):
        if op.stage == "-start":
            computation = (op.read.attribute("calls") or "").lstrip("%")
            if op.wrapped is None and computation in callers:
                span = _value_span(op.read, "calls")
                found.append((line, (*span, "async-chain", f"Computation {computation} is called by more than one "
                                                            f"async op (first on line {callers[computation] + 1})")))
            callers.setdefault(computation, line)
        else:
            found.extend((line, finding) for finding in _async_link(hlo, op, ops))
    return found


def _async_link(hlo: HloModule, op: _AsyncOp, ops: dict[int, _AsyncOp]) -> list[Finding]:
    read = op.read
    operand = _definition(hlo, op.line, read.item(read.operands[0])) if len(read.operands) == 1 else None
    previous = ops.get(operand) if operand is not None else None
    if previous is None or previous.stage == "-done":
        if operand is None and len(read.operands) == 1:
            return []  # an operand not defined here: hlo-structure says so
        return [(*read.operands_span, "async-chain", "AsyncUpdate and AsyncDone expect a single async op as their "
                                                     "operand")]
    start = previous
    while start.stage == "-update" and len(start.read.operands) == 1:
        earlier = _definition(hlo, start.line, start.read.item(start.read.operands[0]))
        if earlier is None or earlier not in ops:
            return []
        start = ops[earlier]
    return _async_agreement(hlo, op, previous, start)


def _async_agreement(hlo: HloModule, op: _AsyncOp, previous: _AsyncOp, start: _AsyncOp) -> list[Finding]:
    read, found = op.read, []
    if op.stage == "-update" and not _same_shape(_shape(read.shape), _shape(previous.read.shape)):
        found.append((*read.opcode_span, "async-chain", "AsyncUpdate expects the op shape to be the same as the "
                                                        "operand shape"))
    thread = (read.attribute("async_execution_thread") or "").strip("\"'")
    expected = (start.read.attribute("async_execution_thread") or '"main"').strip("\"'")
    if thread and thread != expected:
        found.append((*_value_span(read, "async_execution_thread"), "async-chain",
                      f"Expect async_execution_thread to be {expected}, but got {thread}"))
    calls, started = read.attribute("calls"), (start.read.attribute("calls") or "").lstrip("%")
    if calls is not None and start.wrapped is None and calls.lstrip("%") != started:
        found.append((*_value_span(read, "calls"), "async-chain",
                      f"Expect async_wrapped_computation to be {started}, but got {calls.lstrip('%')}"))
    wrapped = start.wrapped or _root_opcode(hlo, started)
    if op.wrapped is not None and wrapped is not None and op.wrapped != wrapped:
        found.append((*read.opcode_span, "async-chain", f"Expect async wrapped opcode to be {wrapped}, but got "
                                                        f"{op.wrapped}"))
    return found


def _root_opcode(hlo: HloModule, computation: str) -> str | None:
    found = hlo.computations.get(computation)
    if found is None or not found.instruction_lines:
        return None
    root = found.root_lines[0] if found.root_lines else found.instruction_lines[-1]
    return str(hlo.document.scan(root).data[3])


def _same_shape(a: Shape | None, b: Shape | None) -> bool:
    """Shape equality as XLA compares after filling in default layouts."""
    if a is None or b is None:
        return True
    if isinstance(a, TupleShape) or isinstance(b, TupleShape):
        return isinstance(a, TupleShape) and isinstance(b, TupleShape) and len(a.elements) == len(b.elements) and all(
            _same_shape(x, y) for x, y in zip(a.elements, b.elements))
    default = tuple(range(len(a.dims) - 1, -1, -1))
    layouts = [(s.layout.minor_to_major, s.layout.tiles, s.layout.element_bits, s.layout.memory_space)
               if s.layout else (default, (), None, None) for s in (a, b)]
    return (a.element_type, a.dims, a.bounded, layouts[0]) == (b.element_type, b.dims, b.bounded, layouts[1])


_CHANNEL_OPCODES = frozenset(("send", "recv", "send-done", "recv-done", "all-gather", "all-gather-start",
                              "all-reduce", "all-reduce-start", "all-to-all", "ragged-all-to-all",
                              "collective-permute", "collective-permute-start", "reduce-scatter",
                              "collective-broadcast"))


def _channel_problems(hlo: HloModule, line: int, read: _Read) -> list[Finding]:
    """send-done and recv-done: the channel_id of a channel operand, even absent, is theirs."""
    operand = _definition(hlo, line, read.item(read.operands[0])) if len(read.operands) == 1 else None
    if operand is None:
        return []
    scan = hlo.document.scan(operand)
    found = []
    if read.opcode == "recv-done" and not _shape_text(hlo, operand).startswith("("):
        found.append((*read.operands_span, "operand-shape", "recv-done of an operand that is not a tuple "
                                                            "(XLA's parser crashes)"))
    if scan.data[3] in _CHANNEL_OPCODES:
        theirs = _attribute_of_line(hlo, operand, "channel_id")
        mine = read.attribute("channel_id")
        if _int_or_none(mine) != _int_or_none(theirs):
            span = _value_span(read, "channel_id") if mine is not None else read.opcode_span
            found.append((*span, "attribute-value", f"channel_id must be the one of its operand ({theirs or 'none'}), "
                                                    f"not {mine or 'none'}"))
    return found


def _attribute_of_line(hlo: HloModule, line: int, key: str) -> str | None:
    read = read_instruction(hlo.instruction_text(line), hlo.document.scan(line).data)
    return read.attribute(key) if read is not None else None


def _int_or_none(text: str | None) -> int | None:
    return rules.int64_value(text) if text is not None else None


# ---- the pass over a module -----------------------------------------------------------------------
@dataclass(slots=True)
class _ChunkFacts:
    problems: list[Problem] = field(default_factory=list)
    # The parameters of the computations the chunk does not hold whole, by their header line.
    open_parameters: dict[int, list[str]] = field(default_factory=dict)
    per_run: list[int] = field(default_factory=list)  # lines of async ops, send-done and recv-done


def check(context: CheckContext) -> Iterator[Problem]:
    hlo = context.hlo
    if hlo is None:
        return
    open_parameters: dict[int, list[str]] = {}
    per_run: list[int] = []
    for start, chunk in hlo.document.chunks_with_starts():
        facts = _kept_facts(hlo, start, chunk)
        yield from facts.problems
        for header, numbers in facts.open_parameters.items():
            open_parameters.setdefault(header, []).extend(numbers)
        per_run.extend(facts.per_run)
    for header, numbers in open_parameters.items():
        if not _numbered_in_order(numbers):
            yield from _numbering_problems(hlo, header)
    yield from _per_run_problems(hlo, per_run)


def _kept_facts(hlo: HloModule, start: int, chunk: Chunk) -> _ChunkFacts:
    kept = chunk.derived.get(_DERIVED_KEY)
    if isinstance(kept, tuple) and kept[0] is hlo.structure_id and kept[1] == start:
        facts = kept[2]
        assert isinstance(facts, _ChunkFacts)
        return facts
    facts = _chunk_facts(hlo, start, chunk)
    if not isinstance(chunk.end_state, tuple):  # an instruction continued in the next chunk depends on it
        chunk.derived[_DERIVED_KEY] = (hlo.structure_id, start, facts)
    return facts


# A line's text with its digits zeroed -> its verdict; the keys with work to do; and the verdicts of
# texts from their shape on with their strings and names blanked too (op_name differs on every
# line), which a new line asks first.
_verdicts: dict[bytes, Verdict] = {}
_known: set[bytes] = set()
_active: set[bytes] = set()  # the keys with work to do
_parameter_spans: dict[bytes, slice] = {}  # where a parameter line's number is
_header_keys: set[bytes] = set()
_templates: dict[str, Verdict] = {}
_judged: dict[str, tuple[list[Finding], frozenset[str]]] = {}  # instruction text after the name -> judgement
_learning = threading.Lock()
_HEADER: Verdict = ("header",)
_PARAMETER: Verdict = ("parameter",)
_EVALUATE: Verdict = ("evaluate",)


def _chunk_facts(hlo: HloModule, start: int, chunk: Chunk) -> _ChunkFacts:
    """The chunk's findings: its lines' texts are judged once (digits zeroed, all lines at once), and
    only the lines whose text asks for more (found in C) are looked at. The loop is inlined: a 40 MB
    module has 100,000 parameters in 40,000 computations."""
    lines = chunk.lines
    keys = "\n".join(lines).encode("utf-8", "surrogatepass").translate(_ZERO).split(b"\n")
    if not _known.issuperset(keys):
        _learn(chunk, keys, set(keys) - _known)
    facts = _ChunkFacts()
    opened = hlo.computation_at(start)
    header, numbers = (opened.line if opened is not None else -1), []
    spans, headers = _parameter_spans, _header_keys
    for local in itertools.compress(itertools.count(), map(_active.__contains__, keys)):
        key = keys[local]
        span = spans.get(key)
        if span is not None:
            numbers.append(lines[local][span])
        elif key in headers:
            if numbers and (header < start or numbers != _ORDERED.get(len(numbers))):
                _close_computation(hlo, facts, header, numbers, header < start)
            header, numbers = start + local, []
        elif chunk.scans[local].kind == "instruction":  # the same text may read otherwise in a garbled file
            number = _apply(hlo, start + local, lines[local].rstrip("\r"), chunk.scans[local].data,
                            _verdicts.get(key, _EVALUATE), facts)
            if number is not None:
                numbers.append(number)
    if numbers:
        _close_computation(hlo, facts, header, numbers, True)
    return facts


def _close_computation(hlo: HloModule, facts: _ChunkFacts, header: int, numbers: list[str], left_open: bool) -> None:
    """A computation's parameters are checked now when the chunk holds it whole, else with the run."""
    if left_open:
        facts.open_parameters[header] = numbers
    elif not _numbered_in_order(numbers):
        facts.problems.extend(_numbering_problems(hlo, header))


# The parameter numbers of computations that number them 0, 1, 2... in order (the common case).
_ORDERED = {count: [str(number) for number in range(count)] for count in range(1, 64)}


def _numbered_in_order(numbers: list[str]) -> bool:
    """Whether the numbers are 0 to n-1 as XLA prints them, in any order (without converting one)."""
    expected = _NUMBER_SETS.get(len(numbers)) or frozenset(str(number) for number in range(len(numbers)))
    return len(set(numbers)) == len(numbers) and expected.issuperset(numbers)


_NUMBER_SETS = {count: frozenset(numbers) for count, numbers in _ORDERED.items()}


def _learn(chunk: Chunk, keys: list[bytes], fresh: set[bytes]) -> None:
    with _learning:
        if len(_verdicts) > _CACHE_LIMIT:
            for cache in (_known, _active, _parameter_spans, _header_keys, _verdicts, _templates, _judged):
                cache.clear()
        for local, key in enumerate(keys):
            if key in fresh and key not in _known:
                scan = chunk.scans[local]
                verdict = _verdict(chunk.lines[local].rstrip("\r"), scan.kind, scan.data,
                                   isinstance(scan.end_state, tuple))
                _verdicts[key] = verdict
                if verdict == _PARAMETER:
                    _parameter_spans[key] = slice(*_number_span(chunk.lines[local], scan.data))
                elif verdict == _HEADER:
                    _header_keys.add(key)
                if verdict:
                    _active.add(key)
                _known.add(key)


def _verdict(text: str, kind: str, data: tuple[object, ...], continued: bool) -> Verdict:
    """What every line of this text needs beyond the text's own verdict: nothing, its parameter
    number, another line's shape, or a reading of its own (a fault, or digits that matter)."""
    if kind == "computation":
        return _HEADER
    if kind != "instruction" or len(data) < 5 or not data[3]:
        return ()
    if continued:
        return _EVALUATE
    shape_start = data[1]
    assert isinstance(shape_start, int)
    template = _NAMES.sub("x", _STRINGS.sub('""', text[shape_start:])).translate(_ZERO_TEXT)
    known = _templates.get(template)
    if known is not None:
        return known
    read = read_instruction(text, data)
    verdict: Verdict = ()
    if read is not None:
        judgement = judge(read)
        verdict = tuple(sorted(judgement.actions))
        if judgement.findings or judgement.digit_sensitive:
            verdict = ("evaluate", *verdict)
    verdict = _PARAMETER if verdict == _PARAMETER else verdict
    _templates[template] = verdict
    return verdict


def _apply(hlo: HloModule, line: int, text: str, data: tuple[object, ...], verdict: Verdict,
           facts: _ChunkFacts) -> str | None:
    """Does what the line's verdict asks; returns the number of a parameter read on the way."""
    if "evaluate" in verdict:
        return _evaluate(hlo, line, data, facts, text)
    if any(action in _PER_RUN for action in verdict):
        facts.per_run.append(line)
    if "reshape" in verdict:
        facts.problems.extend(_problems(hlo, line, text, list(filter(None, [_reshape(hlo, line, text, data)]))))
    if "cross" in verdict or "broadcast" in verdict:
        read = read_instruction(text, data)
        facts.problems.extend(_problems(hlo, line, text, _cross(hlo, line, read) if read else []))
    return None


def _evaluate(hlo: HloModule, line: int, data: tuple[object, ...], facts: _ChunkFacts, text: str) -> str | None:
    if isinstance(hlo.document.scan(line).end_state, tuple):  # continued on the next lines
        text = hlo.instruction_text(line)
    shape_start = data[1]
    assert isinstance(shape_start, int)
    judged = _judged.get(text[shape_start:])
    if judged is None:
        read = read_instruction(text, data)
        if read is None:
            return None
        judgement = judge(read)
        judged = ([(a - shape_start, b - shape_start, c, m) for a, b, c, m in judgement.findings],
                  frozenset(judgement.actions))
        if len(_judged) > _CACHE_LIMIT:
            _judged.clear()
        _judged[text[shape_start:]] = judged
    findings = [(a + shape_start, b + shape_start, c, m) for a, b, c, m in judged[0]]
    _apply(hlo, line, text, data, tuple(judged[1] - {"parameter"}), facts)
    facts.problems.extend(_problems(hlo, line, text, findings))
    if "parameter" not in judged[1]:
        return None
    number_start, number_end = _number_span(text, data)
    return text[number_start:number_end]


def _number_span(text: str, data: tuple[object, ...]) -> tuple[int, int]:
    """Where the number of `parameter(N)` is in its line."""
    start = data[2] + len("parameter(")  # type: ignore[operator]
    return start, text.find(")", start)


def _numbering_problems(hlo: HloModule, header: int) -> list[Problem]:
    """The parameters of the computation whose header is on `header`, read again: each number once,
    and none beyond their count (XLA's parser crashes on a gap)."""
    computation = hlo.computation_at(header)
    if computation is None:
        return []
    parameters = []
    for line in computation.instruction_lines:
        scan = hlo.document.scan(line)
        if scan.data[3] == "parameter":
            text = hlo.instruction_text(line)
            if read_instruction(text, scan.data) is None:
                return []  # a parameter the grammar cannot read: its number is not known for sure
            start, end = _number_span(text, scan.data)
            parameters.append((line, text, start, end, rules.int64_value(text[start:end].strip())))
    written = sum(hlo.document.line(line).count(" parameter(") for line in computation.instruction_lines)
    if written > len(parameters):
        return []  # a parameter on the line of another instruction: the grammar's problem first
    problems, first = [], {}
    for line, text, start, end, number in parameters:
        if number is None or number < 0:
            continue
        if number in first:
            message = f"Duplicate parameter number {number} (first on line {first[number] + 1})"
        elif number >= len(parameters):
            message = (f"parameter number {number} leaves a gap: the computation has {len(parameters)} "
                       "parameters, numbered from 0 (XLA's parser crashes)")
        else:
            first[number] = line
            continue
        problems.extend(_problems(hlo, line, text, [(start, end, "parameter-number", message)]))
    return problems


def _per_run_problems(hlo: HloModule, lines: list[int]) -> Iterator[Problem]:
    reads: dict[int, _Read] = {}
    for line in lines:
        read = read_instruction(hlo.instruction_text(line), hlo.document.scan(line).data)
        if read is not None:
            reads[line] = read
    for line, finding in _async_problems(hlo, reads):
        yield from _problems(hlo, line, reads[line].text, [finding])
    for line, read in reads.items():
        if read.opcode in ("send-done", "recv-done"):
            yield from _problems(hlo, line, read.text, _channel_problems(hlo, line, read))


def _problems(hlo: HloModule, line: int, text: str, findings: list[Finding]) -> list[Problem]:
    """Findings at offsets of an instruction's text (its lines joined by newlines) as problems."""
    return [Problem(hlo.document.source, Range(_position(line, text, start), _position(line, text, max(start, end))),
                    Severity.ERROR, code, message) for start, end, code, message in findings]


def _position(line: int, text: str, offset: int) -> Position:
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", line_start)
    own = text[line_start : line_end if line_end >= 0 else len(text)]
    column = offset - line_start
    return Position(line + text.count("\n", 0, line_start), column if own.isascii() else utf16_column(own, column))

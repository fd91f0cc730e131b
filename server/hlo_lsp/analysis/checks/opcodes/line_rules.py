"""The rules every instruction follows on its own line, as XLA's HLO text parser checks them: a
known opcode, a result shape where it cannot be inferred, the operand count, the attributes its
opcode allows and requires and their values' syntax; then the rules of its opcode (opcode_rules).
"""

from __future__ import annotations

import re

from hlo_lsp.analysis.checks.opcodes import tables
from hlo_lsp.analysis.checks.opcodes.dropped_operands import OPCODE_OPERANDS, has_opcode_spelt_operand
from hlo_lsp.analysis.checks.opcodes.findings import Judgement
from hlo_lsp.analysis.checks.opcodes.inline_bodies import inline_bodies
from hlo_lsp.analysis.checks.opcodes.layouts import layout_findings
from hlo_lsp.analysis.checks.opcodes.nested import judge_nested, tuple_shaped_operands
from hlo_lsp.analysis.checks.opcodes.opcode_rules import OPCODE_RULES
from hlo_lsp.analysis.checks.opcodes.reader import ARRAY_SHAPE, InstructionParts, parsed_shape
from hlo_lsp.analysis.checks.opcodes.text_keys import value_digits_matter
from hlo_lsp.analysis.checks.opcodes.values import split_top_level
from hlo_lsp.parsing.hlo_scanner.forms import KEYWORDS, LITERAL_OPCODES
from hlo_lsp.parsing.syntax import TupleShape

_SIZED_TOKEN = re.compile(r"(?<![A-Za-z0-9_])(?:token|opaque)\[\s*[^\]\s]")
# The operand-count rules that take at least some operands: (how many, XLA's message).
_FEWEST = {
    "dynamic-slice": (1, "Expected at least one operand."),
    "dynamic-update-slice": (2, "Expected at least two operands."),
    "dynamic-reshape": (1, "DynamicReshape requires at least one operand."),
    "dot": (2, "dot needs two operands (XLA's parser crashes on fewer)"),
    "at-least-1": (1, "rng-bit-generator needs its state operand (XLA's parser crashes without it)"),
    "conditional": (1, "conditional needs its branch selector (XLA's parser crashes without operands)"),
}


def judge(read: InstructionParts) -> Judgement:
    """What XLA's parser says of this instruction alone, and what it needs of other lines."""
    judgement = Judgement()
    opcode = read.opcode
    rule, wrapped = tables.RULES.get(opcode), tables.async_wrapped(opcode)
    if rule is None and wrapped is None:
        judgement.add(read.opcode_span, "unknown-opcode", f"unknown opcode {opcode}")
        return judgement
    inferable = rule.inferable if rule is not None else False
    if not read.shape and not inferable:
        judgement.add(read.opcode_span, "shape-required", f"cannot infer shape for opcode: {opcode}; "
                                                          "write the result shape before it")
        return judgement
    if has_opcode_spelt_operand(read):  # perhaps one fewer: read again where the names above are known
        judgement.actions.add(OPCODE_OPERANDS)
    if not read.shape:  # its users' declared operand shapes are compared with the one XLA infers
        judgement.actions.add("shapeless")
    if _SIZED_TOKEN.search(read.shape):
        judgement.add(read.opcode_span, "result-shape", f"{read.shape}: token and opaque shapes have no dimensions, "
                                                        "token[] (XLA's parser crashes)")
    _layouts(read, judgement)
    if wrapped is not None or opcode.startswith("async-"):
        judgement.actions.add("async")
    if inline_bodies(read):
        judgement.actions.add("inline")
    allowed, required = _allowed(opcode, rule, wrapped)
    if rule is not None:
        _operand_count(read, rule, judgement)
    if opcode not in LITERAL_OPCODES:  # (else its operands are a literal)
        _keyword_operands(read, judgement)
        if "(" in read.text[read.operands_span[0] + 1 : read.operands_span[1]]:
            judge_nested(read, judgement, judge)
            tuple_shaped_operands(read, judgement)
    check_attributes(read, allowed, required, judgement)
    _opcode_rules(read, judgement)
    return judgement


def _allowed(opcode: str, rule: tables.OpcodeRule | None, wrapped: tuple[str, str] | None,
             ) -> tuple[frozenset[str], frozenset[str]]:
    if wrapped is None:
        assert rule is not None
        return tables.GENERIC | rule.attributes, rule.required
    inner, suffix = wrapped
    if suffix == "-start":
        own = tables.RULES[inner]
        required = own.required - {"dimensions"} if inner == "broadcast" else own.required
        return tables.GENERIC | tables.WRAPPED_START_ATTRIBUTES | own.attributes, required
    return tables.GENERIC | tables.WRAPPED_DONE_ATTRIBUTES, frozenset()


def _layouts(read: InstructionParts, judgement: Judgement) -> None:
    """The layouts of the result shape, the operands' shapes and the custom-call layout constraints."""
    spans = [span for span in read.operands if "{" in read.item(span)]
    if "{" in read.shape:
        spans.append((0, read.opcode_span[0]))  # no name holds a `[`: only the shape has layouts
    if read.attribute("operand_layout_constraints") is not None:
        spans.append(read.value_span("operand_layout_constraints"))
    for start, end in spans:
        for finding in layout_findings(read.text, start, end):
            judgement.add(finding[:2], "layout", finding[2])


def _operand_count(read: InstructionParts, rule: tables.OpcodeRule, judgement: Judgement) -> None:
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


def _keyword_operands(read: InstructionParts, judgement: Judgement) -> None:
    """An operand spelt like a keyword of XLA's lexer without its `%` (`add(p, inf)`): no name at all."""
    for start, end in read.operands:
        words = read.text[start:end].split()
        if words and words[-1] in KEYWORDS:
            at = read.text.rindex(words[-1], start, end)
            judgement.add((at, at + len(words[-1])), "syntax", f"{words[-1]} is a keyword of XLA's HLO text, "
                                                               f"not an instruction's name (XLA: expects name)")


def _rank(shape: str) -> int:
    array = ARRAY_SHAPE.match(shape)
    return len(split_top_level(array.group(2))) if array else -1


def _tuple_count(read: InstructionParts, count: int, judgement: Judgement) -> None:
    if not read.shape.startswith("("):
        judgement.add(read.opcode_span, "result-shape", f"tuple with the non-tuple shape {read.shape} "
                                                        "(XLA's parser crashes)")
        return
    elements = len(split_top_level(read.shape.strip()[1:-1]))
    if count != elements:
        judgement.add(read.operands_span, "operand-count", f"tuple expects {elements} operands, but has {count}")


def check_attributes(read: InstructionParts, allowed: frozenset[str], required: frozenset[str],
                     judgement: Judgement) -> None:
    """Each attribute allowed, once, with a value of its syntax; the required ones present."""
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


def _value(read: InstructionParts, key: str, start: int, end: int, judgement: Judgement) -> None:
    value = read.text[start:end]
    validator = tables.OPCODE_VALIDATORS.get((read.opcode, key)) or tables.VALIDATORS.get(key)
    found = validator(value) if validator is not None else None
    if found is not None:
        judgement.add((start + found[0], start + found[1]), "attribute-value", f"{key}: {found[2]}")
    if value_digits_matter(key, value):
        judgement.digit_sensitive = True


def _opcode_rules(read: InstructionParts, judgement: Judgement) -> None:
    check = OPCODE_RULES.get(read.opcode)
    if check is not None:
        check(read, judgement)
    wrapped = tables.async_wrapped(read.opcode)
    if read.opcode == "async-start" or (wrapped is not None and wrapped[1] == "-start"):
        _async_start_shape(read, judgement)
    if "parameter_replication" in (name for name, *_ in read.attributes) and read.opcode != "parameter":
        judgement.add(read.opcode_span, "unknown-attribute", "parameter_replication on a non-parameter "
                                                             "(XLA's parser crashes)")


def _async_start_shape(read: InstructionParts, judgement: Judgement) -> None:
    shape = parsed_shape(read.shape)
    if not (isinstance(shape, TupleShape) and len(shape.elements) >= 2 and shape.elements[0].is_tuple):
        judgement.add(read.opcode_span, "async-chain", "AsyncStart expects the op shape to be in the form of "
                                                       "((async-operands), async-outputs, state)")

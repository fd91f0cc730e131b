"""Whether lines are valid HLO, without parsing each one: a whole module's syntax check.

Whether an instruction or a header parses depends on its token structure, not on the names,
numbers and strings in it, so lines are reduced to templates and a template known to parse is
not parsed again; a very long header is checked through its template with each list's repeated
items removed. A failing line is always parsed itself, so its error says exactly where.
"""

from __future__ import annotations

import re
from typing import Any

from hlo_lsp.parsing import hlo_syntax
from hlo_lsp.parsing.digit_templates import digits_as_zero, template_cache
from hlo_lsp.parsing.element_types import element_type_spans, unknown_element_type
from hlo_lsp.parsing.names import NAME
from hlo_lsp.parsing.syntax import Attribute, ModuleHeader, ParseError

_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_KEYWORD_AHEAD = r"(?!(?:HloModule|ROOT|ENTRY|SC|[TLESPMD])(?![A-Za-z0-9_.\-]))"  # the grammar's keywords
# Two passes with constant replacements: re.sub runs those without calling back into Python.
_SIGIL_NAMES = re.compile(rf"(?<![A-Za-z0-9_.\-])%{_KEYWORD_AHEAD}{NAME}")
_BARE_NAMES = re.compile(rf"(?<![A-Za-z0-9_.\-%]){_KEYWORD_AHEAD}{NAME}")
_DIGITS = re.compile(r"[0-9]+")
_VALID_TEMPLATES: dict[tuple[str, str], None] = template_cache()  # (a set, kept as a dict's keys)
# lines with their digits replaced (a template's template): the places of their element types
_VALID_NUMBERED: dict[tuple[str, bytes], tuple[tuple[int, int], ...]] = template_cache()
_TEMPLATE_LIMIT = 200_000


def instruction_template(text: str) -> str:
    if '"' in text or "'" in text:
        text = _STRINGS.sub('""', text)
    return _DIGITS.sub("0", _BARE_NAMES.sub("x", _SIGIL_NAMES.sub("%x", text)))


def instruction_error(text: str) -> ParseError | None:
    """Where the instruction `text` stops following the grammar, or None if it parses."""
    return _template_error(text, "instruction", hlo_syntax.parse_instruction)


def known_to_parse(instruction: str) -> bool:
    """Whether the instruction's template is one that parses, and its element types are XLA's: `instruction_error`
    finds nothing, and this finds it without a grammar (False: ask `instruction_error`)."""
    types = _VALID_NUMBERED.get(("instruction", digits_as_zero(instruction)))
    return types is not None and (not types or unknown_element_type(instruction, types) is None)


def computation_header_error(text: str) -> ParseError | None:
    """Where the computation header `text` stops following the grammar, or None if it parses."""
    return _template_error(text, "computation_header", hlo_syntax.parse_computation_header)


def module_header_attribute(text: str, key: str) -> Attribute | None:
    """One top-level attribute of a valid module header. A long header is not parsed whole for
    it: its item `key=...` is parsed alone, after `HloModule x, `."""
    if len(text) <= LONG_ITEM:
        header = hlo_syntax.parse_module_header(text)
        return header.attribute(key) if isinstance(header, ModuleHeader) else None
    if module_header_error(text) is not None:
        return None
    found = _top_level_item(text, key + "=")
    if found is None:
        return None
    prefix = "HloModule x, "
    alone = hlo_syntax.parse_module_header(prefix + text[found[0] : found[1]])
    attribute = alone.attribute(key) if isinstance(alone, ModuleHeader) else None
    if attribute is None:
        return None
    shift = found[0] - len(prefix)

    def moved(span: tuple[int, int]) -> tuple[int, int]:
        return span[0] + shift, span[1] + shift

    return Attribute(attribute.key, moved(attribute.key_span), moved(attribute.value_span),
                     tuple((name, moved(span)) for name, span in attribute.names), attribute.pairs)


_ITEM_BOUNDARY = re.compile(r'"(?:[^"\\\n]|\\.)*"|/\*.*?\*/|[(){}\[\],]')


def _top_level_item(text: str, start_with: str) -> tuple[int, int] | None:
    """(start, end) of the first comma-separated top-level item of `text` that starts (after
    spaces) with `start_with`; strings and comments are skipped."""
    depth, item_start = 0, 0
    for match in _ITEM_BOUNDARY.finditer(text):
        token = match.group()
        if token in _OPENING:
            depth += 1
        elif token in ")]}":
            depth -= 1
        elif token == "," and depth == 0:
            if text[item_start:match.start()].lstrip().startswith(start_with):
                break
            item_start = match.end()
    else:
        if not text[item_start:].lstrip().startswith(start_with):
            return None
        return _stripped_span(text, item_start, len(text))
    return _stripped_span(text, item_start, match.start())


def _stripped_span(text: str, start: int, end: int) -> tuple[int, int]:
    item = text[start:end]
    return start + len(item) - len(item.lstrip()), start + len(item.rstrip())


def module_header_error(text: str) -> ParseError | None:
    """Where the module header `text` stops following the grammar, or None if it parses."""
    return _template_error(text, "module_header", hlo_syntax.parse_module_header)


def _template_error(text: str, rule: str, parse: Any) -> ParseError | None:
    # Lines that differ only in their digits (`fusion.95` for `fusion.96`, a layer index in an
    # op_name) have the same template, and digits alone are cheap to replace: try that first.
    # The grammar takes any name for an element type: the names are checked on each line, at the places
    # its numbered template keeps (digits tell `s4` from `s3`).
    numbered = (rule, digits_as_zero(text))
    types = _VALID_NUMBERED.get(numbered)
    if types is None:
        template = (rule, instruction_template(text))
        if template not in _VALID_TEMPLATES and not _long_template_parses(template[1], rule):
            result = parse(text)
            if isinstance(result, ParseError):
                return result
        if len(_VALID_TEMPLATES) < _TEMPLATE_LIMIT:
            _VALID_TEMPLATES[template] = None
        types = element_type_spans(text)
        if len(_VALID_NUMBERED) < _TEMPLATE_LIMIT:
            _VALID_NUMBERED[numbered] = types
    unknown = unknown_element_type(text, types) if types else None
    return None if unknown is None else ParseError(*unknown, _unknown_type_message(text[unknown[0] : unknown[1]]))


def _unknown_type_message(name: str) -> str:
    if name == "tuple":
        return "`tuple[...]` is no shape: a tuple is written `(shape, ...)`"
    return (f"`{name}` is not an element type: XLA's are pred, s1-s64, u1-u64, f16, bf16, f32, f64, c64, c128, "
            "the f8 and f4 types (f8e4m3fn, f8e5m2, ...), token and opaque")


# ---- Long lines ------------------------------------------------------------------------------
# A large module's header lists every parameter's shape in entry_computation_layout (260 KB at
# 40 MB, a second of lark), and its ENTRY header every parameter. The lists the grammar allows
# there (attribute values, signatures, shapes) accept any number of items, so a template parses
# exactly when the template with the repeats of each list's items removed parses; the shapes of
# a thousand parameters are a few dozen distinct ones. Only a failure needs the line itself.
LONG_ITEM = 4096
_LIST_TOKEN = re.compile(r"[(){}\[\],]|[^(){}\[\],]+")
_OPENING = {"(": ")", "[": "]", "{": "}"}


def _long_template_parses(template: str, rule: str) -> bool:
    if len(template) <= LONG_ITEM or "'" in template or template.count('"') != 2 * template.count('""'):
        return False  # short, or quoting the item splitter below would have to understand
    if template.count("/*") != template.count("/*x=0*/"):
        return False  # block comments other than `/*index=5*/` might hide brackets or commas
    shorter = without_repeated_items(template)
    if len(shorter) * 2 > len(template):
        return False  # little repeats: parsing the line itself costs about the same, and says where it fails
    return not isinstance(hlo_syntax.parse_rule(shorter, rule), ParseError)


_DEEPEST_LIST = 64  # deeper than any shape or attribute XLA prints nests


def without_repeated_items(text: str) -> str:
    """`text` with every comma-separated item that repeats an earlier item of its bracketed list
    (or of the top level) removed, with its comma."""
    stack: list[tuple[list[str], set[str], list[str], str]] = [([], set(), [], "")]
    for token in _LIST_TOKEN.findall(text):
        items, seen, current, closing = stack[-1]
        if token in _OPENING:
            if len(stack) > _DEEPEST_LIST:
                return text  # each level would copy the text nested in it
            current.append(token)
            stack.append(([], set(), [], _OPENING[token]))
        elif token == ",":
            _end_item(items, seen, current)
            current.clear()
        elif token == closing:
            _end_item(items, seen, current)
            stack.pop()
            stack[-1][2].append(",".join(items) + token)
        else:
            current.append(token)
    while len(stack) > 1:  # unclosed brackets: the text does not parse either way
        items, seen, current, _ = stack.pop()
        _end_item(items, seen, current)
        stack[-1][2].append(",".join(items))
    items, seen, current, _ = stack[0]
    _end_item(items, seen, current)
    return ",".join(items)


def _end_item(items: list[str], seen: set[str], current: list[str]) -> None:
    item = "".join(current)
    key = item.strip()
    if key and key in seen:
        return
    seen.add(key)
    items.append(item)

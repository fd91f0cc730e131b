"""Parses HLO pieces with grammar/hlo.lark into syntax records (parsing/syntax.py).

The parser runs tree-less: the transformer below is called as each rule is
reduced, so no lark Tree is built. Results are cached by text: a line that did
not change is never parsed twice.
"""

from __future__ import annotations

import threading
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from hlo_lsp.memos import memo
from hlo_lsp.parsing.grammars import hlo_parser
from hlo_lsp.parsing.hlo_scanner import matching_paren
from hlo_lsp.parsing.syntax import (
    ArrayShape,
    Attribute,
    ComputationHeader,
    Instruction,
    Layout,
    ModuleHeader,
    Operand,
    Parameter,
    ParseError,
    Shape,
    TupleShape,
)

# Opcodes whose operands are literals even when they look like names (true, nan, inf).
_LITERAL_OPCODES = frozenset(("constant", "parameter"))
_PAIR_VALUE_TYPES = frozenset(("STRING", "NUMBER", "INT", "NAME", "SINGLE_QUOTED"))


def _name(token: Token) -> str:
    """The name a NAME or DEF_NAME token spells: without its `%` sigil, or a colon glued after it."""
    return token[token.startswith("%") : len(token) - token.endswith(":")]


def _span(token: Token) -> tuple[int, int]:
    """Where a token the parser read stands (lark types positions Optional: a token made by hand has none)."""
    start, end = token.start_pos, token.end_pos
    assert start is not None and end is not None
    return (start, end)


def _name_span(token: Token) -> tuple[int, int]:
    start, end = _span(token)
    return (start + (1 if token.startswith("%") else 0), end - token.endswith(":"))


def _tokens(items: list[Any]) -> list[Token]:
    """The tokens of an attribute value, with its groups (nested lists of tokens) opened. Groups are
    opened once, here, with a stack: copying each group's tokens into its parent's would take time
    in the square of the nesting depth (a garbled value can nest 20,000 deep)."""
    flat: list[Token] = []
    stack = [iter(items)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, Token):
                flat.append(item)
            else:
                stack.append(iter(item))
                break
        else:
            stack.pop()
    return flat


class _Layout:
    """Collects layout fields while the layout rule is reduced."""

    def __init__(self, kind: str, value: Any) -> None:
        self.kind = kind
        self.value = value


class HloTransformer(Transformer[Token, Any]):
    # ---- shapes -----------------------------------------------------------------
    def shape(self, children: list[Shape]) -> Shape:
        return children[0]

    def common__tuple_shape(self, children: list[Shape]) -> TupleShape:
        return TupleShape(tuple(children))

    def common__array_shape(self, children: list[Any]) -> ArrayShape:
        element_type = str(children[0])
        dims, bounded, layout = [], [], None
        for child in children[1:]:
            if isinstance(child, Layout):
                layout = child
            else:
                dims.append(child[0])
                bounded.append(child[1])
        return ArrayShape(element_type, tuple(dims), tuple(bounded), layout)

    def common__static_dim(self, children: list[Token]) -> tuple[int, bool]:
        return (int(children[0]), False)

    def common__bounded_dim(self, children: list[Token]) -> tuple[int, bool]:
        return (int(children[0]), True)

    def common__unbounded_dim(self, children: list[Token]) -> tuple[int, bool]:
        return (-1, False)

    def common__layout(self, children: list[Any]) -> Layout:
        minor_to_major = tuple(int(c) for c in children if isinstance(c, Token))
        fields = {c.kind: c.value for c in children if isinstance(c, _Layout)}
        return Layout(minor_to_major, fields.get("tiles", ()), fields.get("bits"), fields.get("space"),
                      fields.get("padding"))

    def common__tiling(self, children: list[tuple[int | None, ...]]) -> _Layout:
        return _Layout("tiles", tuple(children))

    def common__tile(self, children: list[int | None]) -> tuple[int | None, ...]:
        return tuple(children)

    def common__tile_dim(self, children: list[Token]) -> int | None:
        return int(children[0]) if children and children[0].type == "INT" else None

    def common__element_bits(self, children: list[Token]) -> _Layout:
        return _Layout("bits", int(children[0]))

    def common__memory_space(self, children: list[Token]) -> _Layout:
        return _Layout("space", int(children[0]))

    def common__tail_padding(self, children: list[Token]) -> _Layout:
        return _Layout("padding", int(children[0]))

    def _ignored_layout_field(self, children: list[Any]) -> _Layout:
        return _Layout("other", None)

    common__index_type = common__pointer_type = common__split_config = _ignored_layout_field
    common__physical_shape = common__dynamic_metadata = common__dim_level_types = _ignored_layout_field

    # ---- operands and attributes ------------------------------------------------------
    def typed_operand(self, children: list[Any]) -> Operand:
        shape, name = children
        return Operand(_name(name), _name_span(name), shape)

    def bare_operand(self, children: list[Token]) -> Operand:
        token = children[0]
        return Operand(_name(token), _name_span(token))

    def nested_operand(self, children: list[Any]) -> Operand:
        """An instruction written in its user's operand list: read as an operand of no name."""
        shape = children[0] if isinstance(children[0], Shape) else None
        opcode = children[1 if shape is not None else 0]
        if str(opcode).startswith("%"):  # XLA reads `%negate(p)` as the name `%negate`, then `(`
            raise _Rejected(ParseError(opcode.end_pos, opcode.end_pos + 1, "unexpected `(`; expected `)`, `,`"))
        spans = [_span(c) if isinstance(c, Token) else c.span for c in children if isinstance(c, (Token, Operand))]
        return Operand(None, (min(s for s, _ in spans), max(e for _, e in spans)), shape)

    def literal_operand(self, children: list[tuple[int, int]]) -> Operand:
        start, end = children[0]
        return Operand(None, (start, end), literal="")

    def literal(self, children: list[Any]) -> tuple[int, int]:
        spans = [_span(c) if isinstance(c, Token) else c for c in children]
        if not spans:
            return (0, 0)
        return (min(s for s, _ in spans), max(e for _, e in spans))

    def group(self, children: list[Any]) -> list[Any]:
        return children  # opened by the attribute value (_tokens)

    def attribute_value(self, children: list[Any]) -> list[Token]:
        return _tokens(children)

    def attribute(self, children: list[Any]) -> Attribute:
        key, tokens = children
        names = tuple((_name(t), _name_span(t)) for t in tokens if t.type == "NAME")
        return Attribute(str(key), (key.start_pos, key.end_pos), (tokens[0].start_pos, tokens[-1].end_pos),
                         names, _pairs(tokens))

    # ---- instructions, computations, module -------------------------------------------
    def instruction(self, children: list[Any]) -> Instruction:
        is_root = isinstance(children[0], Token) and children[0].type == "ROOT"
        rest = children[1:] if is_root else children
        name = rest[0]
        shape = None if isinstance(rest[1], Token) else rest[1]  # no shape written: XLA infers it
        rest = rest[1:] if shape is None else rest[2:]
        opcode = rest[0]
        operands = tuple(c for c in rest[1:] if isinstance(c, Operand))
        attributes = tuple(c for c in rest[1:] if isinstance(c, Attribute))
        return Instruction(_name(name), _name_span(name), is_root, shape, (name.end_pos, opcode.start_pos),
                           str(opcode), (opcode.start_pos, opcode.end_pos), operands, attributes)

    def parameter(self, children: list[Any]) -> Parameter:
        name, shape = children
        return Parameter(_name(name), _name_span(name), shape)

    def signature(self, children: list[Any]) -> tuple[tuple[Parameter, ...], Shape]:
        return (tuple(c for c in children[:-1]), children[-1])

    def computation_header(self, children: list[Any]) -> ComputationHeader:
        is_entry = isinstance(children[0], Token) and children[0].type == "ENTRY"
        rest = children[1:] if is_entry else children
        name = rest[0]
        signature = next((c for c in rest[1:] if isinstance(c, tuple)), None)
        parameters, result = signature if signature else (None, None)
        return ComputationHeader(_name(name), _name_span(name), is_entry, parameters, result)

    def module_header(self, children: list[Any]) -> ModuleHeader:
        name = children[0]
        return ModuleHeader(_name(name), _name_span(name), tuple(children[1:]))

    # A whole module (the baseline parse) becomes plain tuples, never lark trees.
    def module(self, children: list[Any]) -> tuple[Any, ...]:
        return tuple(children)

    def computation(self, children: list[Any]) -> tuple[ComputationHeader, tuple[Instruction, ...]]:
        return (children[0], tuple(children[1:]))

    def table(self, children: list[Any]) -> tuple[str, tuple[Any, ...]]:
        return (str(children[0]), tuple(children[1:]))

    def string_row(self, children: list[Token]) -> tuple[int, str]:
        return (int(children[0]), str(children[1])[1:-1])

    def record_row(self, children: list[Any]) -> tuple[int, dict[str, int]]:
        return (int(children[0]), dict(children[1:]))

    def table_field(self, children: list[Token]) -> tuple[str, int]:
        return (str(children[0]), int(children[1]))


def _pairs(tokens: list[Token]) -> tuple[tuple[str, str], ...]:
    """key=value pairs directly inside the outermost group (metadata={k=v k=v})."""
    pairs = []
    depth = 0
    for index, token in enumerate(tokens):
        kind = token.type
        if kind in ("LBRACE", "LSQB", "LPAR"):
            depth += 1
        elif kind in ("RBRACE", "RSQB", "RPAR"):
            depth -= 1
        elif kind == "EQUAL" and depth == 1 and 0 < index < len(tokens) - 1:
            key, value = tokens[index - 1], tokens[index + 1]
            if key.type == "NAME" and value.type in _PAIR_VALUE_TYPES:
                pairs.append((str(key), str(value)))
    return tuple(pairs)


_TRANSFORMER = HloTransformer()  # one instance: the parser built with it is built once
_parser_lock = threading.Lock()


def prepare_parser() -> None:
    """Makes the grammar's parser now (loaded from grammar/hlo.tables in a hundredth of a second, or built
    in a fifth where they are stale), so that the first request that needs it does not wait for it; a
    language server calls this when it starts. It parses a few lines too: the lexer of each parser state
    is compiled the first time a text reaches it, the first hover's parse would wait for that (10 ms)."""
    _parser()
    for text, start in _WARM_UP:
        parse_rule(text, start)


_WARM_UP = (
    ('%f.1 = (f32[2,3]{1,0}, s32[]) fusion(f32[2,3]{1,0} %a, s32[] %b), kind=kLoop, calls=%c, '
     'metadata={op_name="a" source_file="b" source_line=1}', "instruction"),
    ("%c (p.0: f32[2,3], p.1: s32[]) -> (f32[2,3], s32[]) {", "computation_header"),
)


def _parser() -> Lark:
    with _parser_lock:  # two threads asking at once build it once
        return _built_parser()


def _built_parser() -> Lark:
    return hlo_parser(_TRANSFORMER)


class _Rejected(Exception):
    """What the grammar takes and XLA's parser does not, found while the parse builds its records."""

    def __init__(self, error: ParseError) -> None:
        super().__init__(error.message)
        self.error = error


def parse_rule(text: str, start: str) -> Any:
    """`text` parsed as the grammar's rule `start`: its syntax record, or a ParseError."""
    try:
        return _parser().parse(text, start=start)
    except _Rejected as rejected:
        return rejected.error
    except UnexpectedInput as error:
        return parse_error_of(text, error)
    except (LarkError, ValueError, IndexError, TypeError) as error:
        return ParseError(0, len(text), f"cannot parse: {error}")
    except RecursionError:
        return ParseError(0, len(text), "cannot parse: brackets nest too deeply")


@memo(maxsize=65536)
def parse_instruction(text: str) -> Instruction | ParseError:
    """An instruction (possibly spanning lines of a multi-line literal)."""
    result = parse_rule(text, "instruction")
    if isinstance(result, Instruction):
        start, end = result.shape_span
        shape_start = text.index("=", start) + 1
        while shape_start < end and text[shape_start].isspace():
            shape_start += 1
        shape_end = end
        while shape_end > shape_start and text[shape_end - 1].isspace():
            shape_end -= 1
        literal_only = result.opcode in _LITERAL_OPCODES
        operands = tuple(
            Operand(None, o.span, literal=_literal_text(text, result, o)) if o.literal is not None or literal_only
            else o
            for o in result.operands
        )
        result = Instruction(result.name, result.name_span, result.is_root, result.shape, (shape_start, shape_end),
                             result.opcode, result.opcode_span, operands, result.attributes)
    return result


def _literal_text(text: str, instruction: Instruction, operand: Operand) -> str:
    """The literal as written: for constant(...) everything between the parentheses."""
    if instruction.opcode != "constant":
        return text[operand.span[0] : operand.span[1]]
    open_paren = text.index("(", instruction.opcode_span[1])
    close_paren = matching_paren(text, open_paren)
    return text[open_paren + 1 : close_paren if close_paren > 0 else len(text)].strip()


@memo(maxsize=65536)
def parse_shape(text: str) -> Shape | ParseError:
    return parse_rule(text, "shape")


@memo(maxsize=4096)
def parse_computation_header(text: str) -> ComputationHeader | ParseError:
    return parse_rule(text, "computation_header")


@memo(maxsize=64)
def parse_module_header(text: str) -> ModuleHeader | ParseError:
    return parse_rule(text, "module_header")


def parse_table_row(text: str) -> object:
    return parse_rule(text, "table_row")


def parse_module(text: str) -> object:
    """A whole module in one lark parse: the naive baseline the engine is measured against."""
    return parse_rule(text, "module")


_READABLE = {
    "NAME": "a name", "DEF_NAME": "a name", "INT": "an integer", "NUMBER": "a number", "STRING": "a string",
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "LBRACE": "`{`", "RBRACE": "`}`",
    "COMMA": "`,`", "EQUAL": "`=`", "COLON": "`:`", "BODY_OPEN": "`{`", "_NL": "end of line",
    "$END": "end of text", "ROOT": "ROOT", "ENTRY": "ENTRY", "ELLIPSIS": "`...`", "PUNCT": "a symbol",
    "SINGLE_QUOTED": "a quoted string", "PHI": "(phi)", "HUMAN_BYTES": "a size like 1.5KiB",
}


def parse_error_of(text: str, error: UnexpectedInput) -> ParseError:
    position = max(0, min(getattr(error, "pos_in_stream", None) or 0, len(text)))
    if isinstance(error, UnexpectedToken):
        token = error.token
        position = token.start_pos if token.start_pos is not None else len(text)
        end = max(position + 1, token.end_pos or position + 1)
        found = "end of text" if token.type == "$END" else f"`{str(token)[:40]}`"
        message = f"unexpected {found}; expected {_expected(error.expected)}"
    elif isinstance(error, UnexpectedCharacters):
        end = position + 1
        message = f"unexpected character `{text[position:position + 1]}`; expected {_expected(error.allowed)}"
    elif isinstance(error, UnexpectedEOF):
        position, end = len(text), len(text)
        message = f"text ends too early; expected {_expected(error.expected)}"
    else:
        end = position + 1
        message = "unexpected input"
    return ParseError(position, min(end, max(len(text), position)), message)


def _readable(name: str) -> str:
    name = name.split("__", 1)[1] if "__" in name and not name.startswith("__") else name
    if name.startswith("__ANON"):
        return "more text"
    return _READABLE.get(name, f"`{name.lower().replace('_', ' ')}`" if name.isupper() else name)


def _expected(names: Any) -> str:
    readable = sorted({_readable(name) for name in names or ()})
    if len(readable) > 5:
        readable = readable[:5] + ["..."]
    return ", ".join(readable) or "something else"

"""hlo-opcodes on shapes: a computation's signature against its root, token shapes with dimensions, the
shapes XLA infers where none is written and the operands it cannot infer one from, and reshapes of an
inferred shape (see opcode_cases.py for what was run through XLA's parser; each XLA verdict is quoted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opcode_cases import one, opcode_problems

from hlo_lsp.analysis.checks.opcodes.inference import inferred_shape
from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.file_kinds import FileKind

PARAMETERS = ("p = f32[4] parameter(0)", "q = f32[5] parameter(1)", "s = f32[] parameter(2)",
              "t = (f32[4], f32[4]) parameter(3)", "i = s32[4] parameter(4)", "b = pred[4] parameter(5)")


def computation(header: str, *body: str) -> str:
    lines = "".join(f"  {line}\n" for line in body)
    return f"HloModule m\n\n{header} {{\n{lines}}}\n"


def entry(*body: str) -> str:
    return computation("ENTRY e", *PARAMETERS, *body)


# ---- the signature's result against the root -----------------------------------------------------------------
@pytest.mark.parametrize(("text", "message", "underlined"), [
    # XLA: Shape of computation e, s32[4], is not compatible with that of its root instruction v, f32[4]
    (computation("ENTRY e (p: f32[4]) -> s32[4]", "p = f32[4] parameter(0)", "ROOT v = f32[4]{0} abs(p)"),
     "Shape of computation e, s32[4], is not compatible with that of its root instruction v, f32[4]{0}", "s32[4]"),
    # Without a ROOT, the root is the last instruction.
    (computation("e (p: f32[4]) -> s32[4]", "p = f32[4] parameter(0)"),
     "Shape of computation e, s32[4], is not compatible with that of its root instruction p, f32[4]", "s32[4]"),
    (computation("ENTRY e () -> f32[4,1]", "p = f32[4] parameter(0)"),
     "Shape of computation e, f32[4,1], is not compatible with that of its root instruction p, f32[4]", "f32[4,1]"),
    (computation("ENTRY e () -> (f32[4], token[])", "p = f32[4] parameter(0)", "t = opaque[] parameter(1)",
                 "ROOT r = (f32[4], opaque[]) tuple(p, t)"),
     "Shape of computation e, (f32[4], token[]), is not compatible with that of its root instruction r, "
     "(f32[4], opaque[])", "(f32[4], token[])"),
    # A root without a shape: XLA infers f32[4] from abs.
    (computation("ENTRY e () -> f32[3]", "p = f32[4] parameter(0)", "a = abs(p)"),
     "Shape of computation e, f32[3], is not compatible with that of its root instruction a, f32[4]", "f32[3]"),
])
def test_signature_result_against_the_root(tmp_path: Path, text: str, message: str, underlined: str) -> None:
    assert one(tmp_path, text) == (2, "result-shape", message, underlined)


@pytest.mark.parametrize("text", [
    computation("ENTRY e (p: f32[4]) -> f32[4]", "ROOT p = f32[4]{0} parameter(0)"),  # layouts aside
    computation("ENTRY e (p: f32[4]) -> f32[<=4]", "ROOT p = f32[4] parameter(0)"),  # a bound is its size
    computation("ENTRY e (p: f32[?]) -> f32[4]", "ROOT p = f32[?] parameter(0)"),  # unbounded: any size
    computation("ENTRY e (p: s32[4], q: f32[2]) -> f32[4]", "ROOT p = f32[4] parameter(0)"),  # parameters aside
    computation("ENTRY e () -> f32[4]", "ROOT p = f32[4] parameter(0)", "a = f32[2] parameter(1)"),  # the ROOT
    computation("ENTRY e () -> f32[4]", "p = f32[4] parameter(0)", "a = abs(p)"),
    computation("ENTRY e () -> f32[4]", "p = f32[4] parameter(0)", "a = f32[2] abs(p) b = f32[4] negate(p)"),
])
def test_signatures_xla_accepts(tmp_path: Path, text: str) -> None:
    assert [p for p in opcode_problems(tmp_path, text) if p.code == "result-shape"] == []


@pytest.mark.parametrize(("header", "line", "underlined"), [
    ("ENTRY e (p: token[2]) -> token[]", 2, "token[2]"),  # XLA crashes: shape.h, buffer != nullptr
    ("ENTRY e (p: token[]) -> opaque[3]", 2, "opaque[3]"),
    ("ENTRY e // its signature below\n(p: token[2]) -> token[]", 3, "token[2]"),  # a header over lines
])
def test_token_shapes_with_dimensions_in_a_signature(tmp_path: Path, header: str, line: int, underlined: str) -> None:
    text = computation(header, "p = token[] parameter(0)", "ROOT t = token[] after-all()")
    assert one(tmp_path, text) == (line, "result-shape", "token and opaque shapes have no dimensions: token[] "
                                                         "(XLA's parser crashes)", underlined)


def test_a_signature_over_lines_is_compared_with_its_root(tmp_path: Path) -> None:
    text = computation("ENTRY e (p: f32[4]) -> /* c\n */ f32[8]", "ROOT p = f32[4] parameter(0)")
    assert one(tmp_path, text) == (3, "result-shape", "Shape of computation e, f32[8], is not compatible with that "
                                                      "of its root instruction p, f32[4]", "f32[8]")



@pytest.mark.parametrize("header", ["ENTRY e // c\n(p: f32[4]) -> s32[4]", "ENTRY e:\n  (p: f32[4]) -> s32[4]"])
def test_a_signature_below_its_name_is_compared_with_its_root(tmp_path: Path, header: str) -> None:
    # XLA: Shape of computation e, s32[4], is not compatible with that of its root instruction p, f32[4] (oracle
    # text #72189 of the run on 1a8643e): the scanner finds no `(` on the name's line; the header read whole has.
    text = computation(header, "ROOT p = f32[4] parameter(0)")
    assert one(tmp_path, text) == (3, "result-shape", "Shape of computation e, s32[4], is not compatible with that "
                                                      "of its root instruction p, f32[4]", "s32[4]")

# ---- operands XLA infers no shape from -------------------------------------------------------------------------
UNARY = "failed to infer shape for opcode: {}, error: {} (write the result shape before the opcode)"


@pytest.mark.parametrize(("instruction", "opcode", "error"), [
    ("ROOT v = abs(t)", "abs", "Expected array argument for operand of unary operation, but got (f32[4], f32[4])."),
    ("ROOT v = tanh(t)", "tanh", "Expected array argument for operand of unary operation, but got (f32[4], f32[4])."),
    ("ROOT v = not(p)", "not", "Expected pred or an integral element type in argument to Not operation; got F32."),
    ("ROOT v = is-finite(i)", "is-finite", "Expected element type in shape to be floating point for IsFinite "
                                           "operation; got S32."),
    ("ROOT v = sign(b)", "sign", "Expected element type in shape to be signed or complex for sign operation; "
                                 "got PRED."),
    ("ROOT v = add(p, q)", "add", "Binary op with incompatible shapes: f32[4] and f32[5]."),
    ("ROOT v = add(p, i)", "add", "Binary op add with different element types: f32[4] and s32[4]."),
    ("ROOT v = add(p, t)", "add", "Expected array argument for rhs of binary operation add, but got "
                                  "(f32[4], f32[4])."),
    ("ROOT v = compare(p, i), direction=LT", "compare", "Binary op compare with different element types: f32[4] "
                                                        "and s32[4]."),
    ("m = f32[4,4] parameter(6)\n  ROOT v = add(p, m)", "add", "Shapes must be equal rank, but are f32[4] and "
                                                               "f32[4,4]"),
    # The operand's own shape inferred first: abs(i) is s32[4].
    ("a = abs(i)\n  ROOT v = is-finite(a)", "is-finite", "Expected element type in shape to be floating point "
                                                         "for IsFinite operation; got S32."),
    ("ROOT v = select(b, p, q)", "select", "Operands to select must be the same shape; got f32[4] and f32[5]."),
    # The cause a long run found (seed 20251127): the branch a broadcast of a scalar with dimensions={}, inferred f32[].
    ("a = broadcast(s), dimensions={}\n  ROOT v = select(b, a, p)", "select",
     "Operands to select must be the same shape; got f32[] and f32[4]."),
    ("ROOT v = select(i, p, p)", "select", "Select's pred operand must have PRED element type; got s32[4]."),
    ("c = pred[5] parameter(6)\n  ROOT v = select(c, p, p)", "select",
     "Operands to select and predicate must be the same shape; got f32[4] and f32[4] and pred[5]."),
    ("ROOT v = select(b, t, t)", "select", "Expected array argument for select on-true, but got (f32[4], f32[4])."),
    # The select's own shape inferred (f32[4]), then the add's.
    ("a = select(b, p, p)\n  ROOT v = add(a, q)", "add", "Binary op with incompatible shapes: f32[4] and f32[5]."),
])
def test_operands_xla_infers_no_shape_from(tmp_path: Path, instruction: str, opcode: str, error: str) -> None:
    line, code, message, underlined = one(tmp_path, entry(instruction))
    assert (line, code, message, underlined) == (9 + instruction.count("\n"), "operand-shape",
                                                 UNARY.format(opcode, error), opcode)


@pytest.mark.parametrize("instruction", [
    "ROOT v = copy(t)", "ROOT v = abs(i)", "ROOT v = real(p)", "ROOT v = add(p, s)", "ROOT v = add(b, b)",
    "a = f32[4,1] parameter(6)\n  c = f32[1,5] parameter(7)\n  ROOT v = add(a, c)",  # degenerate dimensions
    "h = bf16[4] parameter(6)\n  ROOT v = add(p, h)",  # floating types of two precisions
    "ROOT v = f32[4] abs(t)",  # a written shape: XLA's parser infers nothing
    "ROOT v = select(b, p, p)", "ROOT v = mulhi(p, p)",
    "c = pred[] parameter(6)\n  ROOT v = select(c, p, p)",  # a scalar predicate picks whole branches
    "a = select(b, p, p)\n  ROOT v = add(a, p)",
    "ROOT v = f32[4] select(b, s, p)",  # a written shape: XLA's parser infers nothing
])
def test_inferred_shapes_xla_accepts(tmp_path: Path, instruction: str) -> None:
    assert opcode_problems(tmp_path, entry(instruction)) == []


@pytest.mark.parametrize(("condition", "body", "error"), [
    # XLA: ... Condition must return a boolean; got Condition: (a: f32[4]) -> f32[4]; body: ...; init: f32[4].
    ("{ a = f32[4] parameter(0) ROOT r = f32[4] abs(a) }", "{ c = f32[4] parameter(0) ROOT n = f32[4] negate(c) }",
     "Condition must return a boolean; got Condition: (a: f32[4]) -> f32[4]; body: (c: f32[4]) -> f32[4]; "
     "init: f32[4]."),
    # XLA: ... The parameter of condition and body, the result of the body, and init must all have the same shape
    ("{ a = f32[4] parameter(0) ROOT r = pred[] constant(true) }",
     "{\n    c = f32[4] parameter(0)\n    ROOT n = f32[5] broadcast(f32[] constant(1)), dimensions={}\n  }",
     "The parameter of condition and body, the result of the body, and init must all have the same shape; got "
     "Condition: (a: f32[4]) -> pred[]; body: (c: f32[4]) -> f32[5]; init: f32[4]."),
])
def test_a_while_whose_computations_are_written_inline_gets_its_shape_inferred(
        tmp_path: Path, condition: str, body: str, error: str) -> None:
    line, code, message, underlined = one(tmp_path, entry(f"ROOT w = while(p), condition={condition}, body={body}"))
    assert (line, code, message, underlined) == (9, "operand-shape", UNARY.format("while", error), "while")


def test_opt_barrier_needs_its_shape(tmp_path: Path) -> None:
    # XLA: failed to infer shape for opcode: opt-barrier, error: Unknown operation for unary shape inference
    assert one(tmp_path, entry("ROOT v = opt-barrier(p)")) == (
        9, "shape-required", "cannot infer shape for opcode: opt-barrier; write the result shape before it",
        "opt-barrier")


@pytest.mark.parametrize(("body", "message"), [
    # XLA crashes: StaticExtentProduct(shape) == StaticExtentProduct(operand->shape()), operand f32[4]
    (("a = abs(p)", "ROOT r = f32[5] reshape(a)"), "reshape of f32[4] (4 elements) to f32[5] (5 elements)"),
    # Without a shape, broadcast's dimensions are new major sizes: f32[0,1,1,4].
    (("c = f32[1,4] reshape(p)", "d = broadcast(c), dimensions={0,1}", "ROOT r = f32[4] reshape(d)"),
     "reshape of f32[0,1,1,4] (0 elements) to f32[4] (4 elements)"),
    # A comment is a space to XLA's lexer (oracle text #3277 of a 10,000-text sample).
    (("a = abs(p)", "ROOT r = f32[5] reshape(/**/a)"), "reshape of f32[4] (4 elements) to f32[5] (5 elements)"),
    (("a = abs(p)", "ROOT r = f32[5] reshape(a // c", ")"), "reshape of f32[4] (4 elements) to f32[5] (5 elements)"),
    (("a = abs(p)", "ROOT r = f32[5] // c", "reshape(a)"), "reshape of f32[4] (4 elements) to f32[5] (5 elements)"),
    (("a = abs(p)", "ROOT r = f32[5] reshape(a/* abs(y) */)"), "reshape of f32[4] (4 elements) to f32[5] (5 elements)"),
])
def test_reshape_of_an_inferred_shape(tmp_path: Path, body: tuple[str, ...], message: str) -> None:
    assert one(tmp_path, entry(*body))[1:3] == ("operand-shape", message + " (XLA's parser crashes)")



def test_reshape_of_an_inferred_broadcast_on_a_line_of_several_items(tmp_path: Path) -> None:
    # XLA crashes: StaticExtentProduct(shape) == StaticExtentProduct(operand->shape()) shape: f32[4] operand:
    # f32[0,1,4] (oracle text #85025 of the run on 1a8643e): `d`'s shape is inferred from its own item, not
    # read from the reshape's after it, which goes on below.
    text = entry("d = broadcast(p), dimensions={0,1} ROOT r = f32[/* a", " b */4] reshape(d)")
    assert one(tmp_path, text) == (10, "operand-shape", "reshape of f32[0,1,4] (0 elements) to f32[4] (4 elements) "
                                                        "(XLA's parser crashes)", "d")
    hlo = HloModule(Document(text, FileKind.HLO_MODULE, "m.hlo"))
    assert str(inferred_shape(hlo, 9, name="d")) == "f32[0,1,4]"


def test_reshape_of_an_inferred_shape_whose_line_comment_holds_an_opcode(tmp_path: Path) -> None:
    # XLA crashes: StaticExtentProduct(shape) == StaticExtentProduct(operand->shape()) shape: f32[5] operand: f32[4]
    # (oracle text #89111 of the run on 1a8643e).
    text = entry("a = // /* ROOT x = f32[] abs(y) */c", "abs(p)", "ROOT r = f32[5] reshape(a)")
    assert one(tmp_path, text) == (11, "operand-shape", "reshape of f32[4] (4 elements) to f32[5] (5 elements) "
                                                        "(XLA's parser crashes)", "a")

def test_inferred_shape_of_a_chain() -> None:
    hlo = HloModule(Document(entry("a = abs(i)", "c = compare(a, i), direction=LT", "ROOT v = not(c)"),
                             FileKind.HLO_MODULE, "m.hlo"))
    assert [str(inferred_shape(hlo, line)) for line in (9, 10, 11)] == ["s32[4]", "pred[4]", "pred[4]"]



DECLARED = "The declared operand shape {} is not compatible with the shape of the operand instruction {}"


@pytest.mark.parametrize(("body", "line", "declared", "inferred", "underlined"), [
    # XLA: The declared operand shape f32[5]{0} is not compatible with the shape of the operand instruction f32[4]{0}
    (("a = abs(p)", "ROOT r = f32[4] negate(f32[5] a)"), 10, "f32[5]", "f32[4]", "f32[5] a"),
    # A broadcast without a shape takes its dimensions as new sizes: f32[] (oracle texts #34240 and #83612 of the
    # run on 1a8643e, a real dump's broadcast with its shape dropped).
    (("c = broadcast(f32[] s), dimensions={}", "ROOT r = f32[4] add(p, f32[4]{0} c)"), 10, "f32[4]{0}", "f32[]",
     "f32[4]{0} c"),
    # The operand on the line below its instruction's, a comment in its shape.
    (("a = abs(p)", "ROOT r = f32[4] add(p,", "    f32[/* c */5] a)"), 11, "f32[5]", "f32[4]", "f32[/* c */5] a"),
])
def test_a_declared_operand_shape_against_the_inferred_one(tmp_path: Path, body: tuple[str, ...], line: int,
                                                           declared: str, inferred: str, underlined: str) -> None:
    assert one(tmp_path, entry(*body)) == (line, "operand-shape", DECLARED.format(declared, inferred), underlined)


@pytest.mark.parametrize("body", [
    ("a = abs(p)", "ROOT r = f32[4] negate(f32[4]{0} a)"),  # layouts aside
    ("a = abs(p)", "ROOT r = f32[4] add(f32[4] a, f32[4] negate(f32[4] a))"),  # a nested instruction's operand too
    ("a = f32[4] abs(p)", "ROOT r = f32[4] negate(f32[4] a)"),
])
def test_declared_operand_shapes_xla_accepts(tmp_path: Path, body: tuple[str, ...]) -> None:
    assert opcode_problems(tmp_path, entry(*body)) == []

@pytest.mark.parametrize("selector", ["t", "a"])
def test_a_conditional_selector_that_is_no_scalar(tmp_path: Path, selector: str) -> None:
    # XLA: The first operand must be a scalar (a tuple; an inferred s32[4])
    text = entry("a = abs(i)", f"ROOT c = f32[4] conditional({selector}, p, p), branch_computations={{f, f}}")
    text = text.replace("ENTRY e", "f {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] abs(x)\n}\n\nENTRY e")
    assert one(tmp_path, text)[1:] == ("operand-shape", "The first operand must be a scalar", f"({selector}, p, p)")


def test_shapes_written_over_lines_read_as_xla_reads_them(tmp_path: Path) -> None:
    # XLA: Shape of computation e, s32[4], is not compatible with that of its root instruction p, f32[4]
    text = computation("ENTRY e (p: f32[4]) -> s32[4]", "p = f32[// c", "4] parameter(0)")
    assert one(tmp_path, text)[:2] == (2, "result-shape")
    # XLA crashes: StaticExtentProduct(shape) == StaticExtentProduct(operand->shape())
    assert one(tmp_path, entry("a = abs(p)", "ROOT r = f32[/* c */5] reshape(a)"))[1] == "operand-shape"


@pytest.mark.parametrize("instruction", ["p =/* c */ parameter(0)", "p = /* c */parameter(0)"])
def test_a_comment_is_no_shape(tmp_path: Path, instruction: str) -> None:
    # XLA: cannot infer shape for opcode: parameter
    text = computation("ENTRY e", instruction)
    assert one(tmp_path, text) == (3, "shape-required", "cannot infer shape for opcode: parameter; write the "
                                                        "result shape before it", "parameter")


@pytest.mark.parametrize("parameter", ["p = f32[4] parameter(0)", "p // its shape below\n= f32[4] parameter(0)"])
def test_a_broadcast_of_an_array_needs_its_dimensions(tmp_path: Path, parameter: str) -> None:
    # XLA: attribute dimensions is expected but not seen; the operand's shape may be written below its name.
    text = computation("ENTRY e", parameter, "ROOT b = broadcast(p)")
    assert one(tmp_path, text) == (4 + parameter.count("\n"), "missing-attribute", "attribute dimensions is expected "
                                   "but not seen (the operand of broadcast is not a scalar)", "broadcast")

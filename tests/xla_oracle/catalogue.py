"""Hand-written HLO forms, each with what XLA's parser (jaxlib 0.10.2) says of it: the forms real dumps
rarely show, at the edges of the parser's rules. `tests/conformance/test_xla_parser.py` checks each
verdict against XLA's and each form against hlo-lsp; `tests/hlo_forms.py` mutates them.

    CATALOGUE: tuple[Entry, ...]   # Entry(name, accepted, text)
"""

from __future__ import annotations

from typing import NamedTuple


class Entry(NamedTuple):
    name: str
    accepted: bool  # XLA's verdict
    text: str


P = "p = f32[4] parameter(0)"
ELEMENT_TYPES = ("pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64", "u1", "u2", "u4", "u8", "u16", "u32", "u64",
                 "f16", "bf16", "f32", "f64", "c64", "c128", "f8e5m2", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz",
                 "f8e5m2fnuz", "f8e4m3fnuz", "f8e3m4", "f4e2m1fn", "f8e8m0fnu", "token", "opaque")
BRANCHES = ("HloModule m\n\nb1 {\n  x = f32[] parameter(0)\n  ROOT y = f32[] abs(x)\n}\n\n"
            "b2 {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n\n")
ADD = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\n"


def entry(*body: str, head: str = "HloModule m", before: str = "", params: tuple[str, ...] = (P,),
          opening: str = "ENTRY e {", closing: str = "}") -> str:
    """A module: `head`, the computations `before`, then ENTRY with `params` and `body` (one line each)."""
    lines = "".join(f"  {line}\n" for line in (*params, *body))
    return f"{head}\n\n{before}{opening}\n{lines}{closing}\n"


def _loop(condition_takes: str, condition_returns: str, body_takes: str, *more: str) -> str:
    """A while's condition `c` and body `b` (the body returns its parameter's shape; `more`: the condition's
    other instructions)."""
    returned = "constant(true)" if condition_returns == "pred[]" else "constant(1)"
    lines = "".join(f"  {line}\n" for line in more)
    return (f"c {{\n  a = {condition_takes} parameter(0)\n{lines}  ROOT r = {condition_returns} {returned}\n}}\n\n"
            f"b {{\n  a = {body_takes} parameter(0)\n  ROOT r = {body_takes} abs(a)\n}}\n\n")


def _s(*body: str, **options: object) -> str:
    """A module whose one parameter is the scalar `s`."""
    return entry(*body, params=("s = f32[] parameter(0)",), **options)  # type: ignore[arg-type]


ACCEPTED = (
    Entry("no result shape", True, entry("ROOT v = abs(p)")),
    Entry("no result shape, binary", True, entry("ROOT v = add(p, p)")),
    Entry("a declared operand shape with another layout than the inferred one", True, entry(
        "a = abs(p)", "ROOT r = f32[4] negate(f32[4]{0} a)")),
    Entry("replica_groups with spaces and a comment over lines between their numbers", True, entry(
        "ROOT r = f32[4] all-reduce(p), to_apply=add, replica_groups={ {0, 2}, {/* a", " b */1 ,3} }", before=ADD)),
    Entry("no ROOT", True, entry("a = f32[4] abs(p)", "b = f32[4] negate(a)")),
    Entry("ROOT not last", True, entry("ROOT a = f32[4] abs(p)", "b = f32[4] negate(a)")),
    Entry("module name with a trailing colon", True, entry("ROOT v = f32[4] abs(p)", head="HloModule m:")),
    Entry("ENTRY name with a trailing colon", True, entry("ROOT v = f32[4] abs(p)", opening="ENTRY e: {")),
    Entry("block comments between tokens", True, entry("ROOT v = f32[4] /* a */ abs(/* b */ p /* c */)")),
    Entry("line comment after an instruction", True, entry("ROOT v = f32[4] abs(p) // note")),
    Entry("commented-out ROOT", True, entry("a = f32[4] abs(p)", "// ROOT b = f32[4] negate(a)",
                                            "ROOT c = f32[4] negate(a)")),
    Entry("commented-out ROOT, none left", True, entry("a = f32[4] abs(p)", "// ROOT b = f32[4] negate(a)")),
    Entry("block-commented ROOT", True, entry("a = f32[4] abs(p)", "/* ROOT b = f32[4] negate(a) */")),
    Entry("block comment over lines", True, entry("a = f32[4] abs(p)", "/* b = f32[4] negate(a)",
                                                  "ROOT c = f32[4] negate(a) */", "ROOT d = f32[4] negate(a)")),
    Entry("comment lines between computations", True,
          "HloModule m\n\n// a comment\n" + ADD + "/* another */\n" + entry("ROOT v = f32[4] abs(p)", head="")),
    Entry("attributes on the next line", True, entry(
        "z = f32[] constant(0)", "ROOT r = f32[] reduce(p, z),", "    dimensions={0}, to_apply=add", before=ADD)),
    Entry("operands over lines", True, entry("ROOT v = f32[4] add(p,", "    p)")),
    Entry("shape on its own line", True, entry("ROOT v =", "    f32[4]", "    abs(p)")),
    Entry("name above its `=`", True,
          entry("a // the shape below", "= f32[4] abs(p)", "ROOT b /* c */", "= negate(a)")),
    Entry("tuple shape over lines", True, entry("ROOT t = (f32[4], // first", "    f32[4]) tuple(p, p)")),
    Entry("computation header over lines", True,
          "HloModule m\n\nENTRY e (p: f32[4]) ->\n    f32[4] {\n  ROOT p = f32[4] parameter(0)\n}\n"),
    Entry("ENTRY name alone, its brace below", True, "HloModule m\n\nENTRY e\n{\n  ROOT p = f32[] parameter(0)\n}\n"),
    Entry("computation name alone, its brace below", True,
          "HloModule m\n\n" + ADD.replace("add {", "add\n{") + entry("ROOT v = f32[4] abs(p)", head="")),
    Entry("headless module, its first name alone", True, "e // c\n\n{\n  ROOT p = f32[] parameter(0)\n}\n"),
    Entry("name alone then another instruction", False, entry("a", "ROOT b = f32[4] abs(p)")),
    Entry("name alone between computations", False,
          "HloModule m\n\nfoo\n\n" + entry("ROOT v = f32[4] abs(p)", head="")),
    Entry("header without its brace", False,
          "HloModule m\n\nENTRY e (p: f32[4]) -> f32[4]\n  ROOT p = f32[4] parameter(0)\n}\n"),
    Entry("stack-frame rows over lines", True,
          "HloModule m\nFileNames\n1 // the file\n\"a.py\"\nFunctionNames\n1\n\"f\"\nFileLocations\n"
          "1 {file_name_id=1 function_name_id=1\n   line=3 end_line=3 column=1 end_column=2}\nStackFrames\n1 /* c */\n"
          "{file_location_id=1 parent_frame_id=1}\n\nENTRY e {\n"
          "  ROOT p = f32[] parameter(0), metadata={op_name=\"x\" stack_frame_id=1}\n}\n"),
    Entry("two instructions on a line, the first without its shape", True,
          entry("a = abs(p), metadata={op_name=\"a\"} ROOT b = f32[4] negate(a)")),
    Entry("block comment over lines after a comma", True,
          entry("ROOT v = f32[4] abs(p), /* a", " b */metadata={op_name=\"x\"}")),
    Entry("undefined operand after a comment over lines", False, entry("a = /* a", " b */abs(q)", "ROOT r = abs(a)")),
    Entry("computation named after a comment", True,
          entry("c = f32[] constant(0)", "ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply=/* c */ %add",
                before=ADD)),
    Entry("shape required, a comment before the opcode", False, entry("ROOT c = /* c */constant(1)")),
    Entry("two instructions on a line", True, entry("a = f32[4] abs(p) ROOT b = f32[4] negate(a)")),
    Entry("computation on one line", True, "HloModule m\n\nENTRY e { p = f32[] parameter(0) ROOT a = f32[] abs(p) }\n"),
    Entry("closing brace then the next computation", True,
          "HloModule m\n\nc {\n  x = f32[] parameter(0)\n  ROOT y = f32[] abs(x)\n} ENTRY e {\n"
          "  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"),
    Entry("an instruction, a closing brace and the next computation on one line", True,
          "HloModule m\n\nc {\n  x = f32[] parameter(0)\n  ROOT y = f32[] abs(x) } ENTRY e {\n"
          "  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"),
    Entry("a line that ends an instruction and starts another", True,
          entry("a = // the shape below", "f32[4] abs(p) ROOT b = f32[4] negate(a)")),
    Entry("ENTRY's `{` below its name, its first items after it", True,
          "HloModule m\n\nENTRY e // c\n{ p = f32[] parameter(0) ROOT a = // c\n f32[] abs(p) }\n"),
    Entry("a comment glued to the opcode of an instruction without a shape", True,
          entry("a = /* c */abs(p)", "ROOT r = f32[4] reshape(a)")),
    Entry("reshape of an inferred shape whose opcode follows a comment", False,
          entry("b = /* c */broadcast(p), dimensions={0,1}", "ROOT r = f32[4] reshape(b)")),
    Entry("attributes on the next line, then another instruction whose shape goes on below", True,
          entry("a = f32[4] abs(p),", '  metadata={op_name="a"} ROOT b = f32[// c', "4] negate(a)")),
    Entry("reshape of an inferred broadcast, a comment between its dimensions", False,
          entry("b = broadcast(p), dimensions={0,/**/1}", "ROOT r = f32[4] reshape(b)")),
    Entry("reshape of an inferred shape of another size, its opcode below its `=`", False,
          entry("a = // c", "abs(p)", "ROOT r = f32[5] reshape(a)")),
    Entry("a tuple shape, then its opcode on the line below", True,
          entry("t = (f32[4]) // its opcode below", "tuple(p)", "ROOT v = f32[4] get-tuple-element(t), index=0")),
    Entry("a block comment of several lines between attributes", True,
          entry("ROOT v = f32[4] abs(p), /* a", "// not a line comment", "b = f32[] c(d) */metadata={op_name=\"x\"}")),
    Entry("a line that ends with the next instruction's name, its `=` below", True,
          entry("a = f32[4] abs(p) ROOT b // its = below", "= f32[4] negate(a)")),
    Entry("a line that ends with the next instruction's name, no ROOT", True,
          entry("a = f32[4] abs(p) b /* its =", "below */ = f32[4] negate(a)", "ROOT c = f32[4] add(a, b)")),
    Entry("operands over lines, then ROOT and a comment over lines", True,
          "HloModule m\n\nENTRY e { p = f32[// c\n] parameter(0) ROOT /* a\n b */a = f32[] abs(p) }\n"),
    Entry("attributes on the next line, then another instruction", True,
          entry("a = f32[4] abs(p),", '  metadata={op_name="a"} ROOT b = f32[4] negate(a)')),
    Entry("an instruction's end and its computation's brace on one line", True,
          "HloModule m\n\nENTRY e { p = f32[] parameter(0) ROOT a = // c\n f32[] abs(p) }\n"),
    Entry("a line that ends an instruction and starts one that goes on below", True,
          "HloModule m\n\nENTRY e { p = // c\nf32[] parameter(0) ROOT a = // c\n f32[] abs(p) }\n"),
    Entry("ENTRY, a comment over lines, then a computation on one line", True,
          "HloModule m\n\nENTRY /* a\n b */e { p = f32[] parameter(0) ROOT a = f32[] abs(p) }\n"),
    Entry("ROOT, a comment over lines, then its instruction and the computation's brace", True,
          "HloModule m\n\nENTRY e { p = f32[] parameter(0) ROOT /* a\n b */a = f32[] abs(p) }\n"),
    Entry("a line that ends an instruction and starts one naming nothing defined", False,
          entry("a = // the shape below", "f32[4] abs(p) ROOT b = f32[4] negate(q)")),
    Entry("execution_thread", True, ADD.replace("}\n\n", '}, execution_thread="main_thread"\n\n') + entry(
        "z = f32[] constant(0)", "ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add", head="")),
    Entry("execution_thread on ENTRY", True, entry("ROOT v = f32[4] abs(p)",
                                                   closing='}, execution_thread="main_thread"')),
    Entry("execution_thread's value on the line below", True, entry(
        "ROOT v = f32[4] abs(p)", closing='}, execution_thread=\n  "main_thread"')),
    Entry("execution_thread on the line below the closing brace", True, entry(
        "ROOT v = f32[4] abs(p)", closing='}\n, execution_thread="main_thread"')),
    Entry("a comment over lines between the closing brace and execution_thread", True, entry(
        "ROOT v = f32[4] abs(p)", closing='} /* the\n thread */, execution_thread="main_thread"')),
    Entry("header attributes on the line below the module's name", True, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m\n, is_scheduled=false")),
    Entry("NaN payloads", True, entry('a = f32[] constant(-nan(0x7f))', "b = bf16[] constant(nan(0x7f))",
                                      "ROOT t = (f32[], bf16[]) tuple(a, b)", params=())),
    Entry("header attribute with a multi-line string", True, entry(
        "ROOT v = f32[4] abs(p)", head='HloModule m, frontend_attributes={a="x\ny\nz"}')),
    # XLA's parser drops an undefined operand spelt like an opcode: it reads `custom-call(p)`, `tuple(p)`
    Entry("an undefined operand spelt like an opcode", True,
          entry('ROOT t = f32[4] custom-call(p, abs), custom_call_target="x"')),
    Entry("undefined operands spelt like opcodes, first and last, one with its shape", True,
          entry("ROOT t = (f32[4]) tuple(all-reduce, p, f32[4] add-start)")),
    Entry("an operand spelt like an opcode, defined below", True,
          entry("ROOT t = (f32[4]) tuple(p, negate)", "negate = f32[4] negate(p)")),
    Entry("an operand spelt like an opcode, defined above", True,
          entry("abs = f32[4] abs(p)", "ROOT t = (f32[4], f32[4]) tuple(p, abs)")),
    Entry("an undefined operand spelt like an opcode, one operand too few then", False,
          entry("ROOT t = f32[4] add(p, abs)")),
    Entry("an undefined operand spelt like an opcode, the tuple's shape counting it", False,
          entry("ROOT t = (f32[4], f32[4]) tuple(p, abs)")),
    Entry("an undefined operand spelt like an opcode, written with `%`", False,
          entry("ROOT t = (f32[4]) tuple(p, %abs)")),
    Entry("an undefined operand not spelt like an opcode", False,
          entry('ROOT t = f32[4] custom-call(p, abz), custom_call_target="x"')),
    Entry("attribute's string over lines, `//` and `}` in it, attributes after it", True, entry(
        'ROOT v = f32[4] abs(p), frontend_attributes={a="x// c', '}, y"}, metadata={op_name="w"}')),
    Entry("header attribute's string holding an instruction and a `}` over lines", True, entry(
        "ROOT v = f32[4] abs(p)", head='HloModule m, frontend_attributes={a="x\n  ROOT v = f32[4] abs(p)\n}\nz"}')),
    Entry("a tuple whose shape is inferred, its computation's signature a tuple of its operand's", True,
          "HloModule m\n\nENTRY e (x: f32[4]) -> (f32[4]) {\n  x = f32[4] parameter(0)\n  ROOT t = tuple(x)\n}\n"),
    Entry("a key's computation on the line below it, the computation's `}` after it", True, entry(
        "z = f32[] constant(0)", "ROOT r = f32[2] reduce-window(p, z), window={size=2 stride=2}, to_apply=", " add }",
        before=ADD, closing="")),
    Entry("a key's computation below a block comment opened after the key, the computation's `}` after it", True,
          entry("z = f32[] constant(0)", "ROOT r = f32[2] reduce-window(p, z), window={size=2 stride=2}, to_apply=/* a",
                " b */add }", before=ADD, closing="")),
    Entry("a nested instruction's operand list going on below its line, after a line comment", True,
          entry("a = f32[4] add(f32[4] negate(abs(p)// ROOT z", "), f32[4] negate(p))")),
    Entry("a lone name's `=` above a line of two instructions, the last leaving backend_config's raw braces open",
          True, entry("q =// ROOT z", " f32[4] parameter(1) ROOT v = f32[4] abs(p), backend_config={no ] // c",
                      "[ json}")),
    Entry("a string over lines inside backend_config's raw braces, then a block comment over lines before a value",
          True, entry('ROOT v = f32[4] abs(p), backend_config={"a":', '"x', '{"}, metadata=/* a',
                      ' b */{op_name="q"}')),
    Entry("backend_config's raw braces over lines, a line comment in them, the computation's `}` after them", True,
          entry("ROOT v = f32[4] abs(p), backend_config={no ] [// c", " json} }", closing="")),
    Entry("a computation named after its `}`, on a line of several items", True,
          "HloModule m\nc {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] abs(x) } ENTRY e { p = f32[4] parameter(0)\n"
          "  ROOT c = f32[4] call(p), to_apply=c\n}\n"),
    Entry("while without a shape, its computations of its operand's shape", True, entry(
        "ROOT w = while(p), condition=c, body=b", before=_loop("f32[4]", "pred[]", "f32[4]"))),
    Entry("reduce-window without a shape, a window dimension per operand dimension", True, entry(
        "z = f32[] constant(0)", "ROOT r = reduce-window(p, z), window={size=2}, to_apply=add", before=ADD)),
    Entry("a header attribute's braces over lines, a comment ending before `key = value`", True, entry(
        "ROOT v = f32[4] abs(p)", head='HloModule m, frontend_attributes={a="x",b={/* a\n b */c = d}}')),
    Entry("a comment over lines in an operand list, a name and a `/*` in it on the line that ends it", True,
          entry("ROOT t = (f32[4]) tuple(p/* a", "  x /* b */)")),
    Entry("backend_config's raw braces over lines, a bracket and a line comment in them", True,
          entry("ROOT v = f32[4] abs(p), backend_config={no ] // c", "[ json}")),
    Entry("backend_config's raw braces over lines, a line in them that reads like an instruction", True,
          entry('ROOT v = f32[4] abs(p), backend_config={"a": {', "q = f32[4] parameter(0)",
                '"b": 1}}, metadata={op_name="x"}')),
    Entry("a string over lines, then a key whose value is on the line below a comment", True, entry(
        'ROOT v = f32[4] abs(p), frontend_attributes={a="x', '}, y"}, metadata=/* ROOT x = f32[] abs(y) */// c',
        '{op_name="w"}')),
    Entry("backend_config's raw braces over lines, after a comment, operands over lines before them", True,
          entry('ROOT v = f32[4] custom-call(p,', 'p), custom_call_target="x", backend_config=/* c */{"a": {',
                "q = f32[4] parameter(0)", '"b": 1}}, metadata={op_name="x"}')),
    Entry("backend_config on a line of its own below a line comment, its raw braces over lines", True,
          entry("ROOT v = f32[4] abs(p), // ROOT z", "backend_config={no ] // c", "[ json}")),
    Entry("backend_config's raw braces on the line below their key, after a line comment", True,
          entry("ROOT v = f32[4] abs(p), backend_config=// c", '{"a": {', "q = f32[4] parameter(0)",
                '"b": 1}}, metadata={op_name="x"}')),
    Entry("backend_config's raw braces holding `//` and a bracket", True,
          entry("ROOT v = f32[4] abs(p), backend_config={no // c [ json}")),
    Entry("a computation written inline on the line below its key, a line comment after the key", True, _s(
        "z = f32[] constant(0)", "ROOT r = f32[] reduce(s, z), dimensions={}, to_apply=// c",
        "{ x = f32[] parameter(0) y = f32[] parameter(1) ROOT a = f32[] add(x, y) }")),
    Entry("a string over lines inside backend_config's raw braces, a brace in it", True,
          entry('ROOT v = f32[4] abs(p), backend_config={"a": "x', '}', '{"}')),
    Entry("a string over three lines inside backend_config's raw braces, an escaped quote in it", True,
          entry('ROOT v = f32[4] abs(p), backend_config={"a":', '"x', '}\\"', '{"}, metadata={op_name="q"}')),
    Entry("a line of two instructions, the last leaving backend_config's raw braces open with a `//` in them", True,
          entry("q = f32[4] parameter(1) ROOT v = f32[4] abs(p), backend_config={no ] // c", "[ json}")),
    Entry("a block comment's opening and a string over lines inside backend_config's raw braces", True,
          entry('ROOT v = f32[4] abs(p), backend_config={no /* a "x', ' b */// c [ json}"}')),
    Entry("a block comment's opening and a brace inside backend_config's raw braces, after other items", True,
          entry("q = f32[4] parameter(1) /* c */ ROOT v = f32[4] abs(p), backend_config={no /* a {",
                " b */// c [ json}}")),
    Entry("a string over lines, then a block comment left open after it, a key's value below the comment", True,
          entry('v = f32[4] abs(p), frontend_attributes={a="x', '}, y"}, metadata=/* ROOT x =// c',
                ' f32[] abs(y) */// c', '{op_name="w"}', "ROOT q = f32[4] abs(v)")),
    Entry("backend_config's raw braces holding `//` and a block comment", True,
          entry("ROOT v = f32[4] abs(p), backend_config={no // c /**/[ json}")),
    Entry("header attributes over lines", True, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m,\n  is_scheduled=true,\n  replica_count=1")),
    Entry("module without ENTRY", True, "HloModule m\n\n" + ADD + "f {\n  p = f32[] parameter(0)\n"
          "  ROOT r = f32[] abs(p)\n}\n"),
    Entry("module without a header", True, "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] abs(p)\n}\n"),
    Entry("module without a header or ENTRY", True, "e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] abs(p)\n}\n"),
    Entry("ENTRY first, a computation after it", True, entry("ROOT v = f32[4] abs(p)") + "\nf {\n"
          "  q = f32[] parameter(0)\n  ROOT r = f32[] abs(q)\n}\n"),
    Entry("signature", True, entry("ROOT v = f32[4] abs(p)", opening="ENTRY e (p: f32[4]) -> f32[4] {")),
    Entry("signature not matching the parameters", True, entry(
        "ROOT v = f32[4] abs(p)", opening="ENTRY e (x: s32[], y: f32[]) -> f32[4] {")),
    Entry("operands with shapes", True, entry("ROOT v = f32[4] add(f32[4] p, f32[4]{0} %p)")),
    Entry("nested instruction", True, entry("ROOT v = f32[4] add(p, negate(p))")),
    Entry("nested instructions with shapes, in depth", True,
          entry("a = f32[4] add(f32[4] negate(abs(p)), f32[4] negate(p))", "ROOT v = add(a, negate(%p))")),
    Entry("nested instructions over lines, two deep at the line's start", True,
          entry("a = f32[4] add(f32[4] negate(abs(// c", "p)), f32[4] negate(p))", "ROOT v = add(a, negate(%p))")),
    Entry("nested instruction with attributes", False, entry("ROOT v = f32[4] add(p, negate(p), metadata={})")),
    Entry("nested instruction whose shape cannot be inferred", False, entry("ROOT v = f32[4] add(p, reshape(p))")),
    Entry("nested instruction of no opcode", False, entry("ROOT v = f32[4] add(p, f32[4] pp(p))")),
    Entry("nested instruction missing an attribute it requires", False,
          entry("ROOT v = f32[4] add(p, f32[4] all-gather(p))")),
    Entry("nested instruction with too many operands", False, entry("ROOT v = f32[4] add(p, negate(p, p))")),
    Entry("nested instruction inside a nested tuple", True,
          entry("ROOT v = (f32[4], (f32[4], f32[4])) tuple(p, (f32[4], f32[4]) tuple(p, negate(abs(p))))")),
    Entry("nested constant with its shape", True, entry("ROOT v = f32[4] add(p, f32[4] constant({1, 2, 3, 4}))")),
    Entry("nested constant of a literal spelt like a name", True, entry("ROOT v = f32[] add(z, f32[] constant(inf))",
                                                                         params=("z = f32[] parameter(0)",))),
    Entry("a nested instruction's operand list open at a line's end, inside a nested tuple", True,
          entry("ROOT v = (f32[4], (f32[4], f32[4])) tuple(p, (f32[4], f32[4]) tuple(p, // c",
                "negate(abs(p))))")),
    Entry("a parameter number twice in a computation opened after another's `}` on one line", False,
          "c {\n  x = f32[] parameter(0) ROOT y = f32[] abs(x) } ENTRY e { x = f32[] parameter(0)\n"
          "  p = f32[] parameter(0)\n}\n"),
    Entry("a text of one instruction, a nested constant with its shape", True, "x = f32[] abs(f32[] constant(1))\n"),
    Entry("a text of one instruction, a nested constant of inf", True, "x = f32[] abs(f32[] constant(inf))\n"),
    Entry("a text of one instruction, nested instructions with and without their shapes", True,
          "x = f32[] add(f32[] abs(f32[] y), negate(f32[] y))\n"),
    Entry("a text of one instruction, a nested constant without its shape", False, "x = f32[] abs(constant(1))\n"),
    Entry("a text of one instruction, a nested instruction of no opcode", False, "x = f32[] abs(f32[] p(1))\n"),
    Entry("nested instruction with its sigil", False, entry("ROOT v = f32[4] add(p, %negate(p))")),
    Entry("nested instruction with its sigil, no ROOT", False, entry("v = f32[4] add(p, %negate(p))")),
    Entry("empty operand slots", True, entry("ROOT v = f32[4] add(p, p,)")),
    Entry("names with dashes and dots", True, entry("a-b.c_1 = f32[4] abs(p)", "ROOT x-1 = f32[4] negate(a-b.c_1)")),
    Entry("keywords as %names", True, entry("%true = f32[4] abs(p)", "ROOT %nan = f32[4] negate(%true)")),
    Entry("glued = after a %name", True, entry("%v=f32[4] abs(p)", "ROOT w = f32[4] negate(v)")),
    Entry("glued = after a %name that follows another instruction on its line", True,
          entry("a = f32[4] abs(p) %v=f32[4] negate(a)", "ROOT w = f32[4] add(a, v)")),
    Entry("glued = after a %name that follows an instruction's attributes", True,
          entry('a = f32[4] abs(p), metadata={op_name="a"} %v=f32[4] negate(a)', "ROOT w = f32[4] add(a, v)")),
    Entry("CRLF line ends", True, entry("ROOT v = f32[4] abs(p)").replace("\n", "\r\n")),
    Entry("tabs", True, entry("ROOT v = f32[4] abs(p)").replace("  ", "\t")),
    Entry("same names in two computations", True, "HloModule m\n\nf {\n  p = f32[] parameter(0)\n"
          "  ROOT v = f32[] abs(p)\n}\n\n" + _s("ROOT v = f32[] call(s), to_apply=f", head="")),
    Entry("parameters in any order", True, entry("ROOT t = (f32[], f32[]) tuple(b, a)",
                                                 params=("b = f32[] parameter(1)", "a = f32[] parameter(0)"))),
    Entry("inline computation", True, _s("z = f32[] constant(0)", "ROOT r = f32[] reduce(s, z), dimensions={},"
                                         " to_apply={ x = f32[] parameter(0) y = f32[] parameter(1)"
                                         " ROOT a = f32[] add(x, y) }")),
    Entry("inline computations over lines", True, _s(
        "ROOT w = f32[] while(s), condition={", "  a = f32[] parameter(0)", "  ROOT t = pred[] constant(true)",
        "}, body=", "{", "  b = f32[] parameter(0)", "  ROOT n = f32[] negate(b)", "}")),
    Entry("a called computation below its key", True, _s("ROOT r = f32[] call(s), to_apply= // c", "%f",
                                                         before="f {\n  x = f32[] parameter(0)\n"
                                                                "  ROOT y = f32[] abs(x)\n}\n\n")),
    Entry("literals at the edges", True, entry(
        "a = f16[] constant(65519)", "b = s32[] constant(18446744073709551615)", "c = u64[] constant(-1)",
        "d = pred[] constant(2)", "e = f32[2] constant({1 2})", "f = f32[] constant(1e-50)",
        "ROOT t = (f16[], s32[], u64[], pred[], f32[2], f32[]) tuple(a, b, c, d, e, f)", params=())),
    Entry("one value for an array literal", True, entry("ROOT c = f32[2,3] constant(1)", params=())),
    Entry("layouts", True, entry("a = f32[2,3] {0,1} parameter(0)", "b = f32[2,3]{1,0:T(2,128)} copy(a)",
                                 "ROOT c = f32[2,3]{1,0:T(2,*)S(1)} copy(b)", params=())),
    Entry("metadata with odd commas and quotes", True, entry(
        "ROOT v = f32[4] abs(p), metadata={, op_name='x' source_line=3}")),
    Entry("backend_config that is not JSON", True, entry("ROOT v = f32[4] abs(p), backend_config={no ] [ json}")),
    Entry("input_output_alias with a trailing comma", True, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m, input_output_alias={ {}: (0, {}, may-alias), }")),
    Entry("stack frame tables", True, entry(
        "ROOT v = f32[4] abs(p), metadata={stack_frame_id=1}", head='HloModule m\n\nFileNames\n1 "a.py"\n'
        'FunctionNames\n1 "f"\nFileLocations\n1 {file_name_id=1 function_name_id=1 line=1 end_line=1 column=1 '
        'end_column=2}\nStackFrames\n1 {file_location_id=1 parent_frame_id=0}')),
    Entry("control-predecessors", True, entry("a = f32[4] abs(p)", "ROOT b = f32[4] negate(p), "
                                              "control-predecessors={a}")),
    Entry("async chain", True, "HloModule m\n\nw {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] abs(x)\n}\n\n"
          + entry("s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w",
                  "ROOT d = f32[4] async-done(s), calls=w", head="")),
    Entry("control-predecessors on a line of several items", True, entry(
        "a = f32[4] abs(p) ROOT b = f32[4] negate(p), control-predecessors={a}")),
    Entry("async chain on a line of several items", True,
          "HloModule m\n\nw {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] abs(x)\n}\n\n"
          + entry("s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w ROOT d = f32[4] async-done(s), calls=w",
                  head="")),
    Entry("custom-call with layout constraints", True, entry(
        'ROOT c = f32[4]{0} custom-call(p), custom_call_target="x", operand_layout_constraints={f32[4]{0}}')),
    Entry("shardings", True, entry(
        "a = f32[4] abs(p), sharding={devices=[2,2]0,1,2,3 last_tile_dim_replicate}",
        "b = f32[4] abs(a), sharding={{replicated}, {maximal device=1}}",
        'c = f32[4] abs(b), sharding={devices=[2]<=[2] metadata={op_name="x"}}',
        "ROOT d = f32[4] abs(c), sharding={}")),
    Entry("signature parameters without colons", True, entry("ROOT v = f32[4] abs(p)",
                                                             opening="ENTRY e (p f32[4]) -> f32[4] {")),
    Entry("names XLA keeps", True, entry("%tuple = f32[4] abs(p)", "%__xla_v = f32[4] abs(%tuple)",
                                         "ROOT %F32 = f32[4] negate(%__xla_v)")),
    Entry("layout fields", True, entry("ROOT v = f32[4]{0:D(D+~)} abs(p)",
                                       params=("p = f32[4]{0:D(C)} parameter(0)",))),
    Entry("computation named like a type", True, "HloModule m\n\n%f32 {\n  x = f32[] parameter(0)\n"
          "  ROOT y = f32[] abs(x)\n}\n\n" + _s("ROOT r = f32[] call(s), to_apply=%f32", head="")),
    # Shapes: signatures against their roots, and the shapes XLA infers where none is written.
    Entry("signature result bounded, root static", True, entry("ROOT v = f32[4]{0} abs(p)",
                                                               opening="ENTRY e (p: f32[4]) -> f32[<=4] {")),
    Entry("signature parameters other than the parameters", True, entry(
        "ROOT v = f32[4] abs(p)", opening="ENTRY e (p: s32[4], q: f32[2]) -> f32[4] {")),
    Entry("signature result against an inferred root", True, entry("ROOT v = abs(p)",
                                                                   opening="ENTRY e (p: f32[4]) -> f32[4] {")),
    Entry("binary without a shape, degenerate dimensions", True, entry(
        "ROOT v = add(a, b)", params=("a = f32[4,1] parameter(0)", "b = f32[1,5] parameter(1)"))),
    Entry("copy of a tuple without a shape", True, entry("ROOT v = copy(t)", params=("t = (f32[4]) parameter(0)",))),
    Entry("every element type", True, entry(*(f"v{number} = {kind}[] parameter({number})"
                                               for number, kind in enumerate(ELEMENT_TYPES)),
                                             "ROOT t = (s4[]) tuple(v3)", params=())),
    Entry("names before brackets in strings, comments and attribute values", True, entry(
        'ROOT v = f32[4] abs(p), metadata={op_name="s3[4] x[1]"} /* s3[2] */ // u3[1]')),
)

REJECTED = (
    Entry("f16 literal out of range", False, entry("ROOT c = f16[] constant(-65520)", params=())),
    Entry("s8 literal out of range", False, entry("ROOT c = s8[] constant(128)", params=())),
    Entry("u8 literal -1", False, entry("ROOT c = u8[] constant(-1)", params=())),
    Entry("f8e4m3fn literal out of range", False, entry("ROOT c = f8e4m3fn[] constant(465)", params=())),
    Entry("f8e8m0fnu zero", False, entry("ROOT c = f8e8m0fnu[] constant(0)", params=())),
    Entry("NaN payload out of range", False, entry("ROOT c = f32[] constant(nan(0x800000))", params=())),
    Entry("NaN payload on a type without payloads", False, entry("ROOT c = f8e4m3fn[] constant(nan(0x1))",
                                                                 params=())),
    Entry("literal with too many values", False, entry("ROOT c = f32[2] constant({1, 2, 3})", params=())),
    Entry("literal with too few values", False, entry("ROOT c = f32[2] constant({1})", params=())),
    Entry("hexadecimal integer", False, entry("ROOT c = s32[] constant(0x10)", params=())),
    Entry("input_output_alias output index out of range", False, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m, input_output_alias={ {3}: (0, {}) }")),
    Entry("input_output_alias bad kind", False, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m, input_output_alias={ {}: (0, {}, maybe) }")),
    Entry("input_output_alias shorthand", False, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m, input_output_alias={ {}: 0 }")),
    Entry("api_version unspecified", False, entry(
        'ROOT c = f32[4] custom-call(p), custom_call_target="x", api_version=API_VERSION_UNSPECIFIED')),
    Entry("api_version unknown", False, entry(
        'ROOT c = f32[4] custom-call(p), custom_call_target="x", api_version=API_VERSION_NEW')),
    Entry("result_accuracy with mode and tolerance", False, entry(
        "ROOT v = f32[4] exponential(p), result_accuracy={mode=highest, tolerance={atol=1}}")),
    Entry("result_accuracy unknown mode", False, entry("ROOT v = f32[4] exponential(p), result_accuracy={mode=low}")),
    Entry("result_accuracy on add", False, entry("ROOT v = f32[4] add(p, p), result_accuracy={mode=highest}")),
    Entry("window padding of three parts", False, entry(
        "z = f32[] constant(0)", "ROOT r = f32[4] reduce-window(p, z), window={size=2 pad=1_1_1}, to_apply=add",
        before=ADD)),
    Entry("window stride count", False, entry(
        "z = f32[] constant(0)", "ROOT r = f32[4] reduce-window(p, z), window={size=2 stride=1x1}, to_apply=add",
        before=ADD)),
    Entry("while without a shape, whose body takes another shape than its operand", False, entry(
        "ROOT w = while(p), condition=c, body=b", before=_loop("f32[4]", "pred[]", "f32[2]"))),
    Entry("while without a shape, whose condition returns no pred[]", False, entry(
        "ROOT w = while(p), condition=c, body=b", before=_loop("f32[4]", "s32[]", "f32[4]"))),
    Entry("while without a shape, whose condition takes two parameters", False, entry(
        "ROOT w = while(p), condition=c, body=b",
        before=_loop("f32[4]", "pred[]", "f32[4]", "z = f32[] parameter(1)"))),
    Entry("reduce-window without a shape or a window, of an array", False, entry(
        "z = f32[] constant(0)", "ROOT r = reduce-window(p, z), to_apply=add", before=ADD)),
    Entry("reduce-window without a shape, a window of two dimensions for a rank-1 operand", False, entry(
        "z = f32[] constant(0)", "ROOT r = reduce-window(p, z), window={size=2x2}, to_apply=add", before=ADD)),
    Entry("a string over lines inside backend_config's raw braces, the braces left open after it", False,
          entry('ROOT v = f32[4] abs(p), backend_config={"a": "x', '}"')),
    Entry("backend_config's raw braces opened twice on a line with a block comment's opening, one left open", False,
          entry("ROOT v = f32[4] abs(p), backend_config={no /* a, backend_config={no /* a", " b */// c [ json}")),
    Entry("backend_config's raw braces left open", False,
          entry('ROOT v = f32[4] abs(p), backend_config={"a": {', "q = f32[4] parameter(0)")),
    Entry("backend_config's raw braces closed inside what reads like a line comment, a brace left over", False,
          entry("ROOT v = f32[4] abs(p), backend_config={no // } }")),
    Entry("backend_config twice, the first's raw braces holding `//`", False,
          entry("ROOT v = f32[4] abs(p), backend_config={no // c}, backend_config={no // c}")),
    Entry("an operand missing before backend_config's raw braces holding `//`", False,
          entry("ROOT v = f32[4] abs(), backend_config={no // c [ json}")),
    Entry("window with commas", False, entry(
        "z = f32[] constant(0)", "ROOT r = f32[4] reduce-window(p, z), window={size=2, stride=1}, to_apply=add",
        before=ADD)),
    Entry("dim level type unknown", False, entry("ROOT v = f32[4]{0:D(X)} abs(p)")),
    Entry("physical shape in a layout", False, entry("ROOT v = f32[4]{0:P(f32[4])} abs(p)")),
    Entry("layout of the wrong rank", False, entry("ROOT v = f32[4]{1,0} abs(p)")),
    Entry("async-start shape not a tuple", False, "HloModule m\n\nw {\n  x = f32[4] parameter(0)\n"
          "  ROOT y = f32[4] abs(x)\n}\n\n" + entry("s = f32[4] async-start(p), calls=w",
                                                     "ROOT d = f32[4] async-done(s), calls=w", head="")),
    Entry("async-done of a non-async operand", False, entry("ROOT d = f32[4] async-done(p)")),
    Entry("async-done of a non-async operand on a line of several items", False,
          entry("a = f32[4] abs(p) ROOT d = f32[4] async-done(a)")),
    Entry("async-update shape differs", False, "HloModule m\n\nw {\n  x = f32[4] parameter(0)\n"
          "  ROOT y = f32[4] abs(x)\n}\n\n" + entry("s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w",
                                                     "u = ((f32[4]), f32[4], u32[]) async-update(s)",
                                                     "ROOT d = f32[4] async-done(u)", head="")),
    Entry("async-done calls another computation", False, "HloModule m\n\nw {\n  x = f32[4] parameter(0)\n"
          "  ROOT y = f32[4] abs(x)\n}\n\nv {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n\n"
          + entry("s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w",
                  "ROOT d = f32[4] async-done(s), calls=v", head="")),
    Entry("computation called by two async-starts", False, "HloModule m\n\nw {\n  x = f32[4] parameter(0)\n"
          "  ROOT y = f32[4] abs(x)\n}\n\n" + entry(
              "s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w", "d = f32[4] async-done(s)",
              "t = ((f32[4]), f32[4], s32[]) async-start(p), calls=w", "ROOT e = f32[4] async-done(t)", head="")),
    Entry("custom-call layout constraint count", False, entry(
        'ROOT c = f32[4] custom-call(p, p), custom_call_target="x", operand_layout_constraints={f32[4]{0}}')),
    Entry("custom-call layout constraint shape", False, entry(
        'ROOT c = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={f32[5]{0}}')),
    Entry("custom-call layout constraint that is no shape", False, entry(
        'ROOT c = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={a.b="x"}')),
    Entry("add with one operand", False, entry("ROOT v = f32[4] add(p)")),
    Entry("abs with two operands", False, entry("ROOT v = f32[4] abs(p, p)")),
    Entry("reduce with an odd operand count", False, entry(
        "z = f32[] constant(0)", "ROOT r = f32[] reduce(p, z, z), dimensions={0}, to_apply=add", before=ADD)),
    Entry("unknown attribute", False, entry("ROOT v = f32[4] abs(p), foo=1")),
    Entry("misspelt attribute", False, entry("ROOT v = f32[4] transpose(p), dimentions={0}")),
    Entry("duplicate attribute", False, entry("ROOT v = f32[4] transpose(p), dimensions={0}, dimensions={0}")),
    Entry("missing attribute", False, entry("ROOT v = f32[4] transpose(p)")),
    Entry("attribute value of the wrong kind", False, entry("ROOT v = f32[4] transpose(p), dimensions=0")),
    Entry("bad comparison direction", False, entry("ROOT v = pred[4] compare(p, p), direction=XX")),
    Entry("bad fusion kind", False, "HloModule m\n\nf {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] abs(x)\n}\n\n"
          + entry("ROOT v = f32[4] fusion(p), kind=kFoo, calls=f", head="")),
    Entry("shape required: reshape", False, entry("ROOT v = reshape(p)")),
    Entry("shape required: constant", False, entry("ROOT c = constant(1)", params=())),
    Entry("shape required: parameter", False, entry("ROOT v = f32[4] abs(q)", params=("q = parameter(0)",))),
    Entry("unknown opcode", False, entry("ROOT v = f32[4] atan(p)")),
    Entry("opcode in capitals", False, entry("ROOT v = f32[4] Copy(p)")),
    Entry("parameter number twice", False, entry("ROOT t = (f32[], f32[]) tuple(a, b)", params=(
        "a = f32[] parameter(0)", "b = f32[] parameter(0)"))),
    Entry("negative parameter number", False, entry("ROOT v = f32[] abs(a)", params=("a = f32[] parameter(-1)",))),
    Entry("parameter numbers with a gap", False, entry("ROOT v = f32[] abs(a)", params=("a = f32[] parameter(1)",))),
    Entry("operand defined later", False, entry("a = f32[4] abs(b)", "ROOT b = f32[4] negate(p)")),
    Entry("computation defined later", False, entry(
        "z = f32[] constant(0)", "ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add") + "\n" + ADD),
    Entry("operand undefined", False, entry("ROOT v = f32[4] abs(q)")),
    Entry("operand of another computation", False, "HloModule m\n\nf {\n  x = f32[] parameter(0)\n"
          "  ROOT y = f32[] abs(x)\n}\n\n" + _s("ROOT r = f32[] abs(y)", head="")),
    Entry("duplicate instruction", False, entry("a = f32[4] abs(p)", "a = f32[4] negate(p)", "ROOT b = f32[4] abs(a)")),
    Entry("duplicate computation", False, "HloModule m\n\n" + ADD + ADD + entry("ROOT v = f32[4] abs(p)", head="")),
    Entry("two ENTRY computations", False, entry("ROOT v = f32[4] abs(p)") + entry(
        "ROOT v = f32[4] abs(p)", head="", opening="ENTRY f {")),
    Entry("two ROOTs", False, entry("ROOT a = f32[4] abs(p)", "ROOT b = f32[4] negate(p)")),
    Entry("ROOT commented out of a block, two left", False, entry(
        "ROOT a = f32[4] abs(p)", "/* x */ ROOT b = f32[4] negate(p)")),
    Entry("trailing comma after the operands", False, entry("ROOT v = f32[4] abs(p),")),
    Entry("trailing comma in the header", False, entry("ROOT v = f32[4] abs(p)", head="HloModule m,")),
    Entry("header attribute without a comma", False, entry("ROOT v = f32[4] abs(p)",
                                                           head="HloModule m is_scheduled=true")),
    Entry("unknown header attribute", False, entry("ROOT v = f32[4] abs(p)", head="HloModule m, foo=1")),
    Entry("is_scheduled=1", False, entry("ROOT v = f32[4] abs(p)", head="HloModule m, is_scheduled=1")),
    Entry("empty computation", False, "HloModule m\n\nENTRY e {\n}\n"),
    Entry("signature result not the ROOT's", False, entry("ROOT v = f32[4] abs(p)",
                                                          opening="ENTRY e (p: f32[4]) -> s32[4] {")),
    Entry("signature with a spaced colon", False, entry("ROOT v = f32[4] abs(p)",
                                                        opening="ENTRY e (p : f32[4]) -> f32[4] {")),
    Entry("header-less with a signature and no ENTRY", False, "e (p: f32[]) -> f32[] {\n  p = f32[] parameter(0)\n"
          "  ROOT r = f32[] abs(p)\n}\n"),
    Entry("unterminated block comment", False, entry("ROOT v = f32[4] abs(p) /* open")),
    Entry("nested block comments", False, entry("ROOT v = f32[4] abs(p) /* a /* b */ c */")),
    Entry("semicolon", False, entry("ROOT v = f32[4] abs(p);")),
    Entry("glued = after a bare name", False, entry("ROOT v = f32[4] abs(q)", params=("q=f32[4] parameter(0)",))),
    Entry("name starting with __", False, entry("%__v = f32[4] abs(p)", "ROOT w = f32[4] negate(%__v)")),
    Entry("instruction named like a type", False, entry("%f32 = f32[4] abs(p)", "ROOT w = f32[4] negate(%f32)")),
    Entry("token with dimensions", False, entry("ROOT t = token[2] after-all()", params=())),
    Entry("tuple with an array shape", False, entry("ROOT t = f32[4] tuple(p)")),
    Entry("text after the last computation", False, entry("ROOT v = f32[4] abs(p)") + "trailing\n"),
    Entry("computation attribute other than execution_thread", False, entry(
        "ROOT v = f32[4] abs(p)", closing='}, thread="main"')),
    Entry("execution_thread unquoted on the line below", False, entry(
        "ROOT v = f32[4] abs(p)", closing="}, execution_thread=\n  main")),
    Entry("a closing brace's comma with no attribute after it", False, entry("ROOT v = f32[4] abs(p)", closing="},")),
    Entry("attributes before the module's name", False, entry("ROOT v = f32[4] abs(p)",
                                                               head=', is_scheduled=false\nHloModule m')),
    Entry("execution_thread unquoted", False, entry("ROOT v = f32[4] abs(p)", closing="}, execution_thread=main")),
    Entry("bad dim_labels", False, entry("k = f32[1,1,1] parameter(1)",
                                         "ROOT c = f32[1,4,1] convolution(p, k), dim_labels=b_io->bf")),
    Entry("sharding with devices on replicated", False, entry("ROOT v = f32[4] abs(p), sharding={replicated "
                                                              "devices=[2]0,1}")),
    Entry("replica_groups with explicit devices", False, entry(
        "ROOT r = f32[4] all-reduce(p), replica_groups=[2,2]0,1,2,3, to_apply=add", before=ADD)),
    Entry("empty control-predecessors", False, entry("ROOT v = f32[4] abs(p), control-predecessors={}")),
    Entry("conditional with a pred selector and branch_computations", False,
          "HloModule m\n\nf {\n  x = f32[] parameter(0)\n  ROOT y = f32[] abs(x)\n}\n\n" + entry(
              "b = pred[] parameter(0)", "x = f32[] parameter(1)",
              "ROOT c = f32[] conditional(b, x, x), branch_computations={f, f}", head="", params=())),
    Entry("execution_thread twice", False, entry("ROOT v = f32[4] abs(p)",
                                                 closing='}, execution_thread="a", execution_thread="b"')),
    Entry("header attribute twice", False, entry("ROOT v = f32[4] abs(p)",
                                                 head="HloModule m, is_scheduled=true, is_scheduled=true")),
    Entry("input_output_alias with a negative parameter", False, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m, input_output_alias={ {}: (-1, {}) }")),
    Entry("entry_computation_layout of the wrong rank", False, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{1,0}}")),
    Entry("sharding with an unknown attribute", False, entry("ROOT v = f32[4] abs(p), sharding={mode=highest}")),
    Entry("sharding of a bare number", False, entry("ROOT v = f32[4] abs(p), sharding={0}")),
    Entry("maximal sharding without its device", False, entry("ROOT v = f32[4] abs(p), sharding={maximal}")),
    Entry("parameter number after a comment, twice", False, entry("ROOT t = (f32[], f32[]) tuple(a, b)", params=(
        "a = f32[] parameter(0)", "b = f32[] parameter(/* c */0)"))),
    Entry("layout without its dimensions", False, entry("ROOT v = f32[4]{:T(128)} abs(p)")),
    Entry("instruction named token", False, entry("%token = f32[4] abs(p)", "ROOT w = f32[4] negate(%token)")),
    Entry("signature colon after a %name", False, entry("ROOT v = f32[4] abs(p)",
                                                        opening="ENTRY e (%p: f32[4]) -> f32[4] {")),
    Entry("empty text", False, ""),
    Entry("a bare instruction after the header", False, "HloModule m\n\np = f32[] parameter(0)\n"),
    Entry("a text of one instruction", True, "// a bug report's\nROOT x = f32[] add(f32[] y,\n  f32[] z)\n"),
    Entry("a text of one instruction, an operand without its shape", False, "x = f32[] abs(y)\n"),
    Entry("a text of one instruction, an operand's shape on the line above its name", True,
          "ROOT x = f32[] add(f32[] // its name below\ny, f32[] z)\n"),
    Entry("a constant whose shape and literal are below its name", True,
          entry("c = /* its shape below", "*/ f32[] constant(1e-50)", "n = bf16[// c", "] constant(nan(0x7f))",
                "ROOT t = (f32[], bf16[]) tuple(c, n)")),
    Entry("operands over lines, a block comment between them", True,
          entry("ROOT t = (f32[4], f32[4]) tuple(p,/* a", " b */ p)")),
    Entry("a text of one instruction, ROOT alone above it", True, "ROOT /* the\n root */\nx = f32[] abs(f32[] y)\n"),
    Entry("a text of one instruction, its `=` below `ROOT x`", True, "ROOT x // c\n= f32[] add(f32[] y, f32[] z)\n"),
    Entry("backend_config's raw braces after a comment", True,
          entry("ROOT v = f32[4] abs(p), backend_config=// c", "{no ] [/**/ json}")),
    Entry("`/*` inside a line comment opens no comment", False,
          entry("a = // the shape /* below", " b */f32[4] abs(p)", "ROOT b = f32[4] negate(a)")),
    Entry("a block comment inside an attribute's braces, then another instruction", True,
          entry("a = f32[4] abs(p),", "  metadata={op_name=/* a", ' b */"a"} ROOT b = f32[4] negate(a)')),
    Entry("control-predecessors' value on the line below its key", True,
          entry("a = f32[4] abs(p)", "ROOT b = f32[4] negate(p), control-predecessors=/* a", " b */{a}")),
    Entry("control-predecessors' list over lines", True,
          entry("a = f32[4] abs(p)", "ROOT b = f32[4] negate(p), control-predecessors={a/* a", " b */}")),
    Entry("an operand count checked on a line that opens a block comment", False,
          entry("a = abs() /* a", " b */ROOT b = f32[4] negate(p)")),
    Entry("a lone ROOT above an instruction with its own ROOT", False,
          "ROOT /* the\n root */\nROOT x = f32[] abs(f32[] y)\n"),
    Entry("a text of one instruction: ROOT, its name and its `=` on three lines", True,
          "ROOT // c\nx // c\n= f32[] add(f32[] y, f32[] z)\n"),
    Entry("a text of one instruction, its name alone above its `=`", True, "x // c\n= f32[] add(f32[] y, f32[] z)\n"),
    Entry("a text of one instruction, a block comment from its name to its `=`", True,
          "// a bug report\nx /* a\n b */= f32[] abs(f32[] y)\n"),
    Entry("a text of one instruction, its name alone, then another instruction", False,
          "x\n= f32[] abs(f32[] y)\nz = f32[] negate(f32[] y)\n"),
    Entry("a name alone after the module's header, an `=` below it", False, "HloModule m\nx\n= f32[] parameter(0)\n"),
    Entry("a nested instruction's operands over lines", True, entry("ROOT v = f32[4] add(p, negate(// c", "p))")),
    Entry("an inline computation in the operands-continued instruction of a lone name", True, entry(
        "ROOT w /* a", " b */= f32[4] while(p), condition={ a = f32[4] parameter(0) ROOT t = pred[] constant(true) },",
        "body={ b = f32[4] parameter(0) ROOT n = f32[4] negate(b) }")),
    Entry("a computation's `}` after an inline computation closing on a continuation line", True, entry(
        "ROOT w = f32[4] while(p), condition={ a = f32[4] parameter(0)",
        "ROOT t = pred[] constant(true) }, body={ b = f32[4] parameter(0) ROOT n = f32[4] negate(b) } }",
        closing="")),
    Entry("a closing brace, then a header whose `{` has a line comment glued", True,
          "HloModule m\n\nc {\n  x = f32[] parameter(0)\n  ROOT y = f32[] abs(x) } ENTRY e {// c\n\n"
          "  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"),
    Entry("a line comment holding an open brace", True,
          entry('ROOT v = f32[4] add(p, // c, f(p, {1', 'p), metadata={op_name="x"}')),
    Entry("`//` inside the strings of header and computation attributes", True, entry(
        "ROOT v = f32[4] abs(p)", head='HloModule m, frontend_attributes={a="http://x"}',
        closing='}, execution_thread="a//b"')),
    Entry("a lone ROOT at the end of the text", False, entry("ROOT v = f32[4] abs(p)") + "ROOT // c\n"),
    Entry("a tuple shape's layout broken by a line comment", True,
          entry("t = (f32[4]{0// c", "}, f32[4]) tuple(p, p)", "ROOT g = f32[4] get-tuple-element(t), index=0")),
    Entry("branch_computations' list over lines", True, BRANCHES + entry(
        "i = s32[] parameter(0)", "p = f32[] parameter(1)",
        "ROOT c = f32[] conditional(i, p, p), branch_computations={b1, // c", 'b2}, metadata={op_name="x"}',
        head="", params=())),
    Entry("branch_computations' list open on an operands' continuation line", True, BRANCHES + entry(
        "i = s32[] parameter(0)", "p = f32[] parameter(1)",
        "ROOT c = f32[] conditional(i, p,", "    p), branch_computations={b1, // c", 'b2}, metadata={op_name="x"}',
        head="", params=())),
    Entry("branch_computations' list over lines, on the line after the operands' comma", True, BRANCHES + entry(
        "i = s32[] parameter(0)", "p = f32[] parameter(1)", "ROOT c = f32[] conditional(i, p, p),",
        "    branch_computations={b1, // c", 'b2}, metadata={op_name="x"}', head="", params=())),
    Entry("block comments glued (`*//*`) among operands", True, entry("ROOT v = abs(/* a *//* b */ p /* c */)")),
    Entry("an operand list closing on a continuation line, an inline computation opening after it", True, entry(
        "ROOT w = f32[4] while(p/* a", " b */), condition={ a = f32[4] parameter(0)",
        "ROOT t = pred[] constant(true) }, body={ b = f32[4] parameter(0) ROOT n = f32[4] negate(b) } }",
        closing="")),
    Entry("an inline computation's `}` starting a line, then attributes and the computation's `}`", True, entry(
        "ROOT w = f32[4] while(p), condition={ a = f32[4] parameter(0)", "ROOT t = pred[] constant(true)",
        "}, body={ b = f32[4] parameter(0) ROOT n = f32[4] negate(b) } }", closing="")),
    Entry("a tuple shape's brackets open over lines before its opcode", True, entry(
        "t = (f32[4]{0// c", "}, // c", "f32[4]) tuple(p, p)", "ROOT r = f32[4] get-tuple-element(t), index=0")),
    Entry("control-predecessors' braced list opened on the line below its key", True, entry(
        "a = f32[4] abs(p)", "ROOT b = f32[4] negate(p), control-predecessors=/* a", " b */{// c", "a}")),
    Entry("branch_computations' braced list opened on the line below its key", True, BRANCHES + entry(
        "i = s32[] parameter(0)", "p = f32[] parameter(1)", "ROOT c = f32[] conditional(i, p, p), branch_computations=",
        "{b1, // c", 'b2}, metadata={op_name="x"}', head="", params=())),
    Entry("a string over lines, its key's value below the line that closes it", True, entry(
        'ROOT v = f32[4] abs(p), frontend_attributes={a="x// c', '}, y"}, metadata=// c', '{op_name="w"}')),
    Entry("while without a shape, its condition and body written inline", True, entry(
        "ROOT w = while(p), condition={ a = f32[4] parameter(0) ROOT t = pred[] constant(true) }, body={",
        "b = f32[4] parameter(0)", "ROOT n = f32[4] negate(b) }")),
    Entry("an inferred shape of two operands, one written as an instruction", True,
          entry("ROOT v = add(f32[4] constant({1,2,3,4}), p)")),
    Entry("a block comment's opening and a string over lines inside raw braces opened on an instruction's second "
          "line", True, "e {\n  p = f32[4] parameter(0)\n  ROOT v = f32[4] abs(p),\n      backend_config={no /* a "
          '"x\n   b */// c [ json}"}\n}\n'),
    Entry("header attribute's string over lines, a line comment after its closing quote", True,
          'HloModule m, frontend_attributes={a="x\nz"// c\n}\nENTRY e {\n  p = f32[4] parameter(0)\n}\n'),
    Entry("an opcode below its shape and a line comment, then `}` and the next computation on its line", True,
          "c {\n  x = f32[] parameter(0)\n  ROOT y = f32[] // ROOT z\nabs(x) } ENTRY e {\n"
          "  p = f32[] parameter(0)\n}\n"),
    Entry("a string over lines holding a whole instruction's line", True, entry(
        'ROOT v = f32[4] abs(p), frontend_attributes={a="x', "q = f32[4] parameter(0)", 'y"}')),
    Entry("backend_config's string over lines holding JSON, a lone `}` on a line of it", True, entry(
        'ROOT v = f32[4] custom-call(p), custom_call_target="x", backend_config="{', '  \\"a\\": {', "}", '}"')),
    Entry("a string over lines holding a computation's header and a whole instruction", True, entry(
        'ROOT v = f32[4] abs(p), metadata={op_name="x', "}", "", "c {", "  q = f32[4] parameter(0)",
        'y"source_file="z.py"}')),
    Entry("a string over lines whose closing line has quotes of its own", True, entry(
        'ROOT v = f32[4] abs(p), metadata={op_name="x',
        '  q = f32[4] abs(p), metadata={op_name=" source_line=1 source_file="', 'z.py"}')),
    Entry("a quote typed in metadata: the next instruction's first quote cannot end the string", False, entry(
        'a = f32[4] abs(p), metadata={op_name="a"}"', 'ROOT b = f32[4] negate(a), metadata={op_name="b"}')),
    Entry("a string left open to the end of the text", False, entry(
        'a = f32[4] abs(p), metadata={op_name="a}', "ROOT b = f32[4] negate(a)")),
    Entry("a parameter number twice in a body written inline, a block comment over lines between them", False,
          entry("ROOT w = f32[4] while(p),", "condition={ a = f32[4] parameter(0)", "/* a",
                " b */ q = f32[4] parameter(0)",
                "ROOT t = pred[] constant(true) }, body={ b = f32[4] parameter(0) ROOT n = f32[4] negate(b) }")),
    Entry("a parameter number twice in a body written inline on the line below its key, after a line comment", False,
          entry("ROOT w = f32[4] while(p), condition=// c", "{ a = f32[4] parameter(0)",
                "q = f32[4] parameter(0) ROOT r = pred[] constant(true) }, body={ b = f32[4] parameter(0) ROOT n = "
                "f32[4] negate(b) }")),
    Entry("an undefined computation named after a body written inline closes on its line", False,
          entry("ROOT w = f32[4] while(p), condition=", "{ a = f32[4] parameter(0)",
                "ROOT r = pred[] constant(true) }, body=b")),
    Entry("a computation named inside itself", False, entry("ROOT c = f32[4] call(p), to_apply=e")),
    Entry("a tuple whose shape is inferred, against its computation's signature", False,
          "HloModule m\n\nENTRY e (x: f32[4]) -> f32[4] {\n  x = f32[4] parameter(0)\n  ROOT t = tuple(x)\n}\n"),
    Entry("an undefined computation named on the line below a body written inline", False,
          entry("ROOT w = f32[4] while(p), condition= { a = f32[4] parameter(0)",
                "ROOT r = pred[] constant(true) },", "    body=b")),
    Entry("a computation named inside itself, on the line of its `}`", False,
          entry("ROOT c = f32[4] call(p), to_apply=e }", closing="")),
    Entry("while without a shape, whose condition's root and `}` share a line and which takes no parameter", False,
          entry("ROOT w = while(p), condition=c, body=b",
                before="c {\n  ROOT r = pred[] constant(true) }\nb {\n  a = f32[4] parameter(0)\n}\n\n")),
    Entry("while without a shape, whose body's parameter and root share a line, and whose condition has no ROOT",
          False, entry("ROOT w = while(p), condition=c, body=b",
                       before="c {\n  a = f32[4] parameter(0)\n}\nb {\n  a = f32[4] parameter(0) ROOT r = f32[4] abs(a)"
                              "\n}\n\n")),
    Entry("a root whose name follows a block comment over lines, its shape over lines, not the signature's", False,
          "HloModule m\nENTRY e (p: f32[4]) -> s32[4] {\n  /* a\n b */p = f32[4// c\n] parameter(0) }\n"),
    Entry("a header after a block comment over lines, its result not its root's", False,
          "HloModule m\nENTRY /* a\n b */e // c\n(p: f32[4]) -> s32[4] {\n  p = f32[4] parameter(0)\n}\n"),
    Entry("a call whose shape is inferred, fewer operands than the parameters on one line of its computation", False,
          _s("ROOT r = call(s), to_apply=f",
             before="f {\n  x = f32[] parameter(0) y = f32[] parameter(1) ROOT z = f32[] add(x, y)\n}\n\n")),
    Entry("a dot whose shape is inferred, against its computation's signature", False, entry(
        "b = s8[3,4] parameter(1)", "ROOT d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        params=("a = s8[2,3] parameter(0)",), opening="ENTRY e (a: s8[2,3], b: s8[3,4]) -> s32[2,4] {")),
    Entry("a dot whose shape is inferred with batch dimensions, its signature's", True, entry(
        "b = f32[2,4,5] parameter(1)", "ROOT d = dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
        "rhs_batch_dims={0}, rhs_contracting_dims={1}", params=("a = f32[2,3,4] parameter(0)",),
        opening="ENTRY e (a: f32[2,3,4], b: f32[2,4,5]) -> f32[2,3,5] {")),
    Entry("a signature over lines, a block comment at its break, a tuple parameter after it", True, entry(
        "ROOT v = f32[4] abs(p)", opening="ENTRY e (/* a\n b */t: (f32[], /*index=1*/f32[4]), p: f32[4]) -> f32[4] {",
        params=("t = (f32[], f32[4]) parameter(0)", "p = f32[4] parameter(1)"))),
    Entry("a block comment closing early in the entry computation layout (comments do not nest)", False, entry(
        "ROOT v = f32[4] abs(p)",
        head="HloModule m, entry_computation_layout={(/*index=/* x */0*/f32[4]{0})->f32[4]{0}}")),
    Entry("a dot whose shape is inferred, its batch dimensions on one side only", False, entry(
        "b = f32[4,5] parameter(1)", "ROOT d = dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
        "rhs_contracting_dims={0}", params=("a = f32[2,3,4] parameter(0)",))),
    Entry("a dot whose shape is inferred, contracting dimensions of two sizes", False, entry(
        "b = f32[4,5] parameter(1)", "ROOT d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        params=("a = f32[2,3] parameter(0)",))),
    Entry("a parameter number twice below a header over lines, a block comment in it", False, entry(
        "b = f32[] parameter(0)", params=("a = f32[] parameter(0)",), opening="ENTRY /* a\n b */e {")),
    Entry("a call whose shape is inferred, with fewer operands than its computation's parameters", False, entry(
        "ROOT r = call(), to_apply= // c", "%f", before="f {\n  x = f32[] parameter(0)\n}\n\n", params=())),
    Entry("a lone ROOT above a computation", False, "HloModule m\n\nROOT\n" + entry("ROOT v = f32[4] abs(p)", head="")),
    Entry("a text of two instructions", False, "x = f32[] abs(f32[] y)\nz = f32[] abs(x)\n"),
    Entry("signature result not the last instruction's", False, entry(
        opening="ENTRY e (p: f32[4]) -> s32[4] {")),
    Entry("signature result other than an inferred root", False, entry("ROOT v = abs(p)",
                                                                    opening="ENTRY e (p: f32[4]) -> f32[3] {")),
    Entry("signature below its name, its result not the root's", False, entry(
        "ROOT v = f32[4] abs(p)", opening="ENTRY e // c\n(p: f32[4]) -> s32[4] {")),
    Entry("token with dimensions in a signature", False, entry(
        "ROOT t = token[] after-all()", params=("p = token[] parameter(0)",),
        opening="ENTRY e (p: token[2]) -> token[] {")),
    Entry("unary of a tuple without a shape", False, entry("ROOT v = abs(t)", params=("t = (f32[4]) parameter(0)",))),
    Entry("unary of an element type it does not take", False, entry("ROOT v = not(p)")),
    Entry("opt-barrier without a shape", False, entry("ROOT v = opt-barrier(p)")),
    Entry("binary of two sizes without a shape", False, entry(
        "ROOT v = add(p, q)", params=(P, "q = f32[5] parameter(1)"))),
    Entry("reshape of an inferred shape of another size", False, entry("a = abs(p)", "ROOT r = f32[5] reshape(a)")),
    Entry("reshape of an inferred broadcast", False, entry(
        "b = broadcast(p), dimensions={0,1}", "ROOT r = f32[4] reshape(b)")),
    Entry("conditional of a tuple selector", False, "HloModule m\n\nf {\n  x = f32[4] parameter(0)\n"
          "  ROOT y = f32[4] abs(x)\n}\n\n" + entry("ROOT c = f32[4] conditional(t, p, p), branch_computations={f, f}",
                                                     head="", params=(P, "t = (s32[]) parameter(1)"))),
    Entry("a parameter number twice, the header after a `}` on its line", False,
          "HloModule m\n\nc {\n  x = f32[] parameter(0)\n  ROOT y = f32[] abs(x) } ENTRY e {\n"
          "  x = f32[] parameter(0)\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"),
    Entry("a parameter number twice in a body whose `{` opens on an instruction's line", False, entry(
        "ROOT w = f32[4] while(p),", "    condition={ a = f32[4] parameter(0)", "  q = f32[4] parameter(0)",
        "  ROOT t = pred[] constant(true) }, body={ b = f32[4] parameter(0) ROOT n = f32[4] negate(b) }")),
    Entry("a declared operand shape other than the inferred one", False, entry(
        "a = abs(p)", "ROOT r = f32[4] negate(f32[5] a)")),
    Entry("a declared operand shape other than an inferred broadcast's", False, entry(
        "s = f32[] parameter(1)", "b = broadcast(f32[] s), dimensions={}", "ROOT r = f32[4] add(p, f32[4]{0} b)")),
    Entry("custom-call layout constraint shape over lines", False, entry(
        'ROOT c = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={f32[5]{// c', "0}}")),
    Entry("replica_groups with a space between two numbers", False, entry(
        "ROOT r = f32[4] all-reduce(p), to_apply=add, replica_groups={{0 1}}", before=ADD)),
    Entry("a text of two instructions, the first continued below its `=`", False,
          "x =// ROOT z\n f32[] abs(f32[] y) z = f32[] abs(x)\n"),
    Entry("reshape of an inferred broadcast on its line, the reshape's shape going on below", False, entry(
        "b = broadcast(p), dimensions={0,1} ROOT r = f32[/* a", " b */4] reshape(b)")),
    Entry("reshape of an inferred shape, an opcode in the line comment after its operand's `=`", False, entry(
        "a = // /* ROOT x = f32[] abs(y) */c", "abs(p)", "ROOT r = f32[5] reshape(a)")),
    Entry("while without a shape, its condition written inline returning no pred[]", False, entry(
        "ROOT w = while(p), condition={ a = f32[4] parameter(0) ROOT t = f32[4] abs(a) }, "
        "body={ b = f32[4] parameter(0) ROOT n = f32[4] negate(b) }")),
    Entry("while without a shape, its body written inline over lines returning another shape", False, entry(
        "ROOT w = while(p), condition=c, body={", "b = f32[4] parameter(0)",
        "ROOT n = f32[5] broadcast(f32[] constant(1)), dimensions={} }",
        before="c {\n  a = f32[4] parameter(0)\n  ROOT r = pred[] constant(true)\n}\n\n")),
    Entry("a computation header's text in a string over lines, then a parameter number twice", False, entry(
        'ROOT v = f32[4] abs(p), metadata={op_name="x }', "c {", 'y"source_file="z.py"}', "q = f32[4] parameter(0)")),
    Entry("while without a shape, its body written inline returning a broadcast of an operand written inline", False,
          entry("ROOT w = while(p), condition=c, body={", "b = f32[4] parameter(0)",
                "ROOT n = broadcast(f32[] constant(1)), dimensions={} }",
                before="c {\n  a = f32[4] parameter(0)\n  ROOT r = pred[] constant(true)\n}\n\n")),
    Entry("an inferred shape of an operand written as an instruction, of a type the opcode does not take", False,
          entry("ROOT v = is-finite(s32[] constant(1))")),
    Entry("an inferred shape of two operands, one written as an instruction of another size", False,
          entry("ROOT v = add(f32[5] constant({1,2,3,4,5}), p)")),
    Entry("async-start without calls", False, entry("s = ((f32[4]), f32[4], s32[]) async-start(p)",
                                                    "ROOT d = f32[4] async-done(s)")),
    Entry("an element type no one defined, s3", False, entry("ROOT q = s3[] parameter(0)", params=())),
    Entry("an element type in capitals", False, entry("ROOT q = F32[4] abs(p)")),
    Entry("tuple as an element type", False, entry("ROOT q = tuple[] parameter(0)", params=())),
    Entry("an unknown element type in a tuple shape", False, entry("ROOT q = (f32[4], s3[]) tuple(p, p)")),
    Entry("an unknown element type in a signature", False,
          "HloModule m\n\nENTRY e (p: s3[4]) -> f32[4] {\n  ROOT p = f32[4] parameter(0)\n}\n"),
    Entry("an unknown element type in entry_computation_layout", False, entry(
        "ROOT v = f32[4] abs(p)", head="HloModule m, entry_computation_layout={(s3[4]{0})->f32[4]{0}}")),
    Entry("an unknown element type in an operand's shape", False, entry("ROOT q = f32[4] add(s3[4] p, f32[4] p)")),
    Entry("an unknown element type after a name with its `=` glued", False, entry("%v=F32[4] abs(p)",
                                                                                   "ROOT w = f32[4] negate(v)")),
)

CATALOGUE: tuple[Entry, ...] = ACCEPTED + REJECTED

"""hlo-header, hlo-computation-attributes and hlo-instruction-names: what XLA's HLO text parser (jaxlib
0.10.2) checks of the module header's attributes, of what follows a computation's `}` and of instruction
names. Every text said rejected here was run through XLA's parser and rejected, with the message quoted."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from helpers import SPLIT_MLP, module_of, problems_of
from hlo_lsp.analysis.run import check_module
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.problems import Severity

BODY = "\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT v = f32[4] abs(p)\n}\n"
TUPLE_BODY = "\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT v = (f32[4], f32[4]) tuple(p, p)\n}\n"
CODES = frozenset(("unknown-attribute", "duplicate-attribute", "attribute-value", "layout", "instruction-name",
                   "syntax"))


def the_problem(tmp_path: Path, text: str) -> tuple[int, str, str, str]:
    """The one problem of these checks: (line, code, message, the text it underlines)."""
    path = tmp_path / "m.hlo"
    path.write_text(text)
    found = [problem for problem in problems_of(path) if problem.code in CODES]
    assert len(found) == 1, [f"{p.code}: {p.message}" for p in found]
    problem = found[0]
    assert problem.severity is Severity.ERROR and problem.range.start.line == problem.range.end.line
    line = text.split("\n")[problem.range.start.line]
    return problem.range.start.line, problem.code, problem.message, line[
        problem.range.start.character:problem.range.end.character]


def no_problem(tmp_path: Path, text: str) -> bool:
    path = tmp_path / "m.hlo"
    path.write_text(text)
    return not [problem for problem in problems_of(path) if problem.code in CODES]


# ---- the module header -------------------------------------------------------------------------------
ALLOWED = ("alias_passthrough_params, allow_spmd_sharding_propagation_to_output, "
           "allow_spmd_sharding_propagation_to_parameters, buffer_donor, entry_computation_layout, "
           "frontend_attributes, input_output_alias, is_scheduled, num_partitions, origin_recovery_table, "
           "replica_count")


@pytest.mark.parametrize(("header", "code", "message", "underlined"), [
    # XLA: unexpected attribute "foo". Allowed attributes: alias_passthrough_params, ...
    ("HloModule m, foo=1", "unknown-attribute", f'unexpected attribute "foo" in the module header; allowed: {ALLOWED}',
     "foo"),
    # XLA: expects true or false
    ("HloModule m, is_scheduled=1", "attribute-value", "is_scheduled: expects true or false", "1"),
    # XLA: attribute is_scheduled already exists
    ("HloModule m, is_scheduled=true, is_scheduled=true", "duplicate-attribute",
     "attribute is_scheduled already exists", "is_scheduled"),
    # XLA: expects integer
    ("HloModule m, replica_count=x", "attribute-value", "replica_count: expects integer", "x"),
    # XLA: Expected list of booleans or true/false value
    ("HloModule m, allow_spmd_sharding_propagation_to_output=1", "attribute-value",
     "allow_spmd_sharding_propagation_to_output: expects true, false or a list of booleans, e.g. {true,false}", "1"),
    # XLA: Expected format: (<input_param>, <input_param_shape_index>)
    ("HloModule m, buffer_donor={ 0 }", "attribute-value", "buffer_donor: expected `(parameter number, "
     "{parameter index})` items, separated by commas", " 0 "),
    # XLA: Dimensions size is 1, but minor to major size is 2.
    ("HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{1,0}}", "layout",
     "the layout orders 2 dimensions (minor to major), but its shape has 1", "{1,0}"),
])
def test_header_attributes_xla_rejects(tmp_path: Path, header: str, code: str, message: str, underlined: str) -> None:
    assert the_problem(tmp_path, header + BODY) == (0, code, message, underlined)


@pytest.mark.parametrize(("alias", "message", "underlined"), [
    # XLA: Unexpected aliasing kind; expected SYSTEM or USER
    ("{ {}: (0, {}, maybe) }", "unexpected aliasing kind 'maybe': expected may-alias or must-alias", "maybe"),
    # XLA: Expected format: <output_shape_index>: (<input_param>, <input_param_shape_index>) OR ...
    ("{ {}: 0 }", "expected `{output index}: (parameter number, {parameter index})`, perhaps with `, may-alias` "
     "or `, must-alias` before the `)`", " {}: 0 "),
    # XLA: Trying to set up alias at {3} which is an invalid index for shape f32[4]
    ("{ {3}: (0, {}) }", "output index {3} is not an index of the entry computation's result shape f32[4]", "{3}"),
    # XLA: RET_CHECK failure ... param_number >= 0 -1
    ("{ {}: (-1, {}) }", "a parameter number is never negative", "-1"),
])
def test_input_output_alias_xla_rejects(tmp_path: Path, alias: str, message: str, underlined: str) -> None:
    text = f"HloModule m, input_output_alias={alias}" + BODY
    assert the_problem(tmp_path, text) == (0, "attribute-value", f"input_output_alias: {message}", underlined)


def test_output_indices_are_read_in_the_entry_roots_shape(tmp_path: Path) -> None:
    # XLA: Trying to set up alias at {1,0} which is an invalid index for shape (f32[4], f32[4])
    text = "HloModule m, input_output_alias={ {1}: (0, {}), {1,0}: (0, {}) }" + TUPLE_BODY
    assert the_problem(tmp_path, text)[2:] == (
        "input_output_alias: output index {1,0} is not an index of the entry computation's result shape "
        "(f32[4], f32[4])", "{1,0}")


def test_output_indices_are_read_in_the_entry_roots_inferred_shape(tmp_path: Path) -> None:
    # XLA: Trying to set up alias at {3} which is an invalid index for shape f32[4]
    text = ("HloModule m, input_output_alias={ {3}: (0, {}) }\n\n"
            "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT v = abs(p)\n}\n")
    assert the_problem(tmp_path, text)[2:] == (
        "input_output_alias: output index {3} is not an index of the entry computation's result shape f32[4]", "{3}")


@pytest.mark.parametrize("header", [
    "HloModule m, allow_spmd_sharding_propagation_to_output=true",
    "HloModule m, allow_spmd_sharding_propagation_to_output={true,false}",
    "HloModule m, input_output_alias={ {}: (0, {}, must-alias), {}: (0, {}), }",
    "HloModule m, input_output_alias={ {}: (5, {5}) }",
    "HloModule m, buffer_donor={ (0, {}), (0, {}) }",
    "HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}",
    "HloModule m, origin_recovery_table={}",
    "HloModule m,\n  is_scheduled=true,\n  num_partitions=2, replica_count=-1",
    'HloModule m, frontend_attributes={url="http://x"}',  # a `//` in a string comments nothing
])
def test_header_attributes_xla_accepts(tmp_path: Path, header: str) -> None:
    assert no_problem(tmp_path, header + BODY)


# ---- after a computation's `}` ---------------------------------------------------------------------------
CLOSED = "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT v = f32[4] abs(p)\n}"


@pytest.mark.parametrize(("closing", "code", "message", "underlined"), [
    # XLA: expects string
    (", execution_thread=x", "attribute-value", 'execution_thread: expects a quoted string, e.g. '
     'execution_thread="main"', "x"),
    # XLA: attribute execution_thread already exists
    (', execution_thread="a", execution_thread="b"', "duplicate-attribute", "attribute execution_thread already exists",
     "execution_thread"),
    # XLA: unexpected attribute "foo". Allowed attributes: execution_thread
    (", foo=1 // x", "unknown-attribute", 'unexpected attribute "foo" after a computation; the one allowed is '
     "execution_thread", "foo"),
])
def test_computation_attributes_xla_rejects(tmp_path: Path, closing: str, code: str, message: str,
                                            underlined: str) -> None:
    assert the_problem(tmp_path, CLOSED + closing + "\n") == (5, code, message, underlined)


def test_an_attribute_on_the_line_below_a_lone_closing_brace_is_checked(tmp_path: Path) -> None:
    # XLA: 7:3 unexpected attribute "foo". Allowed attributes: execution_thread (its lexer reads on past the line end)
    assert the_problem(tmp_path, CLOSED + "\n, foo=1\n") == (
        6, "unknown-attribute", 'unexpected attribute "foo" after a computation; the one allowed is execution_thread',
        "foo")


def test_computation_attributes_xla_accepts(tmp_path: Path) -> None:
    assert no_problem(tmp_path, CLOSED + ", execution_thread='main'\n")
    assert no_problem(tmp_path, CLOSED + ' // e, execution_thread=x\n')
    assert no_problem(tmp_path, CLOSED + ', execution_thread="a//b"\n')


# ---- instruction names -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "message"), [
    # XLA: illegal instruction name: f32; suggest renaming to: f32_
    ("%f32", "illegal instruction name f32: XLA's parser refuses an element type's name; rename it, e.g. to f32_"),
    ("%token", "illegal instruction name token: XLA's parser refuses an element type's name; rename it, e.g. to "
     "token_"),
    # XLA: expects name (the lexer reads a bare f32 as a type)
    ("f32", "illegal instruction name f32: XLA's parser refuses an element type's name; rename it, e.g. to f32_"),
    # XLA: illegal instruction name: __v; suggest renaming to: a_v
    ("%__v", "illegal instruction name __v: XLA's parser refuses a name starting with __ (reserved for backends); "
     "rename it, e.g. to a_v"),
])
def test_instruction_names_xla_rejects(tmp_path: Path, name: str, message: str) -> None:
    text = f"HloModule m\n\nENTRY e {{\n  p = f32[4] parameter(0)\n  {name} = f32[4] abs(p)\n" \
           f"  ROOT w = f32[4] negate({name})\n}}\n"
    assert the_problem(tmp_path, text) == (4, "instruction-name", message, name.lstrip("%"))


@pytest.mark.parametrize("name", ["inf", "nan", "true", "maximal", "unknown"])
def test_a_keyword_of_xla_s_lexer_is_no_name_without_its_sigil(tmp_path: Path, name: str) -> None:
    # XLA: expects name, at the definition; `%inf` is a name
    text = (f"HloModule m\n\nENTRY e {{\n  p = f32[4] parameter(0)\n  {name} = f32[4] abs(p)\n"
            "  ROOT w = f32[4] negate(p)\n}\n")
    message = f"{name} is a keyword of XLA's HLO text, not a name (XLA: expects name): write it `%{name}`, or rename it"
    assert the_problem(tmp_path, text) == (4, "instruction-name", message, name)
    assert no_problem(tmp_path, text.replace(f"  {name} =", f"  %{name} ="))


def test_instruction_names_xla_accepts(tmp_path: Path) -> None:
    names = ("%tuple", "%__xla_v", "%_v", "%F32", "%opaque_type", "%invalid")
    lines = "".join(f"  {name} = f32[4] abs(p)\n" for name in names)
    computation = "%f32 {\n  x = f32[] parameter(0)\n  ROOT y = f32[] abs(x)\n}\n\n"
    assert no_problem(tmp_path, f"HloModule m\n\n{computation}ENTRY e {{\n  p = f32[4] parameter(0)\n{lines}}}\n")


def test_a_closed_modules_instruction_names_are_not_kept() -> None:
    """The check kept the last module's set of names (a 40 MB module's 300,000 names: 35 MB held after
    its files were closed, until another module was checked)."""
    module = module_of(Path(f"{SPLIT_MLP}.txt"))
    assert module.hlo is not None
    names = module.hlo.defined_names()[Role.INSTRUCTION_DEF]
    check_module(module)
    del module
    gc.collect()
    assert sys.getrefcount(names) == 2  # `names` here, and getrefcount's argument

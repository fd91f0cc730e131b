"""Fast validation of whole modules: template caches, long headers, one attribute of a header."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import COMBINED_MLP
from hlo_lsp.parsing import hlo_syntax
from hlo_lsp.parsing.hlo_syntax import parse_computation_header, parse_module_header
from hlo_lsp.parsing.syntax import ModuleHeader, ParseError
from hlo_lsp.parsing.validation import (
    LONG_ITEM,
    computation_header_error,
    instruction_error,
    instruction_template,
    module_header_attribute,
    module_header_error,
    without_repeated_items,
)

COMBINED_MLP_HLO = Path(str(COMBINED_MLP) + ".txt")


def line(path: Path, needle: str) -> str:
    found = [text for text in path.read_text().split("\n") if needle in text]
    assert len(found) == 1, f"{needle!r} is on {len(found)} lines of {path.name}"
    return found[0]


def test_instruction_error_caches_a_valid_template_and_still_reports_a_broken_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    valid = line(COMBINED_MLP_HLO, "  dot.20 = ")
    assert instruction_error(valid) is None
    same_shape = line(COMBINED_MLP_HLO, "  dot.32 = ")
    assert instruction_template(same_shape) == instruction_template(valid)

    def must_not_parse(text: str) -> object:
        raise AssertionError(f"parsed again: {text}")

    with monkeypatch.context() as patch:
        patch.setattr(hlo_syntax, "parse_instruction", must_not_parse)
        assert instruction_error(same_shape) is None  # known template: not parsed again
    broken = same_shape.replace("dot(add_maximum_fusion, Arg_2.3)", "dot(add_maximum_fusion, Arg_2.3")
    error = instruction_error(broken)
    assert isinstance(error, ParseError) and "`)`" in error.message
    assert error.start == broken.index(" lhs_contracting_dims") + 1 + len("lhs_contracting_dims")


def test_template_keeps_punctuation_and_layout_letters() -> None:
    assert instruction_template("  %c = f32[]{:T(128)S(1)} constant(-inf)") == "  %x = x[]{:T(0)S(0)} x(-inf)"
    assert instruction_template('ROOT %a = f32[2] add(%b, %c), metadata={op_name="x.y"}') == \
        'ROOT %x = x[0] x(%x, %x), x={x=""}'


# ---- long headers ----------------------------------------------------------------------------


def long_module_header(parameters: int = 2000) -> str:
    """A header like a large model's: every parameter's shape in entry_computation_layout."""
    shapes = ", ".join(("f32[128,64]{1,0}", "f32[256]{0}", "/*index=5*/f32[64]{0}", "bf16[64,192]{1,0}")[i % 4]
                       for i in range(parameters))
    return (f"HloModule jit_fwd, is_scheduled=true, input_output_alias={{ {{0}}: (3, {{}}, may-alias), "
            f"{{1}}: (7, {{1}}, may-alias) }}, entry_computation_layout={{({shapes})->(f32[8]{{0}}, {shapes})}}, "
            'frontend_attributes={fingerprint_before_lhs="3f2a"}')


def test_list_items_that_repeat_an_earlier_item_are_removed() -> None:
    assert without_repeated_items("x={(x[0]{0}, x[0]{0}, /*x=0*/x[0]{0}, x[0,0]{0,0})->(x[0]{0}, x[0]{0})}") == \
        "x={(x[0]{0}, /*x=0*/x[0]{0})->(x[0]{0})}"
    assert without_repeated_items("f(a, b, a, (c, c), b") == "f(a, b, (c)"  # unclosed stays unclosed
    assert without_repeated_items("(x,)") == "(x,)" and without_repeated_items("a)") == "a)"


def test_lists_nested_deeper_than_xla_prints_are_left_whole() -> None:
    """Fuzz mutant #870371 (a line nested 20,000 deep): each level copied the text nested in it, work in the
    square of the depth; the line is parsed as it is instead."""
    shallow = "{(" * 32 + "a, a" + ")}" * 32  # 64 lists deep
    assert without_repeated_items(shallow) == shallow.replace("a, a", "a")
    deep = "{(" * 20_000 + "a, a" + ")}" * 20_000
    assert without_repeated_items(deep) == deep


def test_a_long_module_header_is_checked_without_parsing_it_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    header = long_module_header()
    assert len(header) > 10 * LONG_ITEM and isinstance(parse_module_header(header), ModuleHeader)
    parsed: list[int] = []
    real_parse = hlo_syntax.parse_rule

    def noting(text: str, start: str) -> object:
        parsed.append(len(text))
        return real_parse(text, start)

    monkeypatch.setattr(hlo_syntax, "parse_rule", noting)
    assert module_header_error(header.replace("jit_fwd", "jit_other")) is None
    assert parsed and max(parsed) < LONG_ITEM  # the line itself was not parsed


@pytest.mark.parametrize("broken", [", f32[64]{0}}->", "(f32[256]{0}, f32[128,64]{1,0}]", "layout={((", '="3f2a}'])
def test_a_long_module_header_with_a_mistake_gets_the_grammar_s_error(broken: str) -> None:
    header = long_module_header(1000 + len(broken))  # a template of its own
    cut = header.index("f32[256]{0}, /*index")
    text = header[:cut] + broken + header[cut:]
    error = module_header_error(text)
    full = parse_module_header(text)
    assert isinstance(error, ParseError) and isinstance(full, ParseError)
    assert (error.start, error.end, error.message) == (full.start, full.end, full.message)


def test_an_attribute_of_a_long_module_header_is_the_full_parse_s_attribute() -> None:
    header = long_module_header()
    full = parse_module_header(header)
    assert isinstance(full, ModuleHeader)
    for key in ("is_scheduled", "input_output_alias", "entry_computation_layout", "frontend_attributes"):
        assert module_header_attribute(header, key) == full.attribute(key), key
    assert module_header_attribute(header, "no_such_key") is None
    assert module_header_attribute(header.replace("{1}: (7", "{1}: 7"), "input_output_alias") is None  # invalid


def test_a_long_entry_header_is_checked_like_a_short_one() -> None:
    parameters = ", ".join(f"p{i}.1: f32[{i % 3 + 1},64]" for i in range(3000))
    header = f"ENTRY %main.5 ({parameters}) -> (f32[8], f32[64]) {{"
    assert len(header) > 10 * LONG_ITEM and computation_header_error(header) is None
    broken = header.replace("p17.1: f32[3,64]", "p17.1: f32[3,64")
    error, full = computation_header_error(broken), parse_computation_header(broken)
    assert isinstance(error, ParseError) and isinstance(full, ParseError) and error.start == full.start


def test_lines_with_other_characters_than_ascii_are_validated_like_others() -> None:
    valid = line(COMBINED_MLP_HLO, "  dot.20 = ")
    # A non-ASCII op_name, and a lone surrogate as a file read with surrogateescape holds one.
    for odd in ("\u00e9t\u00e9", "\udce9"):
        assert instruction_error(valid.replace('op_name="', f'op_name="{odd}', 1)) is None
        broken = valid.replace('op_name="', f'op_name="{odd}', 1).replace("dot(", "dot((", 1)
        assert isinstance(instruction_error(broken), ParseError)

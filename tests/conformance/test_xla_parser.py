"""hlo-lsp reads HLO text as XLA's own parser does (jaxlib 0.10.2, `hlo_module_from_text`, the oracle):
what XLA accepts reads without a syntax, structure or opcode error (tests/xla_oracle/ours.py,
REJECT_CODES), what it rejects or crashes on gets one; for an accepted text, the computations and
instructions we read are those XLA built (our reading of XLA's re-printed text, modulo XLA's renaming and
defaults), and we read XLA's re-printed text clean.

The texts: the hand-written forms of tests/xla_oracle/catalogue.py, every bundled dump's module (and the
shared corpus's small ones), and seeded mutants of them (tests/hlo_forms.py): 1,500 texts, about 20 s on an
idle machine. The long mode (the shared modules up to 256 KB too) is

    HLO_LSP_XLA_TEXTS=100000 .venv/bin/python -m pytest tests/conformance/test_xla_parser.py

(or benchmarks/xla_parser_long.py, in worker processes). HLO_LSP_XLA_SEED changes the seed; text n of a
seed is always the same text (`hlo_forms.form(seed, n)`). The known disagreements are xla_oracle.judge.KNOWN.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from helpers import DUMP_FILES
from hlo_forms import MEDIUM, SMALL, bases, form
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from xla_oracle import Disagreement, OurReader, XlaParser, distinct, judge, known
from xla_oracle.catalogue import CATALOGUE, Entry
from xla_oracle.compare import differences, normal_shape
from xla_oracle.ours import ComputationModel, Instruction

SEED = int(os.environ.get("HLO_LSP_XLA_SEED", "20250611"))
LONG_TEXTS = int(os.environ.get("HLO_LSP_XLA_TEXTS", "0"))
SAMPLE_TEXTS = 1500  # the bases (catalogue, dumps; shared ones up to 24 KB), then mutants: about 20 s


@pytest.fixture(scope="module")
def xla() -> Iterator[XlaParser]:
    with XlaParser() as parser:
        try:
            parser.start()
        except RuntimeError as error:  # jax is not importable here
            pytest.skip(str(error))
        yield parser


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> OurReader:
    return OurReader(tmp_path_factory.mktemp("xla-oracle"))


def _report(disagreements: list[Disagreement], texts: int) -> str:
    new = [d for d in distinct(disagreements) if known(d) is None]
    return f"{len(new)} distinct disagreements in {texts} texts:\n\n" + "\n\n".join(map(str, new))


@pytest.mark.parametrize("entry", CATALOGUE, ids=[entry.name for entry in CATALOGUE])
def test_catalogue_says_what_xla_says(xla: XlaParser, entry: Entry) -> None:
    verdict = xla.judge(entry.text)
    assert verdict.accepted == entry.accepted, verdict.message


@pytest.mark.parametrize("entry", CATALOGUE, ids=[entry.name for entry in CATALOGUE])
def test_catalogue_form_reads_as_xla_reads_it(xla: XlaParser, reader: OurReader, entry: Entry) -> None:
    found = [d for d in judge(entry.text, f"catalogue: {entry.name}", xla, reader) if known(d) is None]
    assert not found, _report(found, 1)


@pytest.mark.slow
def test_seeded_texts_read_as_xla_reads_them(xla: XlaParser, reader: OurReader) -> None:
    count, max_bytes = (LONG_TEXTS, MEDIUM) if LONG_TEXTS else (SAMPLE_TEXTS, SMALL)
    found: list[Disagreement] = []
    for number in range(len(CATALOGUE), count):  # the catalogue's forms have their own tests
        text = form(SEED, number, max_bytes)
        found += judge(text.text, text.origin, xla, reader)
    new = [d for d in found if known(d) is None]
    assert not new, _report(new, count - len(CATALOGUE))


def test_the_sample_holds_every_bundled_dump() -> None:
    texts = {base.text for base in bases(SMALL)}
    bundled = [path for path in DUMP_FILES if detect_kind(path.name, path.read_text()) is FileKind.HLO_MODULE]
    assert len(bundled) >= 40 and all(path.read_text(errors="replace") in texts for path in bundled)
    assert len(texts) < SAMPLE_TEXTS


def test_a_crash_is_a_reject_and_the_oracle_goes_on(xla: XlaParser) -> None:
    crash = xla.judge("HloModule m\n\nENTRY e {\n  ROOT t = token[2] after-all()\n}\n")
    assert (crash.accepted, crash.crashed) == (False, True) and "Check failed" in crash.message
    after = xla.judge("HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
    assert after.accepted and after.names == (("e", ("p",)),)


def test_models_are_compared_modulo_xlas_renaming_and_defaults() -> None:
    def instruction(name: str, *operands: str, root: bool = False, shape: str | None = "f32[2]") -> Instruction:
        return Instruction(name, "negate" if operands else "parameter", shape, operands, (), root)

    ours = (ComputationModel("f", False, (instruction("a"),)),
            ComputationModel("e", False, (instruction("a"), instruction("b", "a", shape=None))))
    printed = (ComputationModel("f", False, (instruction("a", root=True),)),
               ComputationModel("e", True, (instruction("a.1"), instruction("b", "a.1", root=True))))
    names = (("f", ("a",)), ("e", ("a.1", "b")))
    assert differences(ours, printed, names) == []
    wrong = (ComputationModel("f", False, (instruction("a", root=True),)),
             ComputationModel("e", True, (instruction("a.1"), instruction("b", "a", root=True))))
    assert [what for what, _ in differences(ours, wrong, names)] == ["operands"]
    assert normal_shape("(f32[2,3], s32[], f32[4]{0} )") == "(f32[2,3]{1,0},s32[],f32[4]{0})"

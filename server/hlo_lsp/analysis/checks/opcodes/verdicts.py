"""The verdicts of the lines' texts: each text is judged once, and kept across runs and modules.

Real modules have hundreds of thousands of instructions but a few thousand distinct lines once their
digits are zeroed (text_keys): a text's verdict says what, if anything, each line of that text still
needs: nothing, its parameter number, another line's shape, or a reading of its own (a fault, or
digits that matter). A new text asks first the verdict of its template (op_name differs on every line).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from hlo_lsp.analysis.checks.opcodes.dropped_operands import OPCODE_OPERANDS
from hlo_lsp.analysis.checks.opcodes.findings import Finding
from hlo_lsp.analysis.checks.opcodes.line_rules import judge
from hlo_lsp.analysis.checks.opcodes.parameters import number_span
from hlo_lsp.analysis.checks.opcodes.reader import read_instruction
from hlo_lsp.analysis.checks.opcodes.text_keys import CACHE_LIMIT, template
from hlo_lsp.model.document import Chunk
from hlo_lsp.parsing.hlo_scanner import COMP, TOP, in_block_comment, scan_hlo_line

_JUDGED_KINDS = frozenset(("instruction", "items", "computation", "blank"))
Verdict = tuple[str, ...]  # what each line of a text still needs; () for nothing
Judged = tuple[list[Finding], frozenset[str]]  # findings (offsets from the shape on) and actions
HEADER: Verdict = ("header",)
PARAMETER: Verdict = ("parameter",)
EVALUATE: Verdict = ("evaluate",)


@dataclass(slots=True, eq=False)
class VerdictCache:
    """The verdicts by key (a line's text with its digits zeroed), the keys with work to do, and
    the judgements of instructions read whole. Learning holds the lock; readers do not."""

    verdicts: dict[bytes, Verdict] = field(default_factory=dict)
    known: set[bytes] = field(default_factory=set)
    active: set[bytes] = field(default_factory=set)  # the keys with work to do
    parameter_spans: dict[bytes, slice] = field(default_factory=dict)  # where a parameter line's number is
    header_keys: set[bytes] = field(default_factory=set)
    templates: dict[str, Verdict] = field(default_factory=dict)
    judged: dict[str, Judged] = field(default_factory=dict)  # an instruction's text from its shape on
    lock: threading.Lock = field(default_factory=threading.Lock)

    def learn(self, chunk: Chunk, keys: list[bytes]) -> None:
        """Judges the lines of `chunk` whose keys (`keys`, one a line) are not known yet."""
        if self.known.issuperset(keys):
            return
        fresh = set(keys) - self.known
        with self.lock:
            if len(self.verdicts) > CACHE_LIMIT:
                for cache in (self.known, self.active, self.parameter_spans, self.header_keys, self.verdicts,
                              self.templates, self.judged):
                    cache.clear()  # in place: a pass in another thread holds these very objects
            for local, key in enumerate(keys):
                if key in fresh and key not in self.known:
                    self._learn_line(chunk, local, key)

    def _learn_line(self, chunk: Chunk, local: int, key: bytes) -> None:
        scan = chunk.scans[local]
        if scan.problem is not None:
            # A line the scanner finds out of place (an instruction outside any computation): the same
            # text may read otherwise where it belongs (as a line of several items), so it teaches nothing.
            return
        text = chunk.lines[local].rstrip("\r")
        if "*/" in text and _may_end_a_comment(chunk, local, text):  # what the line holds depends on the lines
            self.verdicts[key] = EVALUATE                            # above, not on its text
            self.active.add(key)
            self.known.add(key)
            return
        if scan.kind not in _JUDGED_KINDS:  # the same text may be an instruction elsewhere (in a computation
            scan = scan_hlo_line(COMP, text)  # written inline): its verdict is the instruction's; or a header
            if scan.kind not in _JUDGED_KINDS or scan.problem is not None:  # (`ENTRY e {// c` read in a string
                at_top = scan_hlo_line(TOP, text)                            # first): its verdict is a header's
                scan = at_top if at_top.kind == "computation" else scan
        if scan.kind not in _JUDGED_KINDS and "=" in text:  # or hold several items elsewhere (`{ a = f32[]
            verdict: Verdict = EVALUATE                      # parameter(0)` below a header's lone name)
        else:
            verdict = self._verdict(text, scan.kind, scan.data, isinstance(scan.end_state, tuple))
        self.verdicts[key] = verdict
        if verdict == PARAMETER:
            self.parameter_spans[key] = slice(*number_span(chunk.lines[local], scan.data))
        elif verdict == HEADER:
            self.header_keys.add(key)
        if verdict:
            self.active.add(key)
        self.known.add(key)

    def _verdict(self, text: str, kind: str, data: tuple[object, ...], continued: bool) -> Verdict:
        """What every line of this text needs beyond the text's own verdict."""
        if kind == "computation":
            return HEADER
        if kind == "items":  # several items on one line: each read on its own
            return EVALUATE
        if kind != "instruction" or len(data) < 5:
            return ()
        if continued:  # its opcode may be on the next lines too (`v =` above `f32[4] abs(p)`)
            return EVALUATE
        if not data[3]:
            return ()
        shape_start = data[1]
        assert isinstance(shape_start, int)
        key = template(text[shape_start:])
        known = self.templates.get(key)
        if known is not None:
            return known
        read = read_instruction(text, data)
        verdict: Verdict = ()
        if read is not None:
            judgement = judge(read)
            verdict = tuple(sorted(judgement.actions))
            if judgement.findings or judgement.digit_sensitive or OPCODE_OPERANDS in judgement.actions:
                verdict = ("evaluate", *verdict)
        verdict = PARAMETER if verdict == PARAMETER else verdict
        self.templates[key] = verdict
        return verdict

    def judgement(self, text: str, data: tuple[object, ...]) -> Judged | None:
        """The findings (at offsets of `text`) and actions of the instruction `text`, or None where
        it cannot be read; judged once per text from its shape on."""
        shape_start = data[1]
        assert isinstance(shape_start, int)
        judged = self.judged.get(text[shape_start:])
        if judged is None:
            read = read_instruction(text, data)
            if read is None:
                return None
            judgement = judge(read)
            judged = ([(a - shape_start, b - shape_start, c, m) for a, b, c, m in judgement.findings],
                      frozenset(judgement.actions))
            if len(self.judged) > CACHE_LIMIT:
                self.judged.clear()
            self.judged[text[shape_start:]] = judged
        return [(a + shape_start, b + shape_start, c, m) for a, b, c, m in judged[0]], judged[1]


def _may_end_a_comment(chunk: Chunk, local: int, text: str) -> bool:
    """Whether a line holding `*/` ends a block comment from above: it does where it starts in one (a `/*`
    before its `*/` is then in the comment), and may elsewhere where no `/*` comes first."""
    close = text.find("*/")
    return not 0 <= text.find("/*") < close or in_block_comment(
        chunk.scans[local - 1].end_state if local else chunk.start_state)


VERDICTS = VerdictCache()

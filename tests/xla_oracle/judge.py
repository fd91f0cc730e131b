"""One text judged by XLA's parser and by hlo-lsp: the disagreements, each with the cause it is grouped
by, and the known ones (XLA's parser accepting what only its verifier rejects, which we may report)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from xla_oracle.compare import differences
from xla_oracle.open_causes import OPEN
from xla_oracle.ours import OurReader, Reading
from xla_oracle.parser import Verdict, XlaParser


@dataclass(frozen=True)
class Disagreement:
    cause: str  # what the disagreements of one kind share: the grouping key
    detail: str  # this text's messages: XLA's, ours, or the model difference
    text: str
    origin: str

    def __str__(self) -> str:
        return f"{self.cause}\n  {self.detail}\n  from {self.origin}\n" + _indented(self.text)


def _indented(text: str, limit: int = 3000) -> str:
    body = text if len(text) <= limit else text[:limit] + "\n[... cut]"
    return "\n".join("    | " + line for line in body.split("\n"))


# Known disagreements: (cause pattern, what the disagreement holds, reason). Keep it minimal: each is hlo-lsp
# reporting on purpose what XLA's parser lets through and only its verifier rejects. None today.
KNOWN: tuple[tuple[str, Callable[[Disagreement], bool], str], ...] = ()


def known(disagreement: Disagreement) -> str | None:
    """Why a disagreement is expected (reported on purpose), or is still open (not fixed yet), or None."""
    if disagreement.cause in OPEN:
        return "open: not read as XLA reads it yet (xla_oracle/open_causes.py)"
    return next((reason for pattern, holds, reason in KNOWN
                 if re.search(pattern, disagreement.cause) and holds(disagreement)), None)


_SHAPE = re.compile(r"\b[a-z][a-z0-9]*\[[^\]]*\](\{[^}]*\})?")
_KEYWORDS = frozenset(("ROOT", "ENTRY", "HloModule"))
_NAMED = re.compile(r"\b(computation|instruction|opcode:|exist:|exists:|sees:|attribute) "
                    r"(?!(?:is|has|of|in|to)\b)%?[A-Za-z_][\w.\-]*")


def template(message: str) -> str:
    """A message with what varies from text to text (numbers, names, which attribute) left out: the cause."""
    message = message.split(" Allowed attributes:")[0].split("\n")[0]
    message = _SHAPE.sub("S", re.sub(r"/\*.*?\*/", "", message))
    message = re.sub(r"\((S(, )?)*\)", "S", message)  # a tuple shape
    message = re.sub(r"(?<![\w.])-?\d+(\.\d*)?(e[+-]?\d+)?(?![\w])", "N", message)
    message = _NAMED.sub(r"\1 X", message)
    message = re.sub(r'(attribute|computation) "[^"]*"', r"\1 X", message)
    message = re.sub(r"`%?[A-Za-z_][\w.\-]* \{`", "`X {`", message)  # ours: `x {`, a computation's start
    return re.sub(r"`%?([A-Za-z_][\w.\-]*)`", lambda m: m.group(0) if m.group(1) in _KEYWORDS else "`X`",
                  message)[:160]


def _problem_text(reading: Reading) -> str:
    return "; ".join(f"{p.range.start.line + 1}:{p.range.start.character + 1}: [{p.code}] {p.message}"
                     for p in reading.rejects[:3])


def judge(text: str, origin: str, xla: XlaParser, reader: OurReader) -> list[Disagreement]:
    """Every disagreement between XLA's parser and hlo-lsp on `text` (none when XLA timed out)."""
    verdict = xla.judge(text)
    if verdict.timed_out:
        return []
    reading = reader.read(text)
    found = [Disagreement(f"our checks fail: {template(p.message)}", p.message, text, origin)
             for p in reading.internal_errors]
    if not text.strip() and any(problem.code == "empty-file" for problem in reading.problems):
        return found  # XLA rejects an empty text; an editor's new file is empty: hlo-lsp notes it, on purpose
    ours = reading.rejects
    where = f"XLA {verdict.line}:{verdict.column}: {verdict.message}"
    if verdict.accepted and ours:
        first = ours[0]
        cause = f"XLA accepts, we reject: [{first.code}] {template(first.message)}"
        found.append(Disagreement(cause, "ours " + _problem_text(reading), text, origin))
    elif not verdict.accepted and not ours:
        kind = "crashes on" if verdict.crashed else "rejects"
        found.append(Disagreement(f"XLA {kind}, we accept: {template(verdict.message)}", where, text, origin))
    elif verdict.accepted:
        found += _printed_disagreements(verdict, reading, origin, text, xla, reader)
    return found


def _printed_disagreements(verdict: Verdict, reading: Reading, origin: str, text: str,
                           xla: XlaParser, reader: OurReader) -> list[Disagreement]:
    """The model we read against XLA's (our reading of its printed text), and that printed text read back."""
    printed = reader.read(verdict.printed or "")
    found = []
    if printed.rejects and xla.judge(verdict.printed or "").accepted:  # XLA may print what it rejects: `({...})`
        first = printed.rejects[0]
        cause = f"round trip: we reject XLA's printed text: [{first.code}] {template(first.message)}"
        found.append(Disagreement(cause, _problem_text(printed), verdict.printed or "", origin))
    for what, detail in differences(reading.model, printed.model, verdict.names):
        found.append(Disagreement(f"model: {what}", detail, text, origin))
    return found


def distinct(disagreements: Iterable[Disagreement]) -> list[Disagreement]:
    """One disagreement per cause, the one with the shortest text."""
    best: dict[str, Disagreement] = {}
    for disagreement in disagreements:
        kept = best.get(disagreement.cause)
        if kept is None or len(disagreement.text) < len(kept.text):
            best[disagreement.cause] = disagreement
    return sorted(best.values(), key=lambda d: d.cause)


def minimized(text: str, still: Callable[[str], bool], seconds: float = 60.0) -> str:
    """`text` with every block of lines removed that `still` holds without: halves first, single lines
    last, until nothing more goes or `seconds` have passed."""
    lines, deadline = text.split("\n"), time.monotonic() + seconds
    changed = True
    while changed and time.monotonic() < deadline:
        changed, width = False, max(1, len(lines) // 2)
        while width >= 1:
            index = 0
            while index < len(lines) and time.monotonic() < deadline:
                candidate = lines[:index] + lines[index + width:]
                if candidate and still("\n".join(candidate)):
                    lines, changed = candidate, True
                else:
                    index += width
            width //= 2
    return "\n".join(lines)

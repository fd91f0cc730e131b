"""Bytes of a file -> text, with a clear problem for what is not a UTF-8 text dump."""

from __future__ import annotations

from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range, utf16_length

_SNIFF_BYTES = 8192
_CONTROL_BYTES = bytes(byte for byte in range(32) if byte not in (9, 10, 13))  # not tab, LF, CR


def _problem(source: str, line: int, column: int, severity: Severity, code: str, message: str) -> Problem:
    return Problem(source, Range(Position(line, column), Position(line, column + 1)), severity, code, message)


def looks_binary(data: bytes) -> bool:
    head = data[:_SNIFF_BYTES]
    if b"\0" in head:
        return True
    control = len(head) - len(head.translate(None, _CONTROL_BYTES))  # (in C: a listing reads thousands of files)
    return bool(head) and control / len(head) > 0.1


def decode_dump(data: bytes, source: str) -> tuple[str, list[Problem]]:
    """The text of a dump file and the problems with its encoding.

    A binary file gives no text. Bytes that are not UTF-8 are replaced (U+FFFD)
    and the first of them is reported where it is, so the rest stays usable.
    """
    if looks_binary(data):
        return "", [_problem(source, 0, 0, Severity.ERROR, "binary-file",
                             "binary file: not an XLA text dump (a .pb proto? dump with --xla_dump_hlo_as_text)")]
    problems: list[Problem] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data.decode("utf-8", errors="replace")
        before = data[: error.start]
        line = before.count(b"\n")
        column = utf16_length(before[before.rfind(b"\n") + 1 :].decode("utf-8", errors="replace"))
        problems.append(_problem(source, line, column, Severity.ERROR, "invalid-utf8",
                                 f"bytes that are not UTF-8 (first at byte {error.start}); shown as U+FFFD"))
    if not text or text.isspace():  # (not `strip`: it copies a text ending in a newline, 20 MB at times)
        problems.append(_problem(source, 0, 0, Severity.INFO, "empty-file", "empty file"))
    elif "\r\n" in text[:_SNIFF_BYTES]:
        problems.append(_problem(source, 0, 0, Severity.INFO, "crlf",
                                 "CRLF line ends (XLA writes LF); read as if they were LF"))
    return text, problems

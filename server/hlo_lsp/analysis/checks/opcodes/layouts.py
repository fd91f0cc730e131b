"""The layouts of array shapes (`f32[2,3]{1,0:T(8,128)}`) as XLA's HLO text parser (jaxlib 0.10.2)
reads them: as many minor-to-major dimensions as the shape has, dimension level types among D, C, S
and H, and no physical shape `P(...)` (XLA's text declares no sparse array). None of these depends
on the digits, so a verdict holds for every line of a template.
"""

from __future__ import annotations

import re

from hlo_lsp.memos import memo

LayoutFinding = tuple[int, int, str]  # start, end (offsets of the text read), message

# A shape and its layout up to the layout's first brace, for a quick look at each distinct one.
_PLAIN = re.compile(r"[a-z][a-z0-9]*\[[^\]]*\]\s*\{[^{}]*[{}]")
_ARRAY_WITH_LAYOUT = re.compile(r"[a-z][a-z0-9]*\[([^\]]*)\]\s*\{(?=\s*[0-9:])")
_BRACKET = re.compile(r"[{}]")
_LEVEL_TYPE = re.compile(r"\s*[DCSH]\+?~?\s*")
_PHYSICAL = re.compile(r"(?<![A-Za-z])P\(")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def layout_findings(text: str, start: int, end: int) -> list[LayoutFinding]:
    """The layout problems of the shapes written in `text[start:end]`, the first of each layout."""
    if "/" in text[start:end]:  # XLA reads a comment as a space
        text = text[:start] + _COMMENT.sub(lambda match: " " * len(match.group()), text[start:end]) + text[end:]
    if all(map(_plainly_valid, set(_PLAIN.findall(text, start, end)))):
        return []
    found = []
    position = start
    while (array := _ARRAY_WITH_LAYOUT.search(text, position, end)) is not None:
        open_brace = array.end() - 1
        close = _closing_brace(text, open_brace, end)
        if close < 0:
            break
        rank = len([size for size in array.group(1).split(",") if size.strip()])
        problem = _layout_problem(text, open_brace, close, rank)
        if problem is not None:
            found.append(problem)
        position = close + 1
    return found


@memo(maxsize=4096)
def _plainly_valid(shape: str) -> bool:
    """Whether a shape and its layout up to its first brace (`f32[2,3]{1,0:T(8,128)}`) is surely valid:
    a layout that closes there, without D(...) or P(...), of as many dimensions as the shape."""
    dims, _, layout = shape.partition("{")
    if not layout.endswith("}") or "(" in layout and ("D(" in layout or "P(" in layout):
        return False
    if "[" not in dims or "]" not in dims:  # a garbled shape (`f{32[4]`): read the long way
        return False
    minor_to_major = layout[:-1].partition(":")[0]
    rank = len([size for size in dims[dims.index("[") + 1 : dims.rindex("]")].split(",") if size.strip()])
    return not layout.lstrip()[:1].isdigit() and not layout.lstrip().startswith(":") or (
        len(re.findall(r"-?[0-9]+", minor_to_major)) == rank)


def _closing_brace(text: str, open_brace: int, end: int) -> int:
    depth = 0
    for mark in _BRACKET.finditer(text, open_brace, end):
        depth += 1 if mark.group() == "{" else -1
        if depth == 0:
            return mark.start()
    return -1


def _layout_problem(text: str, open_brace: int, close: int, rank: int) -> LayoutFinding | None:
    """As XLA reads a layout: its fields first, then the count of its dimensions, then a physical shape."""
    body_start = open_brace + 1
    colon = text.find(":", body_start, close)
    fields_start = close if colon < 0 else colon + 1
    levels = _level_type_problem(text, fields_start, close)
    if levels is not None:
        return levels
    count = len(re.findall(r"-?[0-9]+", text[body_start:fields_start]))
    if count != rank:
        return (open_brace, close + 1, f"the layout orders {count} dimension{'s' * (count != 1)} (minor to major), "
                                       f"but its shape has {rank}")
    physical = _PHYSICAL.search(text, fields_start, close)
    if physical is not None:
        return (physical.start(), close, "a layout's physical shape P(...) is for sparse arrays only, which XLA's "
                                         "HLO text does not declare")
    return None


def _level_type_problem(text: str, fields_start: int, close: int) -> LayoutFinding | None:
    if not text.startswith("D(", fields_start):
        return None
    list_end = text.find(")", fields_start, close)
    items_start = fields_start + 2
    if list_end < 0:
        return None  # the grammar's problem
    for item in re.finditer(r"[^,]+", text[items_start:list_end]):
        if not _LEVEL_TYPE.fullmatch(item.group()):
            start, end = items_start + item.start(), items_start + item.end()
            return (start, end, f"{item.group().strip()} is no dimension level type: D(...) lists D (dense), "
                                "C (compressed), S (singleton) or H (loose compressed)")
    return None

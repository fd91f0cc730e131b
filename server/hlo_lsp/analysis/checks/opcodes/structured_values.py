"""The syntax of attribute values with a structure of their own: windows, padding configs, slice
ranges, convolution dim labels, replica groups, result accuracies, frontend attributes and metadata,
read as XLA's HLO text parser (jaxlib 0.10.2) reads them (see values.py for the validators' form).
"""

from __future__ import annotations

import re

from hlo_lsp.analysis.checks.opcodes.values import (
    DECIMAL,
    INT,
    INT_LIST,
    STRING,
    ValueProblem,
    int32,
    int64_value,
    int_lists,
    split_top_level,
    whole,
)
from hlo_lsp.parsing.names import NAME

_DXD = re.compile(r"-?[0-9]+|[0-9]+(?:x[0-9]+)+")
_WINDOW_FIELD = re.compile(r"[^\s=]+=\s*\S*|\S+")  # `size=2`, `size= 2` (a comment read as a space)
_WINDOW_FIELDS = ("size", "stride", "lhs_dilate", "rhs_dilate", "pad", "rhs_reversal")


def window(value: str) -> ValueProblem | None:
    body = re.fullmatch(r"\{(.*)\}", value, re.S)
    if body is None:
        return whole(value, "expected '{' to start window attribute")
    counts: dict[str, int] = {}
    for field in _WINDOW_FIELD.finditer(body.group(1)):
        start, end = field.start() + 1, field.end() + 1
        key, equal, part = field.group().partition("=")
        part = part.lstrip()
        if not equal or "," in field.group():
            return (start, end, "expects sub-attributes in window, separated by spaces: {size=2 stride=1}")
        if key not in _WINDOW_FIELDS:
            return (start, end, f"unexpected attribute name: {key}")
        if key in counts:
            return (start, end, f"sub-attribute '{key}=' already exists")
        problem = _window_pad(part) if key == "pad" else (
            None if _DXD.fullmatch(part) else "expects token type kInt or kDxD")
        if problem:
            return (start, end, problem)
        counts[key] = part.count("x") + 1
    for key in ("stride", "lhs_dilate", "rhs_dilate", "pad"):
        if key in counts and counts[key] != counts.get("size", 0):
            return whole(value, f"expects '{key}=' has the same size as 'size='")
    return None


def _window_pad(part: str) -> str | None:
    if not re.fullmatch(r"-?[0-9]+(?:_-?[0-9]+)+(?:x-?[0-9]+(?:_-?[0-9]+)+)*", part):
        return "expects window pad pattern, e.g., '0_0x3_3'"
    if any(dim.count("_") != 1 for dim in part.split("x")):
        return "expects padding_low and padding_high separated by '_'"
    return None


def padding(value: str) -> ValueProblem | None:
    if not re.fullmatch(r"-?[0-9]+(?:_-?[0-9]+)+(?:x-?[0-9]+(?:_-?[0-9]+)+)*", value):
        return whole(value, "expects padding config, e.g., '0_0_0x3_3_1'")
    for dim in value.split("x"):
        parts = dim.split("_")
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2].startswith("-")):
            return whole(value, "expects padding config pattern like 'low_high_interior' or 'low_high'")
    return None


def slice_ranges(value: str) -> ValueProblem | None:
    body = re.fullmatch(r"\{(.*)\}", value, re.S)
    if body is None or not re.fullmatch(r"\s*(?:\[[^\[\]]*\](?:\s*,\s*\[[^\[\]]*\])*)?\s*", body.group(1)):
        return whole(value, "expects slice ranges, e.g. {[0:2], [0:4:2]}")
    for bracket in re.finditer(r"\[([^\[\]]*)\]", value):
        parts = bracket.group(1).split(":")
        if not all(re.fullmatch(rf"\s*{INT}\s*", part) for part in parts):
            return (bracket.start(), bracket.end(), "expects integers in a slice range")
        if len(parts) not in (2, 3):
            return (bracket.start(), bracket.end(),
                    f"expects [start:limit:step] or [start:limit], but sees {len(parts)} elements.")
    return None


def dim_labels(value: str) -> ValueProblem | None:
    match = re.fullmatch(r"([0-9bf?]{2,})_([0-9io?]{2,})->([0-9bf?]{2,})", value)
    if match is None:
        return whole(value, "expects dim labels pattern, e.g., 'bf0_0io->0bf'")
    spatial = []
    for side, part, letters in zip(("lhs", "rhs", "output"), match.groups(), ("bf", "io", "bf")):
        named = part.replace("?", "")
        if len(set(named)) != len(named):
            return whole(value, f"expects unique {side} dimension numbers, but sees {part}")
        digits = [c for c in part if c not in letters and c != "?"]
        if any(int(c) >= len(part) for c in digits):
            return whole(value, f"expects [0-{len(part) - 1}{letters}?] in {side} dimension numbers")
        if any(int(c) >= len(digits) for c in digits):
            return whole(value, f"{side} dimension numbers {part} name a spatial dimension beyond its "
                                 f"{len(digits)} (XLA's parser writes past its table and may crash)")
        spatial.append(len(digits))
    if len(set(spatial)) != 1:
        return whole(value, "input, kernel, and output must have same number of spatial dimensions, "
                             "but got {}, {}, {}, respectively.".format(*spatial))
    return None


def replica_groups(value: str) -> ValueProblem | None:
    if value.startswith("mesh["):
        return None  # the named-mesh form of newer XLA: not checked here
    if value.startswith("{"):
        return None if int_lists(value) is not None else whole(
            value, "expects a list of replica groups, e.g. {{0,1},{2,3}}")
    iota = re.fullmatch(r"\[([^\]]*)\]\s*(<=)?\s*(?:\[([^\]]*)\]\s*(?:T\(([^)]*)\))?)?(.*)", value, re.S)
    if iota is None:
        return whole(value, "expects replica groups: {{0,1},{2,3}} or an iota list like [2,2]<=[4]")
    if not iota.group(2):
        return whole(value, "Caller expected iota tile assignment when parsing, which should not have any "
                             "manual device entries.")
    return _iota_groups(value, iota)


def _iota_groups(value: str, iota: re.Match[str]) -> ValueProblem | None:
    shape = [part.strip() for part in iota.group(1).split(",")]
    reshape = [part.strip() for part in (iota.group(3) or "").split(",")]
    perm = [part.strip() for part in (iota.group(4) or "").split(",")] if iota.group(4) is not None else None
    if iota.group(5).strip() or not all(int64_value(n) is not None for n in shape + reshape + (perm or [])):
        return whole(value, "expects an iota list of integers, e.g. [2,2]<=[2,2]T(1,0)")
    if len(shape) != 2:
        return whole(value, f"iota replica groups need exactly 2 dimensions [groups,size], not {len(shape)}")
    if len(reshape) > 1 and perm is None:
        return whole(value, "expected 'T(' to start sharding devices iota_transpose_perm")
    for dim in perm or ():
        if int(dim) >= len(reshape):
            return whole(value, f"Out of range iota minor_to_major value {dim}, expecting value in range "
                                 f"[0, {len(reshape)})")
    return None


def result_accuracy(value: str) -> ValueProblem | None:
    mode = re.fullmatch(r"\{\s*mode\s*=\s*([A-Za-z_]+)\s*\}", value)
    if mode is not None:
        if mode.group(1).lower() in ("default", "highest"):
            return None
        return (mode.start(1), mode.end(1), f"expects ResultAccuracy type but sees: {mode.group(1)} "
                                            "(default or highest)")
    tolerance = re.fullmatch(r"\{\s*tolerance\s*=\s*\{(.*)\}\s*\}", value, re.S)
    if tolerance is None:
        return whole(value, "expects {mode=default|highest} or {tolerance={atol=..., rtol=..., ulps=...}}")
    for item in filter(str.strip, tolerance.group(1).split(",")):
        key, equal, number = (part.strip() for part in item.partition("="))
        if key not in ("atol", "rtol", "ulps"):
            return whole(value, f"invalid attribute name: {key}")
        if not equal or not DECIMAL.fullmatch(number):
            return whole(value, "expects '}' at the end of result precision (items are `key=number`, with commas)")
    return None


def frontend_attributes(value: str) -> ValueProblem | None:
    body = re.fullmatch(r"\{(.*)\}", value, re.S)
    if body is None:
        return whole(value, "expected '{' to start frontend attributes")
    for item in split_top_level(body.group(1)):
        key = re.match(r"\s*" + NAME + r"=", item)
        rest = item[key.end():].strip() if key else ""
        if key is None or not (STRING.fullmatch(rest) or (rest.startswith("{") and rest.endswith("}"))):
            return whole(value, "frontend attributes are `key=\"string\"` or `key={json}`, separated by commas")
    return None


_METADATA_STRINGS = frozenset(("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name",
                               "metadata_payload"))
_METADATA_INTS = frozenset(("source_line", "source_end_line", "source_column", "source_end_column",
                            "stack_frame_id"))
_METADATA_ITEM = re.compile(r"\s*,?\s*(" + NAME + r")=\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\{[^{}]*\}"
                            r"|[^\s,}]+)", re.S)


def metadata(value: str) -> ValueProblem | None:
    if not (value.startswith("{") and value.endswith("}")):
        return whole(value, "expects '{' to start sub attributes")
    seen: set[str] = set()
    position = 1
    while position < len(value) - 1 and value[position:-1].strip(" \t\r\n,"):
        item = _METADATA_ITEM.match(value, position, len(value) - 1)
        if item is None:
            return (position, len(value) - 1, "expects metadata items `key=value`")
        problem = _metadata_item(item.group(1), item.group(2), seen)
        if problem:
            return (item.start(1), item.end(2), problem)
        seen.add(item.group(1))
        position = item.end()
    return None


def _metadata_item(key: str, value: str, seen: set[str]) -> str | None:
    if key in seen:
        return f"attribute {key} already exists"
    if key in _METADATA_STRINGS:
        return None if STRING.fullmatch(value) else f"{key} expects a string"
    if key in _METADATA_INTS:
        found = int32(value)
        return found[2] if found else None
    if key == "profile_type":
        return None if INT_LIST.fullmatch(value) else "profile_type expects a list of integers"
    return f"unexpected attribute \"{key}\" in metadata"

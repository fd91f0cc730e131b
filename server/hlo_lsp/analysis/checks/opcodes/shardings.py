"""The `sharding={...}` attribute as XLA's HLO text parser (jaxlib 0.10.2) reads it: one sharding or a
tuple of them (`{{...}, {...}}`), each a run of keywords (replicated, maximal, manual, unknown,
last_tile_dim_replicate, shard_as N, shard_like N) and attributes (device=, devices=, metadata=,
last_tile_dims=), with as many devices as its kind takes. Named (mesh) shardings are not checked.
Only the count of devices matters, never their digits.
"""

from __future__ import annotations

import re

from hlo_lsp.analysis.checks.opcodes.values import ValueProblem, split_top_level, whole
from hlo_lsp.parsing.names import NAME

_TOKEN = re.compile(r'\s*(?:(?P<attr>' + NAME + r')=|(?P<word>' + NAME + r')'
                    r'|(?P<int>-?[0-9]+)|(?P<other>"(?:[^"\\]|\\.)*"|\S))', re.S)
_DEVICES = re.compile(r"\s*\[[^\]]*\]\s*(?:<=\s*\[[^\]]*\]\s*(?:T\([^)]*\))?|-?[0-9]+(?:\s*,\s*-?[0-9]+)*)")
_KINDS = ("replicated", "maximal", "manual", "unknown", "unreduced")
_FLAGS = frozenset((*_KINDS, "last_tile_dim_replicate"))
_GROUPED = ("metadata", "last_tile_dims")  # their value is one `{...}`
_EXPECTED = ("replicated, maximal, manual, unknown, last_tile_dim_replicate, shard_as N, shard_like N, device=, "
             "devices=, metadata= or last_tile_dims=")


def sharding(value: str) -> ValueProblem | None:
    if not (value.startswith("{") and value.endswith("}")):
        return whole(value, "expects a sharding, e.g. {replicated} or {devices=[2,1]0,1}")
    body = value[1:-1]
    if not body.strip():
        return None  # the empty tuple's sharding
    if not body.lstrip().startswith("{"):
        return _single(value, 1, len(value) - 1)
    offset = 1
    for item in split_top_level(body):
        start = value.index(item, offset)
        stripped = item.strip()
        first = start + item.index(stripped)
        if not (stripped.startswith("{") and stripped.endswith("}")):
            return (first, first + len(stripped), "expects each sharding of a tuple in braces: {{...}, {...}}")
        found = _single(value, first + 1, first + len(stripped) - 1)
        if found is not None:
            return found
        offset = start + len(item)
    return None


def _single(value: str, start: int, end: int) -> ValueProblem | None:
    """The problem of the single sharding `value[start:end]` (inside its braces)."""
    if re.match(r"\s*(?:mesh|maximal_mesh)\b", value[start:end]):
        return None
    flags: set[str] = set()
    devices: list[int] = []  # the count of devices, in a list: 1 for device=N
    tiled, position = False, start
    while (token := _TOKEN.match(value, position, end)) is not None and token.group().strip():
        kind, text = token.lastgroup, token.group(token.lastgroup or 0)
        position = token.end()
        if kind == "word" and text in _FLAGS:
            flags.add(text)
        elif kind == "word" and text in ("shard_as", "shard_like"):
            number = re.match(r"\s*-?[0-9]+", value[position:end])
            if number is None:
                return (token.start(kind), token.end(), f"{text} expects an integer, its group: {text} 0")
            position += number.end()
        elif kind == "attr":
            found = _attribute(value, token, end, devices)
            if isinstance(found, tuple):
                return found
            position, tiled = found, tiled or text == "devices"
        else:
            return (token.start(kind or 0), token.end(), f"unexpected {text!r} in a sharding: expected {_EXPECTED}")
    return _device_count_problem(value, start, end, flags, devices, tiled)


def _attribute(value: str, token: re.Match[str], end: int, devices: list[int]) -> int | ValueProblem:
    """Where the attribute `token` ends (its devices counted), or its problem."""
    name, position = token.group("attr"), token.end()
    span = (token.start("attr"), token.end())
    if name == "device":
        number = re.match(r"\s*-?[0-9]+", value[position:end])
        if number is None:
            return (*span, "device= expects an integer, the device: device=0")
        devices[:] = [1]
        return position + number.end()
    if name == "devices":
        listed = _DEVICES.match(value, position, end)
        if listed is None:
            return (*span, "devices= expects [tile dimensions] and the devices, e.g. devices=[2,1]0,1 or "
                           "devices=[2,1]<=[2]")
        devices[:] = [] if "<=" in listed.group() else [len(re.findall(r"-?[0-9]+", listed.group().split("]")[-1]))]
        return listed.end()
    if name in _GROUPED:
        brace = position + len(value[position:end]) - len(value[position:end].lstrip())
        if value.startswith("{", brace):
            return _group_end(value, brace, end)
        return (*span, f"{name}= expects a {{...}} value")
    return (*span, f"unknown attribute {name}= in a sharding: expected device=, devices=, metadata= or "
                   "last_tile_dims=")


def _group_end(value: str, open_brace: int, end: int) -> int:
    depth = 0
    for mark in re.finditer(r'"(?:[^"\\]|\\.)*"|[{}]', value[open_brace:end], re.S):
        if mark.group() in "{}":
            depth += 1 if mark.group() == "{" else -1
            if depth == 0:
                return open_brace + mark.end()
    return end


def _device_count_problem(value: str, start: int, end: int, flags: set[str], devices: list[int],
                          tiled: bool) -> ValueProblem | None:
    kind = next((kind for kind in _KINDS if kind in flags), None)
    count = devices[0] if devices else 0
    span = (start, end)
    if kind == "maximal":
        return None if count == 1 else (*span, "a maximal sharding names exactly one device: {maximal device=0}")
    if kind is not None:
        return None if not count else (*span, f"a {kind} sharding has no devices assigned")
    if not tiled:
        return (*span, "a tiled sharding needs its tile assignment: devices=[2,1]0,1 (or replicated, maximal, "
                       "manual)")
    return None if count != 1 else (*span, "a tiled sharding spreads over more than one device")

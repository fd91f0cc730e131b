"""What XLA's HLO text parser (jaxlib 0.10.2) requires of each opcode: its operand count, its
attributes and the syntax of their values. The tables of the hlo-opcodes check.

Each validator takes an attribute's value as written and returns None, or (start, end, message)
with offsets into the value; messages follow XLA's own wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

Finding = tuple[int, int, str]
Validator = Callable[[str], Finding | None]

# Every instruction accepts these.
GENERIC = frozenset(("backend_config", "control-predecessors", "frontend_attributes", "metadata", "origin",
                     "parameter_replication", "sharding", "statistics"))


@dataclass(frozen=True, slots=True)
class OpcodeRule:
    operands: int | str  # an exact count, or a rule's name: any, even, odd, at-least-1, dot, ...
    attributes: frozenset[str]  # besides GENERIC
    required: frozenset[str]
    inferable: bool  # the result shape may be left out


_RESULT_ACCURACY = "result_accuracy"
_DOT_DIMS = "lhs_contracting_dims rhs_contracting_dims lhs_batch_dims rhs_batch_dims operand_precision"
_COLLECTIVE = "replica_groups channel_id constrain_layout use_global_device_ids"
_CHANNEL = "channel_id is_host_transfer"
# (opcodes, operands, optional attributes, required attributes, inferable), as the binary's
# "Allowed attributes" lists and its switch over opcodes give them.
_TABLE: tuple[tuple[str, int | str, str, str, bool], ...] = (
    ("abs ceil count-leading-zeros floor imag is-finite not negate popcnt real round-nearest-afz "
     "round-nearest-even sign copy opt-barrier", 1, "", "", True),
    ("bitcast copy-done all-gather-done all-reduce-done collective-permute-done convert bitcast-convert",
     1, "", "", False),
    ("acos acosh asin asinh atanh cbrt cosine cosh erf exponential exponential-minus-one log log-plus-one "
     "logistic rsqrt sine sinh sqrt tan tanh", 1, _RESULT_ACCURACY, "", True),
    ("add subtract multiply divide remainder power maximum minimum atan2 complex and or xor shift-left "
     "shift-right-arithmetic shift-right-logical mulhi add-dependency", 2, "", "", True),
    ("stochastic-convert", 2, "", "", False),
    ("clamp select", 3, "", "", True),
    ("reshape", 1, "inferred_dimension", "", False),
    ("dynamic-reshape", "dynamic-reshape", "", "", False),
    ("broadcast", 1, "dimensions", "", True),  # required unless the operand is a scalar
    ("transpose reverse", 1, "", "dimensions", True),
    ("concatenate", "any", "", "dimensions", True),
    ("slice", 1, "", "slice", False),
    ("dynamic-slice", "dynamic-slice", "", "dynamic_slice_sizes", False),
    ("dynamic-update-slice", "dynamic-update-slice", "", "", False),
    ("pad", 2, "", "padding", True),
    ("tuple", "tuple", "", "", True),
    ("get-tuple-element", 1, "", "index", True),
    ("call", "any", "is_composite", "to_apply", True),
    ("map", "any", "dimensions", "to_apply", True),
    ("reduce", "even", "", "to_apply dimensions", True),
    ("reduce-window", "even", "window", "to_apply", True),
    ("select-and-scatter", 3, "window", "select scatter", True),
    ("scatter", "odd", "indices_are_sorted unique_indices input_batching_dims scatter_indices_batching_dims",
     "update_window_dims inserted_window_dims scatter_dims_to_operand_dims index_vector_dim to_apply", True),
    ("gather", 2, "indices_are_sorted operand_batching_dims start_indices_batching_dims",
     "offset_dims collapsed_slice_dims start_index_map index_vector_dim slice_sizes", True),
    ("sort", "any", "is_stable", "dimensions to_apply", True),
    ("scan", "any", "is_reverse is_associative", "to_apply dimensions num_carries", True),
    ("while", 1, "", "condition body", True),
    ("conditional", "conditional", "true_computation false_computation branch_computations", "", True),
    ("fusion", "any", "output_to_operand_aliasing", "kind calls", False),
    ("custom-call", "any", "window dim_labels feature_group_count batch_group_count operand_layout_constraints "
     "custom_call_has_side_effect to_apply called_computations output_to_operand_aliasing padding_type literal "
     "operand_precision schedule api_version", "custom_call_target", False),
    ("dot", "dot", _DOT_DIMS + " algorithm", "", True),
    ("ragged-dot", 3, _DOT_DIMS + " lhs_ragged_dims rhs_group_dims", "", True),
    ("scaled-dot", 4, _DOT_DIMS + " algorithm", "", True),
    ("convolution", 2, "window feature_group_count batch_group_count operand_precision convolution_kind "
     "sparsity_config", "dim_labels", True),
    ("fft", 1, "", "fft_type fft_length", True),
    ("triangular-solve", 2, "left_side lower unit_diagonal transpose_a", "", True),
    ("cholesky", 1, "lower", "", True),
    ("compare", 2, "type", "direction", True),
    ("batch-norm-training", 3, "", "epsilon feature_index", True),
    ("batch-norm-inference batch-norm-grad", 5, "", "epsilon feature_index", True),
    ("reduce-precision", 1, "", "exponent_bits mantissa_bits", False),
    ("rng", "any", "", "distribution", False),
    ("rng-bit-generator", "at-least-1", "", "algorithm", False),
    ("rng-get-and-update-state", 0, "", "delta", False),
    ("infeed", 1, "infeed_config", "", False),
    ("outfeed", 2, "outfeed_config outfeed_shape", "", False),
    ("send", 2, _CHANNEL, "", False),
    ("recv send-done recv-done", 1, _CHANNEL, "", False),
    ("after-all", "any", "", "", True),
    ("replica-id partition-id", 0, "", "", True),
    ("domain", 1, "", "domain", True),
    ("get-dimension-size", 1, "", "dimensions", True),
    ("set-dimension-size", 2, "", "dimensions", True),
    ("topk", 1, "largest", "k", True),
    ("copy-start", 1, "cross_program_prefetch_index", "", False),
    ("iota", 0, "", "iota_dimension", False),
    ("all-gather all-gather-start", "any", _COLLECTIVE, "dimensions", False),
    ("all-reduce all-reduce-start", "any", _COLLECTIVE + " mode", "to_apply", False),
    ("reduce-scatter", "any", _COLLECTIVE + " mode", "to_apply dimensions", False),
    ("all-to-all", "any", "replica_groups channel_id dimensions constrain_layout", "", False),
    ("ragged-all-to-all", "any", "replica_groups channel_id dimensions", "", False),
    ("collective-broadcast", "any", "replica_groups channel_id", "", False),
    ("collective-permute collective-permute-start", "any", "channel_id slice_sizes", "source_target_pairs", False),
    ("async-start", "any", "async_execution_thread output_to_operand_aliasing", "calls", False),
    ("async-update async-done", "any", "async_execution_thread calls", "", False),
    ("parameter constant", "literal", "", "", False),
)
RULES: dict[str, OpcodeRule] = {
    opcode: OpcodeRule(operands, frozenset(optional.split()) | frozenset(required.split()),
                       frozenset(required.split()), inferable)
    for opcodes, operands, optional, required, inferable in _TABLE for opcode in opcodes.split()
}
ASYNC_SUFFIXES = ("-start", "-update", "-done")
WRAPPED_START_ATTRIBUTES = frozenset(("async_execution_thread", "output_to_operand_aliasing"))
WRAPPED_DONE_ATTRIBUTES = frozenset(("async_execution_thread",))


def async_wrapped(opcode: str) -> tuple[str, str] | None:
    """(wrapped opcode, suffix) of an `<op>-start/-update/-done` that is not an opcode itself."""
    if opcode in RULES:
        return None
    for suffix in ASYNC_SUFFIXES:
        if opcode.endswith(suffix) and opcode[: -len(suffix)] in RULES:
            return opcode[: -len(suffix)], suffix
    return None


# ---- value syntaxes ----------------------------------------------------------------------------
_INT = r"-?[0-9]+"
_NAME = r"%?[A-Za-z_][A-Za-z0-9_.\-]*"
_INT_LIST = re.compile(rf"\{{\s*(?:{_INT}(?:\s*,\s*{_INT})*)?\s*\}}")
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'", re.S)
_DECIMAL = re.compile(r"-?(?:[0-9]+\.[0-9]*|[0-9]*\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?")
_FLOAT_MAX = 3.4028234663852886e38


def _whole(value: str, message: str) -> Finding:
    return (0, len(value), message)


def int64_value(text: str) -> int | None:
    """An integer token as XLA's lexer reads it (beyond int64, as uint64 cast to int64), or None."""
    if not re.fullmatch(_INT, text):
        return None
    number = int(text)
    if number > 2**64 - 1 or number < -(2**63):
        return None
    return number - 2**64 if number >= 2**63 else number


def _bool(value: str) -> Finding | None:
    return None if value in ("true", "false") else _whole(value, "expects true or false")


def _int64(value: str) -> Finding | None:
    return None if int64_value(value) is not None else _whole(value, "expects integer")


def _int32(value: str) -> Finding | None:
    number = int64_value(value)
    if number is None:
        return _whole(value, "expects integer")
    return None if -(2**31) <= number < 2**31 else _whole(value, "value out of range for int32_t")


def _float(value: str) -> Finding | None:
    if value == "nan":
        return None
    if value in ("inf", "-inf"):
        return _whole(value, "value out of range for float")
    if not _DECIMAL.fullmatch(value) or value.startswith("."):
        return _whole(value, "expects decimal or integer")
    return None if abs(float(value)) <= _FLOAT_MAX else _whole(value, "value out of range for float")


def _string(value: str) -> Finding | None:
    return None if _STRING.fullmatch(value) else _whole(value, "expects string")


def _int_list(value: str) -> Finding | None:
    return None if _INT_LIST.fullmatch(value) else _whole(value, "expects a list of integers, e.g. {0,1}")


def _int_lists(value: str) -> list[list[int]] | None:
    """`{ {ints}, {ints} }` read, or None."""
    body = re.fullmatch(r"\{\s*(.*?)\s*\}", value, re.S)
    if body is None:
        return None
    if not body.group(1):
        return []
    groups = re.findall(r"\{[^{}]*\}", body.group(1))
    if ",".join(groups) != re.sub(r"\s+", "", body.group(1)) or not all(_INT_LIST.fullmatch(g) for g in groups):
        return None
    return [[int(n) for n in re.findall(_INT, group)] for group in groups]


def _int_list_list(value: str) -> Finding | None:
    return None if _int_lists(value) is not None else _whole(value, "expects a list of integer lists, e.g. {{0,1}}")


def _pairs(value: str) -> Finding | None:
    lists = _int_lists(value)
    if lists is None:
        return _int_list_list(value)
    return None if all(len(pair) == 2 for pair in lists) else _whole(
        value, "expects 'source_target_pairs=' to be a list of pairs")


def _computation(value: str) -> Finding | None:
    inline = value.startswith("{") and value[1:-1].strip()  # a computation written in place
    return None if re.fullmatch(_NAME, value) or inline else _whole(value, "expects computation name")


def _computations(value: str) -> Finding | None:
    if re.fullmatch(rf"\{{\s*{_NAME}(?:\s*,\s*{_NAME})*\s*\}}", value):
        return None
    return _whole(value, "expects a list of computation names, e.g. {a, b}")


def _instructions(value: str) -> Finding | None:
    if re.fullmatch(rf"\{{\s*{_NAME}(?:\s*,\s*{_NAME})*\s*\}}", value):
        return None
    return _whole(value, "expects a list of instruction names, e.g. {a, b} (it may not be empty)")


def _enum(what: str, values: str, any_case: bool = False) -> Validator:
    allowed = frozenset(v.lower() if any_case else v for v in values.split())

    def check(value: str) -> Finding | None:
        if (value.lower() if any_case else value) in allowed:
            return None
        return _whole(value, f"expects {what} but sees: {value} (one of {', '.join(values.split())})")

    return check


_DOT_ALGORITHMS = ("unset dot_any_f8_any_f8_f32 dot_any_f8_any_f8_f32_fast_accum dot_f16_f16_f16 dot_f16_f16_f32 "
                   "dot_bf16_bf16_bf16 dot_bf16_bf16_f32 dot_bf16_bf16_f32_x3 dot_bf16_bf16_f32_x6 "
                   "dot_bf16_bf16_f32_x9 dot_tf32_tf32_f32 dot_tf32_tf32_f32_x3 dot_f32_f32_f32 dot_f64_f64_f64")
_API_VERSIONS = ("API_VERSION_ORIGINAL API_VERSION_STATUS_RETURNING API_VERSION_STATUS_RETURNING_UNIFIED "
                 "API_VERSION_TYPED_FFI")


def _api_version(value: str) -> Finding | None:
    if value == "API_VERSION_UNSPECIFIED":
        return _whole(value, "Invalid API version: API_VERSION_UNSPECIFIED")
    return _enum("custom-call API version", _API_VERSIONS)(value)


def _precisions(value: str) -> Finding | None:
    body = re.fullmatch(r"\{(.*)\}", value, re.S)
    if body is None:
        return _whole(value, "expects a list of precisions, e.g. {default,default}")
    offset = 1
    for item in body.group(1).split(","):
        name = item.strip()
        if name and name.lower() not in ("default", "high", "highest"):
            start = offset + item.index(name)
            return (start, start + len(name), f"expects precision but sees: {name} (default, high or highest)")
        offset += len(item) + 1
    return None


_DXD = re.compile(r"-?[0-9]+|[0-9]+(?:x[0-9]+)+")
_WINDOW_FIELDS = ("size", "stride", "lhs_dilate", "rhs_dilate", "pad", "rhs_reversal")


def _window(value: str) -> Finding | None:
    body = re.fullmatch(r"\{(.*)\}", value, re.S)
    if body is None:
        return _whole(value, "expected '{' to start window attribute")
    counts: dict[str, int] = {}
    for field in re.finditer(r"\S+", body.group(1)):
        start, end = field.start() + 1, field.end() + 1
        key, equal, part = field.group().partition("=")
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
            return _whole(value, f"expects '{key}=' has the same size as 'size='")
    return None


def _window_pad(part: str) -> str | None:
    if not re.fullmatch(r"-?[0-9]+(?:_-?[0-9]+)+(?:x-?[0-9]+(?:_-?[0-9]+)+)*", part):
        return "expects window pad pattern, e.g., '0_0x3_3'"
    if any(dim.count("_") != 1 for dim in part.split("x")):
        return "expects padding_low and padding_high separated by '_'"
    return None


def _padding(value: str) -> Finding | None:
    if not re.fullmatch(r"-?[0-9]+(?:_-?[0-9]+)+(?:x-?[0-9]+(?:_-?[0-9]+)+)*", value):
        return _whole(value, "expects padding config, e.g., '0_0_0x3_3_1'")
    for dim in value.split("x"):
        parts = dim.split("_")
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2].startswith("-")):
            return _whole(value, "expects padding config pattern like 'low_high_interior' or 'low_high'")
    return None


def _slice(value: str) -> Finding | None:
    body = re.fullmatch(r"\{(.*)\}", value, re.S)
    if body is None or not re.fullmatch(r"\s*(?:\[[^\[\]]*\](?:\s*,\s*\[[^\[\]]*\])*)?\s*", body.group(1)):
        return _whole(value, "expects slice ranges, e.g. {[0:2], [0:4:2]}")
    for bracket in re.finditer(r"\[([^\[\]]*)\]", value):
        parts = bracket.group(1).split(":")
        if not all(re.fullmatch(rf"\s*{_INT}\s*", part) for part in parts):
            return (bracket.start(), bracket.end(), "expects integers in a slice range")
        if len(parts) not in (2, 3):
            return (bracket.start(), bracket.end(),
                    f"expects [start:limit:step] or [start:limit], but sees {len(parts)} elements.")
    return None


def _dim_labels(value: str) -> Finding | None:
    match = re.fullmatch(r"([0-9bf?]{2,})_([0-9io?]{2,})->([0-9bf?]{2,})", value)
    if match is None:
        return _whole(value, "expects dim labels pattern, e.g., 'bf0_0io->0bf'")
    spatial = []
    for side, part, letters in zip(("lhs", "rhs", "output"), match.groups(), ("bf", "io", "bf")):
        named = part.replace("?", "")
        if len(set(named)) != len(named):
            return _whole(value, f"expects unique {side} dimension numbers, but sees {part}")
        digits = [c for c in part if c not in letters and c != "?"]
        if any(int(c) >= len(part) for c in digits):
            return _whole(value, f"expects [0-{len(part) - 1}{letters}?] in {side} dimension numbers")
        if any(int(c) >= len(digits) for c in digits):
            return _whole(value, f"{side} dimension numbers {part} name a spatial dimension beyond its "
                                 f"{len(digits)} (XLA's parser writes past its table and may crash)")
        spatial.append(len(digits))
    if len(set(spatial)) != 1:
        return _whole(value, "input, kernel, and output must have same number of spatial dimensions, "
                             "but got {}, {}, {}, respectively.".format(*spatial))
    return None


def _replica_groups(value: str) -> Finding | None:
    if value.startswith("mesh["):
        return None  # the named-mesh form of newer XLA: not checked here
    if value.startswith("{"):
        return None if _int_lists(value) is not None else _whole(
            value, "expects a list of replica groups, e.g. {{0,1},{2,3}}")
    iota = re.fullmatch(r"\[([^\]]*)\]\s*(<=)?\s*(?:\[([^\]]*)\]\s*(?:T\(([^)]*)\))?)?(.*)", value, re.S)
    if iota is None:
        return _whole(value, "expects replica groups: {{0,1},{2,3}} or an iota list like [2,2]<=[4]")
    if not iota.group(2):
        return _whole(value, "Caller expected iota tile assignment when parsing, which should not have any "
                             "manual device entries.")
    return _iota_groups(value, iota)


def _iota_groups(value: str, iota: re.Match[str]) -> Finding | None:
    shape = [part.strip() for part in iota.group(1).split(",")]
    reshape = [part.strip() for part in (iota.group(3) or "").split(",")]
    perm = [part.strip() for part in (iota.group(4) or "").split(",")] if iota.group(4) is not None else None
    if iota.group(5).strip() or not all(int64_value(n) is not None for n in shape + reshape + (perm or [])):
        return _whole(value, "expects an iota list of integers, e.g. [2,2]<=[2,2]T(1,0)")
    if len(shape) != 2:
        return _whole(value, f"iota replica groups need exactly 2 dimensions [groups,size], not {len(shape)}")
    if len(reshape) > 1 and perm is None:
        return _whole(value, "expected 'T(' to start sharding devices iota_transpose_perm")
    for dim in perm or ():
        if int(dim) >= len(reshape):
            return _whole(value, f"Out of range iota minor_to_major value {dim}, expecting value in range "
                                 f"[0, {len(reshape)})")
    return None


def _result_accuracy(value: str) -> Finding | None:
    mode = re.fullmatch(r"\{\s*mode\s*=\s*([A-Za-z_]+)\s*\}", value)
    if mode is not None:
        if mode.group(1).lower() in ("default", "highest"):
            return None
        return (mode.start(1), mode.end(1), f"expects ResultAccuracy type but sees: {mode.group(1)} "
                                            "(default or highest)")
    tolerance = re.fullmatch(r"\{\s*tolerance\s*=\s*\{(.*)\}\s*\}", value, re.S)
    if tolerance is None:
        return _whole(value, "expects {mode=default|highest} or {tolerance={atol=..., rtol=..., ulps=...}}")
    for item in filter(str.strip, tolerance.group(1).split(",")):
        key, equal, number = (part.strip() for part in item.partition("="))
        if key not in ("atol", "rtol", "ulps"):
            return _whole(value, f"invalid attribute name: {key}")
        if not equal or not _DECIMAL.fullmatch(number):
            return _whole(value, "expects '}' at the end of result precision (items are `key=number`, with commas)")
    return None


def _string_or_dict(value: str) -> Finding | None:
    if _STRING.fullmatch(value) or (value.startswith("{") and value.endswith("}")):
        return None
    return _whole(value, "expects a string or a JSON dict")


def _frontend_attributes(value: str) -> Finding | None:
    body = re.fullmatch(r"\{(.*)\}", value, re.S)
    if body is None:
        return _whole(value, "expected '{' to start frontend attributes")
    for item in split_top_level(body.group(1)):
        key = re.match(r"\s*[A-Za-z_][A-Za-z0-9_.\-]*=", item)
        rest = item[key.end():].strip() if key else ""
        if key is None or not (_STRING.fullmatch(rest) or (rest.startswith("{") and rest.endswith("}"))):
            return _whole(value, "frontend attributes are `key=\"string\"` or `key={json}`, separated by commas")
    return None


_METADATA_STRINGS = frozenset(("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name",
                               "metadata_payload"))
_METADATA_INTS = frozenset(("source_line", "source_end_line", "source_column", "source_end_column",
                            "stack_frame_id"))
_METADATA_ITEM = re.compile(r"\s*,?\s*([A-Za-z_][A-Za-z0-9_.\-]*)=\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\{[^{}]*\}"
                            r"|[^\s,}]+)", re.S)


def _metadata(value: str) -> Finding | None:
    if not (value.startswith("{") and value.endswith("}")):
        return _whole(value, "expects '{' to start sub attributes")
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
        return None if _STRING.fullmatch(value) else f"{key} expects a string"
    if key in _METADATA_INTS:
        found = _int32(value)
        return found[2] if found else None
    if key == "profile_type":
        return None if _INT_LIST.fullmatch(value) else "profile_type expects a list of integers"
    return f"unexpected attribute \"{key}\" in metadata"


def _braced(value: str) -> Finding | None:
    """A value read by a parser of its own (sharding, domain, ...), as one `{...}` group."""
    if value.startswith("{") and value.endswith("}") and not split_top_level(value)[1:]:
        return None
    return _whole(value, "expects one `{...}` value")


def _shape_list(value: str) -> Finding | None:
    return None if value.startswith("{") and value.endswith("}") else _whole(value, "expects a list of shapes")


def _parameter_replication(value: str) -> Finding | None:
    if re.fullmatch(r"\{\s*(?:(?:true|false)(?:\s*,\s*(?:true|false))*)?\s*\}", value):
        return None
    return _whole(value, "expects a list of booleans, e.g. {true,false}")


_BOOLS = ("constrain_layout use_global_device_ids is_composite lower custom_call_has_side_effect indices_are_sorted "
          "is_host_transfer is_associative is_reverse unique_indices is_stable largest left_side unit_diagonal")
_INTS = ("channel_id feature_index batch_group_count feature_group_count index_vector_dim index iota_dimension "
         "exponent_bits mantissa_bits inferred_dimension delta num_carries k")
_INT_LISTS = ("dimensions slice_sizes dynamic_slice_sizes fft_length collapsed_slice_dims offset_dims "
              "operand_batching_dims start_index_map start_indices_batching_dims input_batching_dims "
              "inserted_window_dims scatter_dims_to_operand_dims scatter_indices_batching_dims update_window_dims "
              "lhs_batch_dims lhs_contracting_dims rhs_batch_dims rhs_contracting_dims lhs_ragged_dims rhs_group_dims")
VALIDATORS: dict[str, Validator] = {
    **dict.fromkeys(_BOOLS.split(), _bool), **dict.fromkeys(_INTS.split(), _int64),
    **dict.fromkeys(_INT_LISTS.split(), _int_list),
    **dict.fromkeys(("to_apply", "calls", "condition", "body", "select", "scatter", "true_computation",
                     "false_computation"), _computation),
    "branch_computations": _computations, "called_computations": _computations,
    "control-predecessors": _instructions, "cross_program_prefetch_index": _int32, "epsilon": _float,
    "custom_call_target": _string, "infeed_config": _string, "outfeed_config": _string,
    "async_execution_thread": _string, "source_target_pairs": _pairs, "replica_groups": _replica_groups,
    "window": _window, "dim_labels": _dim_labels, "padding": _padding, "slice": _slice,
    "result_accuracy": _result_accuracy, "operand_precision": _precisions, "backend_config": _string_or_dict,
    "frontend_attributes": _frontend_attributes, "metadata": _metadata, "operand_layout_constraints": _shape_list,
    "parameter_replication": _parameter_replication, "api_version": _api_version,
    **dict.fromkeys(("sharding", "domain", "statistics", "origin", "sparsity_config", "output_to_operand_aliasing"),
                    _braced),
    "direction": _enum("comparison direction", "EQ NE GE GT LE LT"),
    "type": _enum("comparison type", "FLOAT TOTALORDER SIGNED UNSIGNED"),
    "kind": _enum("fusion kind", "kLoop kInput kOutput kCustom"),
    "fft_type": _enum("fft type", "FFT IFFT RFFT IRFFT"),
    "distribution": _enum("random distribution", "rng_uniform rng_normal", any_case=True),
    "padding_type": _enum("padding type", "PADDING_VALID PADDING_SAME PADDING_INVALID"),
    "schedule": _enum("custom-call schedule", "SCHEDULE_NONE SCHEDULE_LATEST SCHEDULE_EARLIEST"),
    "convolution_kind": _enum("convolution kind", "fprop wgrad dgrad unset"),
    "mode": _enum("collective op group mode", "cross_replica cross_partition cross_replica_and_partition "
                  "flattened_id"),
    "transpose_a": _enum("transpose_a (XLA's parser crashes on other names)",
                         "NO_TRANSPOSE TRANSPOSE ADJOINT TRANSPOSE_INVALID"),
}
# Where an opcode reads a key its own way.
OPCODE_VALIDATORS: dict[tuple[str, str], Validator] = {
    ("rng-bit-generator", "algorithm"): _enum("random algorithm", "rng_default rng_three_fry rng_philox", True),
    ("dot", "algorithm"): _enum("algorithm", _DOT_ALGORITHMS, any_case=True),
    ("scaled-dot", "algorithm"): _enum("algorithm", _DOT_ALGORITHMS, any_case=True),
    ("collective-permute", "slice_sizes"): _int_list_list,
    ("collective-permute-start", "slice_sizes"): _int_list_list,
}
# `dimensions` whose size the parser checks: exactly one, or at least one (element [0] is read).
ONE_DIMENSION = frozenset(("concatenate", "sort", "all-to-all", "ragged-all-to-all"))
SOME_DIMENSION = frozenset(("get-dimension-size", "set-dimension-size", "all-gather", "all-gather-start",
                            "reduce-scatter"))


def split_top_level(text: str) -> list[str]:
    """The comma-separated items of `text` outside brackets and strings."""
    items, depth, start = [], 0, 0
    for token in re.finditer(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[\[({]|[\])}]|,", text, re.S):
        mark = token.group()
        if mark in "[({":
            depth += 1
        elif mark in "])}":
            depth -= 1
        elif mark == "," and depth == 0:
            items.append(text[start:token.start()])
            start = token.end()
    items.append(text[start:])
    return [item for item in items if item.strip()]


# ---- constant literals ---------------------------------------------------------------------------
# Float types: (largest finite, half its last step, whether a tie at that half rounds up, NaN payload
# bits; -1: saturating, never out of range). A parsed double is rounded to the type first: it is out
# of range only when rounding overflows.
_FLOATS = {
    "f64": (1.7976931348623157e308, 0.0, False, 52), "f32": (3.4028234663852886e38, 2.0**103, True, 23),
    "bf16": (3.3895313892515355e38, 2.0**119, True, 7), "f16": (65504.0, 16.0, True, 10),
    "f8e5m2": (57344.0, 4096.0, True, 2), "f8e4m3": (240.0, 8.0, True, 3), "f8e3m4": (15.5, 0.25, True, 4),
    "f8e4m3fn": (448.0, 16.0, False, 0), "f8e4m3fnuz": (240.0, 8.0, True, 0),
    "f8e4m3b11fnuz": (30.0, 1.0, True, 0), "f8e5m2fnuz": (57344.0, 4096.0, True, 0),
    "f4e2m1fn": (6.0, 0.0, False, -1), "f6e2m3fn": (7.5, 0.0, False, -1), "f6e3m2fn": (28.0, 0.0, False, -1),
}
_E8M0 = "f8e8m0fnu"  # powers of two from 2^-127 to 2^127: no zero, no negatives
_COMPLEX = {"c64": 3.4028234663852886e38, "c128": 1.7976931348623157e308}
_INTEGERS = {f"{sign}{bits}": (bits, sign == "s") for sign in "su" for bits in (1, 2, 4, 8, 16, 32, 64)}
ELEMENT_TYPES = frozenset((*_FLOATS, _E8M0, *_COMPLEX, *_INTEGERS, "pred", "token", "opaque"))
_LITERAL_TOKEN = re.compile(
    r"(?P<space>\s+|/\*.*?\*/|//[^\n]*)|(?P<dots>\.\.\.)|(?P<punct>[{}(),])"
    r"|(?P<word>-?[A-Za-z0-9_.][A-Za-z0-9_.\-+]*(?:\(0x[0-9A-Fa-f]+\))?)|(?P<other>.)", re.S)
_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
LiteralProblem = tuple[int, int, str, str]  # start, end (in the literal's text), code, message
_SHAPE, _RANGE = "literal-shape", "literal-range"


@dataclass(frozen=True, slots=True)
class LiteralShape:
    """An array shape's element type and dimensions (the bound of a bounded one; -2**63 unbounded),
    or a tuple's element shapes."""

    element_type: str
    dims: tuple[int, ...] = ()
    elements: tuple[LiteralShape, ...] | None = None


def literal_problem(shape: LiteralShape, text: str) -> LiteralProblem | None:
    """What XLA's parser rejects in the literal `text` of a constant of `shape` (the first error
    it prints), or None."""
    tokens = [(m.lastgroup, m.start(), m.end(), m.group()) for m in _LITERAL_TOKEN.finditer(text)
              if m.lastgroup != "space"]
    reader = _LiteralReader(tokens, len(text))
    found = reader.literal(shape)
    if found is None and reader.position < len(tokens):
        found = reader.error(_SHAPE, "expects ')' after constant literal")
    return found


class _LiteralReader:
    def __init__(self, tokens: list[tuple[str | None, int, int, str]], end: int) -> None:
        self.tokens, self.end, self.position = tokens, end, 0

    def peek(self) -> tuple[str | None, int, int, str]:
        return self.tokens[self.position] if self.position < len(self.tokens) else ("end", self.end, self.end, "")

    def error(self, code: str, message: str) -> LiteralProblem:
        _, start, end, _ = self.peek()
        return (start, end, code, message)

    def literal(self, shape: LiteralShape) -> LiteralProblem | None:
        if shape.elements is not None:
            return self.tuple_literal(shape)
        if shape.element_type in ("token", "opaque"):
            return self.error(_SHAPE, f"a constant cannot be of type {shape.element_type} (XLA's parser crashes)")
        return self.dense(shape)

    def tuple_literal(self, shape: LiteralShape) -> LiteralProblem | None:
        elements = shape.elements or ()
        if self.peek()[3] != "(":
            return self.error(_SHAPE, "expects '(' in front of tuple elements")
        self.position += 1
        if self.peek()[3] != ")":
            for index, element in enumerate(elements):
                if index > 0 and self.peek()[3] == ",":
                    self.position += 1
                found = self.literal(element)
                if found is not None:
                    return found if found[2] != _SHAPE or index == 0 or found[3].startswith("a constant") else (
                        found[0], found[1], _SHAPE, f"expects the {index}th element of the tuple")
        if self.peek()[3] != ")":
            return self.error(_SHAPE, f"expects ')' at the end of the tuple with {len(elements)} elements")
        self.position += 1
        return None

    def dense(self, shape: LiteralShape) -> LiteralProblem | None:
        """ParseDenseLiteral: nesting and counts per dimension; the first soft error (one XLA logs but
        parses on after) is what it prints first when a hard error follows."""
        state = _DenseState(shape)
        while True:
            kind, start, end, text = self.peek()
            if text == "(" and shape.element_type in _COMPLEX:
                found = self.complex_value(state, start)
            else:
                found = state.step(kind, text, (start, end))
            if found is not None:
                soft = state.soft[0] if state.soft else found
                return soft if found[2] == _SHAPE else found
            self.position += 1
            if state.level == 0:
                return None


    def complex_value(self, state: _DenseState, start: int) -> LiteralProblem | None:
        """`(real, imaginary)`: the group is taken as one value; the position is left on its `)`."""
        parts = [token for token in self.tokens[self.position + 1 : self.position + 5]]
        texts = [token[3] for token in parts]
        if len(parts) < 4 or texts[1] != "," or texts[3] != ")":
            return (start, parts[-1][2] if parts else start + 1, _SHAPE,
                    "a complex value is written (real, imaginary)")
        self.position += 4
        return state.value((start, parts[3][2]), (texts[0], texts[2]))


class _DenseState:
    def __init__(self, shape: LiteralShape) -> None:
        self.shape, self.rank = shape, len(shape.dims)
        self.level, self.index = 0, 0
        self.seen = [0] * self.rank
        self.soft: list[LiteralProblem] = []

    def where(self, dim: int) -> str:
        return "[" + ",".join(str(n - 1) for n in self.seen[:dim]) + "]"

    def step(self, kind: str | None, text: str, span: tuple[int, int]) -> LiteralProblem | None:
        if text == "{":
            return self.open(span)
        if text == "}":
            return self.close(span)
        if text == ",":
            return None
        if kind == "dots":
            if self.level != 1:
                return (*span, _SHAPE, f"expects `...` at nest level 1, but sees it at nest level {self.level}")
            self.seen[0] = self.shape.dims[0]
            return None
        if text == "(":
            return (*span, _SHAPE, "unexpected '(' in literal: parens are only valid for complex literals")
        if kind != "word":
            return (*span, _SHAPE, "unexpected token type in a literal")
        return self.value(span, text)

    def open(self, span: tuple[int, int]) -> LiteralProblem | None:
        self.level += 1
        if self.level > self.rank:
            return (*span, _SHAPE, f"expects nested array in rank {self.rank}, but sees larger")
        if self.level > 1:
            dim = self.level - 2
            self.seen[dim] += 1
            if self.seen[dim] > self.shape.dims[dim]:
                return (*span, _SHAPE, f"expects {self.shape.dims[dim]} elements in the {self.where(dim)}th "
                                       "element, but sees more")
        return None

    def close(self, span: tuple[int, int]) -> LiteralProblem | None:
        if self.level == 0:
            return (*span, _SHAPE, "unexpected '}' token")
        self.level -= 1
        dim = self.level
        if self.seen[dim] != self.shape.dims[dim]:
            return (*span, _SHAPE, f"expects {self.shape.dims[dim]} elements in the {self.where(dim)}th element, "
                                   f"but sees {self.seen[dim]}")
        self.seen[dim] = 0
        return None

    def value(self, span: tuple[int, int], text: str | tuple[str, str]) -> LiteralProblem | None:
        if self.rank > 0:
            if self.level != self.rank:
                self.soft.append((*span, _SHAPE, f"expects nested array in rank {self.rank}, but sees {self.level}"))
            else:
                self.seen[-1] += 1
                if self.seen[-1] > self.shape.dims[-1]:
                    self.soft.append((*span, _SHAPE, f"expects {self.shape.dims[-1]} elements on the minor-most "
                                                     "dimension, but sees more"))
        kind = self.shape.element_type
        found = complex_problem(kind, *text) if isinstance(text, tuple) else element_problem(kind, text)
        if found is not None:
            return (*span, *found)
        total = 1
        for size in self.shape.dims:
            total *= size
        self.index += 1
        if self.index > total:
            return (*span, _SHAPE, f"too many values: value {text} would be element {self.index - 1} of a literal "
                                   f"of {max(total, 0)} elements")
        return None


def element_problem(element_type: str, text: str) -> tuple[str, str] | None:
    """(code, message) for one value of a literal of `element_type`, or None."""
    if text in ("true", "false"):
        return None if element_type == "pred" else (_RANGE, f"{text} in a {element_type} literal (XLA's parser "
                                                            "crashes on it)")
    if element_type in _COMPLEX:
        return _complex_problem(element_type, text)
    if element_type == "pred" or element_type in _INTEGERS:
        return _integer_problem(element_type, text)
    if element_type in _FLOATS or element_type == _E8M0:
        return _float_problem(element_type, text)
    return None


def _integer_problem(element_type: str, text: str) -> tuple[str, str] | None:
    if not re.fullmatch(r"-?[0-9]+", text):
        what = "unexpected token type in a literal" if _float_value(text) is None else (
            f"expects integer for primitive type: {element_type}")
        return (_RANGE if _float_value(text) is not None else _SHAPE, what)
    value = int64_value(text)
    if value is None:
        return (_RANGE, f"integer {text} does not fit in 64 bits")
    if element_type == "pred":
        return None
    bits, signed = _INTEGERS[element_type]
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    inside = low <= value <= high if signed else value % 2**64 <= high
    return None if inside else (_RANGE, f"value {value} is out of range for {element_type} [{low}, {high}]")


def _float_value(text: str) -> float | None:
    """The double XLA's lexer reads from a float token (nan and inf included), or None."""
    if re.fullmatch(r"-?nan(?:\(0x[0-9A-Fa-f]+\))?|-?inf", text):
        return float(text.split("(")[0])
    if not _NUMBER.fullmatch(text) or text.startswith("."):
        return None
    if re.fullmatch(r"-?[0-9]+", text):
        value = int64_value(text)
        return None if value is None else float(value)
    return float(text)


def _float_problem(element_type: str, text: str) -> tuple[str, str] | None:
    value = _float_value(text)
    if value is None:
        return (_SHAPE, "unexpected token type in a literal")
    if value != value:
        return _payload_problem(element_type, text)
    if value in (float("inf"), float("-inf")):
        return None if text.lstrip("-") == "inf" else (
            _RANGE, f"{text} is out of range for double (+/-1.79769e+308)")
    if element_type == _E8M0:
        if 0 < value < 1.5 * 2.0**127:
            return None
        return (_RANGE, f"value {value:g} is out of range for {element_type} [5.87747e-39, 1.70141e+38]")
    largest, half_step, tie_up, _ = _FLOATS[element_type]
    limit = largest + half_step
    if abs(value) < limit or (abs(value) == limit and not tie_up) or _FLOATS[element_type][3] < 0:
        return None
    return (_RANGE, f"value {value:g} is out of range for {element_type} [{-largest:g}, {largest:g}]")


def _payload_problem(element_type: str, text: str) -> tuple[str, str] | None:
    if "(" not in text:
        return None
    payload = int(text[text.index("(") + 3 : -1], 16)
    if payload == 1 << 51 or element_type == "f64":
        return None
    bits = _FLOATS.get(element_type, (0, 0, False, 0))[3]
    if bits <= 0:
        return (_RANGE, f"NaN payload {payload:#x} in a {element_type} literal: {element_type} does not support "
                        "payloads")
    if payload < 1 << bits:
        return None
    return (_RANGE, f"NaN payload {payload:#x} is out of range for {element_type} (at most {(1 << bits) - 1:#x})")


def _complex_problem(element_type: str, text: str) -> tuple[str, str] | None:
    return (_SHAPE, f"a {element_type} value is written as a pair (real, imaginary)")


def complex_problem(element_type: str, real: str, imaginary: str) -> tuple[str, str] | None:
    """A (real, imaginary) pair of a complex literal: each part against the component's range,
    without rounding; a NaN payload is checked on the real part only, as XLA does."""
    component = "f32" if element_type == "c64" else "f64"
    limit = _COMPLEX[element_type]
    for name, text in (("real", real), ("imaginary", imaginary)):
        value = _float_value(text)
        if value is None:
            return (_SHAPE, f"expect floating-point value for {name} part of complex number")
        if value == value and abs(value) != float("inf") and abs(value) > limit:
            return (_RANGE, f"{name} part {value:g} is out of range for {element_type} [{-limit:g}, {limit:g}]")
    return _payload_problem(component, real) if _float_value(real) != _float_value(real) else None

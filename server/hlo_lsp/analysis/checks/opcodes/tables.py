"""What XLA's HLO text parser (jaxlib 0.10.2) requires of each opcode: its operand count, its
attributes (allowed and required), whether its result shape may be left out, and the syntax each
attribute's value is read with (values.py, structured_values.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from hlo_lsp.analysis.checks.opcodes import shardings, values
from hlo_lsp.analysis.checks.opcodes import structured_values as structured
from hlo_lsp.analysis.checks.opcodes.values import Validator

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
     "round-nearest-even sign copy", 1, "", "", True),
    # opt-barrier is in CanInferShape's list, but its inference fails on every operand.
    ("opt-barrier bitcast copy-done all-gather-done all-reduce-done collective-permute-done convert bitcast-convert",
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


_BOOLS = ("constrain_layout use_global_device_ids is_composite lower custom_call_has_side_effect indices_are_sorted "
          "is_host_transfer is_associative is_reverse unique_indices is_stable largest left_side unit_diagonal")
_INTS = ("channel_id feature_index batch_group_count feature_group_count index_vector_dim index iota_dimension "
         "exponent_bits mantissa_bits inferred_dimension delta num_carries k")
_INT_LISTS = ("dimensions slice_sizes dynamic_slice_sizes fft_length collapsed_slice_dims offset_dims "
              "operand_batching_dims start_index_map start_indices_batching_dims input_batching_dims "
              "inserted_window_dims scatter_dims_to_operand_dims scatter_indices_batching_dims update_window_dims "
              "lhs_batch_dims lhs_contracting_dims rhs_batch_dims rhs_contracting_dims lhs_ragged_dims rhs_group_dims")
VALIDATORS: dict[str, Validator] = {
    **dict.fromkeys(_BOOLS.split(), values.boolean), **dict.fromkeys(_INTS.split(), values.int64),
    **dict.fromkeys(_INT_LISTS.split(), values.int_list),
    **dict.fromkeys(("to_apply", "calls", "condition", "body", "select", "scatter", "true_computation",
                     "false_computation"), values.computation),
    "branch_computations": values.computations, "called_computations": values.computations,
    "control-predecessors": values.instructions, "cross_program_prefetch_index": values.int32,
    "epsilon": values.decimal, "custom_call_target": values.string, "infeed_config": values.string,
    "outfeed_config": values.string, "async_execution_thread": values.string, "source_target_pairs": values.pairs,
    "operand_precision": values.precisions, "backend_config": values.string_or_dict,
    "operand_layout_constraints": values.shape_list, "parameter_replication": values.parameter_replication,
    "api_version": values.api_version,
    **dict.fromkeys(("domain", "statistics", "origin", "sparsity_config", "output_to_operand_aliasing"),
                    values.braced),
    "sharding": shardings.sharding,
    "replica_groups": structured.replica_groups, "window": structured.window, "dim_labels": structured.dim_labels,
    "padding": structured.padding, "slice": structured.slice_ranges, "result_accuracy": structured.result_accuracy,
    "frontend_attributes": structured.frontend_attributes, "metadata": structured.metadata,
    "direction": values.enum("comparison direction", "EQ NE GE GT LE LT"),
    "type": values.enum("comparison type", "FLOAT TOTALORDER SIGNED UNSIGNED"),
    "kind": values.enum("fusion kind", "kLoop kInput kOutput kCustom"),
    "fft_type": values.enum("fft type", "FFT IFFT RFFT IRFFT"),
    "distribution": values.enum("random distribution", "rng_uniform rng_normal", any_case=True),
    "padding_type": values.enum("padding type", "PADDING_VALID PADDING_SAME PADDING_INVALID"),
    "schedule": values.enum("custom-call schedule", "SCHEDULE_NONE SCHEDULE_LATEST SCHEDULE_EARLIEST"),
    "convolution_kind": values.enum("convolution kind", "fprop wgrad dgrad unset"),
    "mode": values.enum("collective op group mode", "cross_replica cross_partition cross_replica_and_partition "
                        "flattened_id"),
    "transpose_a": values.enum("transpose_a (XLA's parser crashes on other names)",
                               "NO_TRANSPOSE TRANSPOSE ADJOINT TRANSPOSE_INVALID"),
}
# Where an opcode reads a key its own way.
OPCODE_VALIDATORS: dict[tuple[str, str], Validator] = {
    ("rng-bit-generator", "algorithm"): values.enum("random algorithm", "rng_default rng_three_fry rng_philox", True),
    ("dot", "algorithm"): values.enum("algorithm", values.DOT_ALGORITHMS, any_case=True),
    ("scaled-dot", "algorithm"): values.enum("algorithm", values.DOT_ALGORITHMS, any_case=True),
    ("collective-permute", "slice_sizes"): values.int_list_list,
    ("collective-permute-start", "slice_sizes"): values.int_list_list,
}
# `dimensions` whose size the parser checks: exactly one, or at least one (element [0] is read).
ONE_DIMENSION = frozenset(("concatenate", "sort", "all-to-all", "ragged-all-to-all"))
SOME_DIMENSION = frozenset(("get-dimension-size", "set-dimension-size", "all-gather", "all-gather-start",
                            "reduce-scatter"))

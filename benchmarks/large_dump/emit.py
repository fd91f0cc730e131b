"""Writing the new HLO module: the source's lines with the new names substituted."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from large_dump.sources import Comp, HloSource, Instr
from large_dump.structure import NewParam, Plan
from large_dump.text import _INDEX_COMMENT, _PARAMETER, DumpError, matching, replace_in_op_name, split_top_level

# --------------------------------------------------------------------------- writing the module


@dataclass(eq=False)
class Emitted:
    """What the buffer assignment needs to know about the new module."""

    text: str
    opcode: dict[str, str]
    shape: dict[str, str]
    line: dict[str, str]
    def_order: dict[str, int]
    users: dict[str, list[tuple[str, int]]]
    members: dict[str, list[str]]  # computation -> its instructions
    called: dict[str, list[str]]
    entry: list[str]
    entry_name: str
    root: str
    params: dict[str, NewParam]


def emit_hlo(hlo: HloSource, plan: Plan) -> Emitted:
    structure = plan.structure
    count = len(structure.blocks)
    layers = plan.layers
    out: list[str] = [rebuild_module_header(hlo.header, plan.params), *hlo.preamble]
    opcode: dict[str, str] = {}
    shape: dict[str, str] = {}
    line_of: dict[str, str] = {}
    users: dict[str, list[tuple[str, int]]] = {}
    members: dict[str, list[str]] = {}
    called: dict[str, list[str]] = {}

    def record(instr: Instr, resolve: Callable[[str], str], comp: str, text: str) -> str:
        name = resolve(instr.name)
        opcode[name] = instr.opcode
        shape[name] = instr.shape
        line_of[name] = text
        members[comp].append(name)
        for k, operand in enumerate(instr.operands):
            users.setdefault(resolve(operand), []).append((name, k))
        if instr.called:
            called[name] = [resolve(c) for c in instr.called]
        return name

    positions = {j: [i for i, b in enumerate(plan.order) if b == j] for j in range(count)}
    for comp in hlo.comps:
        if comp.entry:
            continue
        owner = structure.comp_owner.get(comp.name)
        views = [(-1, -1)] if owner is None else [(i, owner) for i in positions[owner]]
        for position, block in views:
            resolve = plan.resolver(position, block)
            name = resolve(comp.name)
            members[name] = []
            out.append(comp.header_template.render(resolve))
            for instr in comp.instrs:
                text = instr.template.render(resolve)
                out.append(text)
                record(instr, resolve, name, text)
            out.append(comp.closing_template.render(resolve))
            out.append("")
    # ENTRY: parameters first (0.10.2) or each right before its first user (0.4.38).
    entry = hlo.entry
    resolve_global = plan.resolver(-1, -1)
    entry_name = resolve_global(entry.name)
    members[entry_name] = []
    out.append(rebuild_entry_header(entry, plan.params, resolve_global))
    source_params = sum(1 for instr in entry.instrs if instr.opcode == "parameter")
    params_first = all(instr.opcode == "parameter" for instr in entry.instrs[:source_params])
    new_params = {p.name: p for p in plan.params}
    emitted_params: set[str] = set()

    def emit_param(param: NewParam) -> None:
        resolve = plan.resolver(param.position, param.block)
        text = param_text(param.source.template.render(resolve), param, plan)
        out.append(text)
        record(param.source, resolve, entry_name, text)
        emitted_params.add(param.name)

    sequence = [(instr, -1, -1) for instr in structure.prologue]
    for position, block in enumerate(plan.order):
        sequence.extend((instr, position, block) for instr in structure.blocks[block])
    sequence.extend((instr, layers, count) for instr in structure.epilogue)
    if params_first:
        for param in plan.params:
            emit_param(param)
    root = None
    for instr, position, block in sequence:
        resolve = plan.resolver(position, block)
        if not params_first:
            for operand in instr.operands:
                source = hlo.instrs[operand]
                if source.opcode == "parameter" and source.comp == entry.name:
                    new = resolve(operand)
                    if new not in emitted_params:
                        emit_param(new_params[new])
        text = instr.template.render(resolve)
        out.append(text)
        name = record(instr, resolve, entry_name, text)
        if instr.root:
            root = name
    for param in plan.params:
        if param.name not in emitted_params:
            raise DumpError(f"parameter {param.name} has no user")
    out.append(entry.closing_template.render(resolve_global))
    out.append("")
    assert root is not None
    text = "\n".join(out) + "\n"
    def_order = {}
    for comp_members in members.values():
        for name in comp_members:
            def_order[name] = len(def_order)
    return Emitted(text, opcode, shape, line_of, def_order, users, members, called, members[entry_name],
                   entry_name, root, new_params)


def param_text(text: str, param: NewParam, plan: Plan) -> str:
    """A parameter's instruction text with its new number and, for a copied layer, its layer in op_name."""
    text = _PARAMETER.sub(f"parameter({param.number})", text, count=1)
    if plan.rename_layers and param.position >= 0 and param.position != param.block:
        text = replace_in_op_name(text, f"[{param.block}]", f"[{param.position}]")
    return text


def rebuild_module_header(header: str, params: list[NewParam]) -> str:
    for key in ("input_output_alias=", "buffer_donor="):
        if key in header:
            raise DumpError(f"modules with {key} are not supported")
    key = "entry_computation_layout={("
    start = header.find(key)
    if start >= 0:
        open_paren = start + len(key) - 1
        close = matching(header, open_paren)
        items = split_top_level(_INDEX_COMMENT.sub("", header[open_paren + 1:close]))
        new = [items[p.source.number] for p in params]
        text = ", ".join((f"/*index={k}*/" if k and k % 5 == 0 else "") + item for k, item in enumerate(new))
        header = header[:open_paren + 1] + text + header[close:]
    key = "allow_spmd_sharding_propagation_to_parameters={"
    start = header.find(key)
    if start >= 0:
        open_brace = start + len(key) - 1
        close = matching(header, open_brace, "{", "}")
        items = header[open_brace + 1:close].split(",")
        header = header[:open_brace + 1] + ",".join(items[p.source.number] for p in params) + header[close:]
    return header


def rebuild_entry_header(entry: Comp, params: list[NewParam], resolve: Callable[[str], str]) -> str:
    open_paren = entry.header.find("(")
    if open_paren < 0:
        return entry.header_template.render(resolve)  # `ENTRY main.16205 {`: no signature
    close = matching(entry.header, open_paren)
    shapes = {}
    for item in split_top_level(entry.header[open_paren + 1:close]):
        name, _, item_shape = item.partition(": ")
        shapes[name] = item_shape
    signature = ", ".join(f"{p.name}: {shapes[p.source.name]}" for p in params)
    return entry.header[:open_paren + 1] + signature + entry.header[close:]

"""Find references (textDocument/references) and document highlights across the files of one module."""

from __future__ import annotations

from hlo_lsp.features.definition import definition
from hlo_lsp.features.targets import ROLES_OF_KIND
from hlo_lsp.features.types import Highlight, Location, Target
from hlo_lsp.model.document import Occurrence
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.line_scan import DEFINITION_ROLES
from hlo_lsp.text import Range

_HLO_KINDS = frozenset(("instruction", "computation", "frame", "location", "file_name", "function_name"))


def references(module: ModuleDump, target: Target, include_declaration: bool) -> list[Location]:
    """Every place the target is named in the module's files (its definition too, if asked)."""
    unique = {_place_key(location): location for location, is_definition in _occurrences(module, target)
              if include_declaration or not is_definition}
    return [unique[key] for key in sorted(unique)]


def highlights(module: ModuleDump, target: Target) -> list[Highlight]:
    """The target's occurrences in the document the cursor is in."""
    return sorted({Highlight(location.range, is_definition) for location, is_definition in _occurrences(module, target)
                   if location.source == target.source}, key=lambda h: (h.range.start.line, h.range.start.character))


def _place_key(location: Location) -> tuple[str, int, int, int, int]:
    # plain tuples hash and compare in C; Locations would compare field by field in Python
    start, end = location.range.start, location.range.end
    return location.source, start.line, start.character, end.line, end.character


def _occurrences(module: ModuleDump, target: Target) -> list[tuple[Location, bool]]:
    roles = ROLES_OF_KIND.get(target.kind)
    if roles is None:
        return [(location, True) for location in definition(module, target)]
    found: list[tuple[Location, bool]] = []
    for document in module.all_documents():
        occurrences = document.definitions(target.name, roles) + document.uses(target.name, roles)
        if document is module.hlo_document and target.kind == "instruction":
            occurrences = _in_defining_computation(module, target, occurrences)
        for line, ref in occurrences:
            found.append((Location(document.source, Range.on_line(line, ref.start, ref.end)),
                          ref.role in DEFINITION_ROLES))
    return found


def _in_defining_computation(module: ModuleDump, target: Target, occurrences: list[Occurrence]) -> list[Occurrence]:
    """When several computations define the name, keep the occurrences in the target's one."""
    hlo = module.hlo
    if hlo is None:
        return occurrences
    definitions = hlo.definition_lines(target.name)
    if len(definitions) < 2:
        return occurrences
    near = target.range.start.line if target.source == hlo.document.source else None
    site = hlo.site(target.name, near)
    if site is None:
        return occurrences
    return [(line, ref) for line, ref in occurrences
            if (computation := hlo.computation_at(line)) is not None and computation.name == site.computation]


"""Whether an HLO module and a buffer assignment are one compilation's: the vote of the schedule's names, kept with
the module's structure, follows the buffer assignment it is asked with."""

from __future__ import annotations

from helpers import PAIR_NARROW, PAIR_WIDE, SPLIT_MLP, module_of
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.pairing import is_majority, paired_module, pairing_sample
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Position, Range


def _counted(module: ModuleDump, other: ModuleDump) -> bool:
    """The vote counted afresh: whether most of the sampled schedule of `other`'s buffer assignment names
    instructions of `module`."""
    assert module.hlo is not None and other.buffer_assignment is not None
    assert other.buffer_assignment.live_range is not None
    sample = pairing_sample(other.buffer_assignment.live_range.schedule)
    return is_majority(sum(module.hlo.line_of(entry.name) is not None for entry in sample), len(sample))


def _modules() -> list[ModuleDump]:
    """Three programs' modules: an MLP's, and one training step's at two widths (the same names)."""
    stem = "module_0000.jit__lambda.cpu_after_optimizations.txt"
    return [module_of(SPLIT_MLP.with_name(SPLIT_MLP.name + ".txt")), module_of(PAIR_NARROW / stem),
            module_of(PAIR_WIDE / stem)]


def test_the_vote_kept_with_a_module_is_the_vote_counted_for_each_buffer_assignment_asked_in_turn() -> None:
    modules = [module for module in _modules() if module.buffer_assignment is not None]
    assert len(modules) >= 2
    for module in modules:
        for other in [*modules, module]:  # its own buffer assignment asked again after the others
            paired = paired_module(module.hlo, other.buffer_assignment)
            assert (paired is module.hlo) == _counted(module, other), (module.stem, other.stem)
        assert paired_module(module.hlo, module.buffer_assignment) is module.hlo


def test_a_module_of_another_program_does_not_pair() -> None:
    mlp, *others = (module for module in _modules() if module.buffer_assignment is not None)
    assert any(paired_module(mlp.hlo, other.buffer_assignment) is None for other in others)


def test_an_edited_version_of_the_same_names_pairs_and_a_module_of_other_names_does_not() -> None:
    module = _modules()[0]
    assert module.hlo is not None and module.hlo_document is not None
    assert paired_module(module.hlo, module.buffer_assignment) is module.hlo
    document = module.hlo_document
    line = next(n for n in range(document.line_count) if 'op_name="' in document.line(n))
    column = document.line(line).index('op_name="') + len('op_name="')
    same_names = module.hlo.edited(document.apply_edit(Range(Position(line, column), Position(line, column)), "x"))
    assert same_names.structure_id is module.hlo.structure_id
    assert paired_module(same_names, module.buffer_assignment) is same_names
    renamed = HloModule(Document(document.text.replace("%", "%renamed_"), FileKind.HLO_MODULE, document.source))
    assert paired_module(renamed, module.buffer_assignment) is None

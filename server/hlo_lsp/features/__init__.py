"""The IDE layer: plain functions over the model that answer an editor's questions.

Each module answers one kind of question (definition, references, hover, ...)
with the records of `features.types`, in editor terms (sources, UTF-16 ranges).
Nothing here knows LSP: `hlo_lsp.lsp` converts these answers into protocol types.
"""

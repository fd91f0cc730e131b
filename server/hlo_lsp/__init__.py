"""hlo-lsp: a language server and checker for XLA HLO dumps and buffer-assignment files."""

__version__ = "0.1.0"

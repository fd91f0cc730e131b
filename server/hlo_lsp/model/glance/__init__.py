"""A glance at a module before its files are scanned (see module_glance.py): `ModuleGlance`."""

from hlo_lsp.model.glance.module_glance import ModuleGlance

__all__ = ["ModuleGlance"]

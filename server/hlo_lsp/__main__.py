"""`python -m hlo_lsp`: the same entry point as the `hlo-lsp` command."""

import sys

from hlo_lsp.launch import main

if __name__ == "__main__":  # (not when a spawned process imports it as its parent's main module)
    sys.exit(main())

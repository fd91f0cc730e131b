"""`python -m hlo_lsp`: the same entry point as the `hlo-lsp` command."""

import sys

from hlo_lsp.cli import main

sys.exit(main())

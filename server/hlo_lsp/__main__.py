import sys

from hlo_lsp.cli import main

sys.exit(main())

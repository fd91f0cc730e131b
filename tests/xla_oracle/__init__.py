"""XLA's own HLO text parser as the oracle of hlo-lsp's reading of HLO text.

`parser` runs XLA's parser in a worker process, `ours` reads a text as `hlo-lsp check` does, `compare`
sets the two models side by side, `judge` turns one text into its disagreements, and `catalogue` holds
the hand-written forms XLA accepts or rejects (the generator is tests/hlo_forms.py).
"""

from xla_oracle.judge import KNOWN, Disagreement, distinct, judge, known, minimized
from xla_oracle.ours import REJECT_CODES, OurReader, Reading
from xla_oracle.parser import Verdict, XlaParser

__all__ = ["KNOWN", "REJECT_CODES", "Disagreement", "OurReader", "Reading", "Verdict", "XlaParser", "distinct",
           "judge", "known", "minimized"]

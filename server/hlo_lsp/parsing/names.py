"""How XLA's HLO lexer spells a name (of an instruction, a computation, an attribute's key): the one pattern
every regex that reads names is built from."""

NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"

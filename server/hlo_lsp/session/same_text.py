"""Whether an editor's text is its file's on disk, told across the check process's pipe by a digest.

Most files an editor opens are as they are on disk. The check process then reads the file itself: the server sends
a digest of the text, not the text (40 MB take a few hundred milliseconds to pickle and send, which the server would
otherwise hold back until its first questions are answered), and the process starts checking at once, on its own
core. The process reads the file's bytes and takes them only when their digest is the one sent: a file changed on disk
meanwhile, or an editor's text that differs from the file, is sent whole after all.
"""

from __future__ import annotations

import hashlib
import os
import stat


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()  # (the machine's SHA instructions: 20 ms at 40 MB)


def disk_digest_of(source: str, text: str) -> bytes | None:
    """The digest of `text` (its bytes) when the file `source` may hold it: a file of as many bytes as an ASCII text
    has characters (None: the text is sent)."""
    if not text.isascii():  # (its length in bytes is not known without encoding it)
        return None
    try:
        status = os.stat(source)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(status.st_mode) or status.st_size != len(text):  # (a FIFO would block the process)
        return None
    # Encoded whole, in one call: the thread waits for the interpreter twice, not once per slice (a first question
    # holds it in long searches of the text meanwhile).
    return _digest(text.encode("ascii"))


def text_if_same(source: str, digest: bytes) -> str | None:
    """The text of the file `source` when its bytes have `digest` (None: they do not, or it cannot be read)."""
    try:
        descriptor = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # (a FIFO put there since: no wait)
        with os.fdopen(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None
            data = file.read()
    except (OSError, ValueError):
        return None
    if _digest(data) != digest:
        return None
    return data.decode("ascii")  # (the digest was made of an ASCII text's bytes: these are they)

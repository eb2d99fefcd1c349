"""What evalkit prints is shown, never obeyed: control characters escaped on the console.

File names, page ids, labels and error messages come from data, and a terminal obeys the
escape sequences they may hold (``ESC [ 2 J`` clears the screen, ``ESC ] 0 ;`` retitles the
window, ``U+202E`` turns the rest of a line around). :func:`printable` writes every such
character out as Python does in a string literal (``\\x1b``, ``\\u202e``); newlines and tabs
stay. :class:`SafeStream` applies it to everything written to a stream, and
:func:`guard_console` puts it around ``sys.stdout`` and ``sys.stderr`` at each command's
entry, so no print of any module needs to remember it. A carriage return is kept only at the
start of a write: that is how a progress bar redraws its line (tqdm writes ``\\r`` and the
bar in one call); a carriage return inside a write, which could hide the text before it, is
escaped.
"""

from __future__ import annotations

import re
import sys
from typing import IO

__all__ = ["SafeStream", "guard_console", "printable"]

#: C0 and C1 controls but newline and tab, DEL, and the Unicode format characters that
#: reorder or hide text (bidi embeddings, overrides and isolates, marks, zero-width joiners)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _escape(match: re.Match) -> str:
    ch = match.group()
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def printable(text: str, keep_leading_cr: bool = False) -> str:
    """``text`` with every control and text-reordering character written out (``\\x1b``);
    newlines and tabs stay, and a leading carriage return with ``keep_leading_cr``."""
    text = str(text)
    if keep_leading_cr and text.startswith("\r"):
        return "\r" + _UNSAFE.sub(_escape, text[1:])
    return _UNSAFE.sub(_escape, text)


class SafeStream:
    """A text stream whose writes pass through :func:`printable` (a leading ``\\r`` kept);
    everything else (``isatty``, ``fileno``, ``encoding``, ``flush``) is the stream's own."""

    def __init__(self, stream: IO[str]):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(printable(text, keep_leading_cr=True))
        return len(text)  # what the caller gave, as a text stream reports it

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def guard_console() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` in :class:`SafeStream` (once)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, SafeStream):
            setattr(sys, name, SafeStream(stream))

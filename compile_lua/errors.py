"""Errors and warnings of the Lua level compiler, located as ``file:line:``."""
from __future__ import annotations

import re
from typing import Optional

# C0 controls but newline and tab, DEL, and the C1 controls (ESC [, CSI...): what moves a terminal's cursor,
# recolours it or retitles its window when a script's print or error text reaches it unchanged
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with terminal control characters written as escapes (``"\\x1b"``); newlines and tabs kept."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class LuaScriptError(ValueError):
    """A level script failed to compile. ``str(err)`` is ``file:line: message``.

    Attributes: ``path`` (the script or module, as given), ``line`` (1-based, or
    None when no line is known), ``message`` (without the location; terminal
    control characters escaped, see :func:`printable`).
    """

    def __init__(self, path: str, line: Optional[int], message: str):
        self.path, self.line, self.message = path, line, printable(message)
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {self.message}")


class CompileLimitError(LuaScriptError):
    """A compile that ran past its wall-clock deadline or its memory cap, or whose process died:
    the child process running it was stopped and nothing was written."""


class HostError(ValueError):
    """A host function of the engine modules refuses its arguments (a Lua error at the Lua caller)."""


class CompileWarning(UserWarning):
    """Something a script asked for that jaxlab does not model (e.g. an engine
    command); compilation goes on. ``str(w)`` is ``file:line: message``."""

"""Errors and warnings of the Lua level compiler, located as ``file:line:``."""
from __future__ import annotations

from typing import Optional


class LuaScriptError(ValueError):
    """A level script failed to compile. ``str(err)`` is ``file:line: message``.

    Attributes: ``path`` (the script or module, as given), ``line`` (1-based, or
    None when no line is known), ``message`` (without the location).
    """

    def __init__(self, path: str, line: Optional[int], message: str):
        self.path, self.line, self.message = path, line, message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


class CompileWarning(UserWarning):
    """Something a script asked for that jaxlab does not model (e.g. an engine
    command); compilation goes on. ``str(w)`` is ``file:line: message``."""

"""Where in a grid script something is: ``file:line`` for its compile errors.

The script and the user modules it required are searched as text (a trailing
``--`` comment dropped, strings not parsed) for patterns made here: a string
literal (:func:`lua_string`), a table key (:func:`lua_key`), a callback's
definition (:func:`callback_def`), the per-player part of an action or
observation name (:func:`player_suffix`). :class:`Locator` makes the
LuaScriptErrors and CompileWarnings of one compile, located at the first
line that matches.
"""
from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from compile_lua.errors import CompileWarning, LuaScriptError
from compile_lua.sandbox import LIBRARY_DIR, Sandbox

#: (file, line), 1-based.
Where = Tuple[str, int]


def lua_string(text: str) -> str:
    """A pattern for ``text`` as a Lua string literal."""
    return r"""(['"])""" + re.escape(text) + r"\1|\[=*\[" + re.escape(text) + r"\]=*\]"


def lua_key(key: str) -> str:
    """A pattern for ``key = `` or ``['key'] =`` in a table constructor."""
    return rf"(?<![\w.]){re.escape(key)}\s*=(?!=)|\[\s*(['\"]){re.escape(key)}\1\s*\]\s*="


def callback_def(name: str) -> str:
    """A pattern for the definition of api callback ``name`` (``function
    api:name(``, ``api.name = function``, ``name = function``)."""
    return (rf"function\s+[\w.]+[:.]{name}\s*\(|\b\w+\.{name}\s*=\s*function|"
            rf"(?<![\w.]){name}\s*=\s*function")


def player_suffix(name: str) -> str:
    """A pattern for the per-player part of ``n.name`` as a string literal
    (scripts usually build the names as ``p .. '.move'``)."""
    m = re.fullmatch(r"\d+(\.\w+)", name)
    return lua_string(m.group(1)) if m else ""


class ScriptSource:
    """The script and the user modules it required, for finding lines."""

    def __init__(self, script: Path, display: str, sandbox: Sandbox):
        self.files: List[Tuple[str, List[str]]] = [(display, _read_lines(script))]
        library = LIBRARY_DIR.resolve()
        for resolved in sandbox.files:
            real = Path(resolved)
            if real == script.resolve() or real.is_relative_to(library):
                continue
            self.files.append((str(real), _read_lines(real)))

    def find(self, *patterns: str, after: Optional[Where] = None) -> Optional[Where]:
        """(file, line) of the first line matching a pattern (tried in order);
        with ``after``, first from that line on in that file."""
        for pattern in patterns:
            if not pattern:
                continue
            regex = re.compile(pattern)
            if after is not None:
                for path, lines in self.files:
                    if path == after[0]:
                        for number in range(after[1], len(lines) + 1):
                            if regex.search(_code(lines[number - 1])):
                                return path, number
            for path, lines in self.files:
                for number, line in enumerate(lines, 1):
                    if regex.search(_code(line)):
                        return path, number
        return None

    def find_block(self, rows: Sequence[str], after: Optional[Where] = None) -> Optional[Where]:
        """(file, line) of the first row of a multi-line string whose rows are
        ``rows`` (the first row may share its line with ``[[``), searching from
        ``after`` first; None when not found (e.g. a string built by code)."""
        if not rows:
            return None

        def search(path: str, lines: List[str], start: int) -> Optional[Where]:
            for i in range(max(start, 1) - 1, len(lines) - len(rows) + 1):
                n = len(rows)
                if ((lines[i].endswith(rows[0]) if n > 1 else rows[0] in lines[i])
                        and all(lines[i + k] == rows[k] for k in range(1, n - 1))
                        and (n == 1 or lines[i + n - 1].startswith(rows[-1]))):
                    return path, i + 1
            return None

        if after is not None:
            for path, lines in self.files:
                if path == after[0]:
                    found = search(path, lines, after[1])
                    if found:
                        return found
        for path, lines in self.files:
            found = search(path, lines, 1)
            if found:
                return found
        return None


class Locator:
    """Located errors and warnings for one compile of the script at ``path``
    run in ``sandbox``; ``world_at`` (where the world is declared, once
    known) is where errors go that match no pattern."""

    def __init__(self, path: Path, sandbox: Sandbox):
        self.path = path
        self.display = str(path)
        self.sandbox = sandbox
        self.world_at: Optional[Where] = None
        self._source: Optional[ScriptSource] = None
        self._source_files = 0

    def source(self) -> ScriptSource:
        """The script and user modules read so far (re-read when a module was required since)."""
        if self._source is None or self._source_files != len(self.sandbox.files):
            self._source = ScriptSource(self.path, self.display, self.sandbox)
            self._source_files = len(self.sandbox.files)
        return self._source

    def error(self, message: str, *patterns: str, after: Optional[Where] = None) -> LuaScriptError:
        """A LuaScriptError located at the first line matching ``patterns``,
        else where the world is declared, else the script without a line."""
        where = self.source().find(*patterns, after=after) if patterns else None
        where = where or self.world_at
        if where is None:
            return LuaScriptError(self.display, None, message)
        return LuaScriptError(where[0], where[1], message)

    def row_error(self, rows: Sequence[str], row: int, message: str, pattern: str,
                  after: Optional[Where] = None) -> LuaScriptError:
        """A LuaScriptError at row ``row`` (0-based) of the multi-line string
        whose rows are ``rows`` (a map, sprite art) where the text holds it,
        else located like :meth:`error` at ``pattern``."""
        first = self.source().find_block(rows, after=after)
        if first is not None:
            return LuaScriptError(first[0], first[1] + row, message)
        return self.error(message, pattern, after=after)

    def warn(self, message: str, where: Optional[Where] = None) -> None:
        """A CompileWarning ``file:line: message`` (the script's name alone without ``where``)."""
        text = f"{where[0]}:{where[1]}: {message}" if where else f"{self.display}: {message}"
        warnings.warn(text, CompileWarning, stacklevel=4)


def _read_lines(path: Path) -> List[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _code(line: str) -> str:
    """The line without a trailing ``--`` comment (strings are not parsed)."""
    i = line.find("--")
    return line if i < 0 else line[:i]

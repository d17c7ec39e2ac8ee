"""Typed fields of a grid script's tables, checked with located errors.

The script's tables arrive as Python data (``Sandbox.to_python``).
:class:`FieldReader` checks a field's type and range (string, number,
integer, boolean, a list of tables or of names, one of some options) and the
keys of a table, raising a LuaScriptError that names the field
(``world.beams[1].length must be at least 1, got 0``) at the line where the
script writes it. :func:`show` and :func:`suggest` word the values and the
unknown names in those messages.
"""
from __future__ import annotations

import math

from typing import Any, Dict, List, Optional, Sequence

from lupa.lua54 import lua_type

from compile_lua.errors import LuaScriptError
from compile_lua.lab2d.source import Locator, Where, lua_key, lua_string
from jaxlab.errors import unknown_name_error

DOCS = "docs/grid_lua.md"
#: the declarative rules of a world, named where Lua code would run during play.
RULES = "contacts, beams, beamHits, transitions, matrixGame"
#: Lab2D names with a different jaxlab key, for "unknown key" messages.
RENAMED = {"renderOrder": "layers", "episodeLengthFrames": "episodeFrames", "size": "map",
           "updateOrder": "transitions", "stateCallbacks": f"the declarative rules ({RULES})",
           "hits": "beams / beamHits", "contact": "contacts", "updater": "transitions",
           "updaters": "transitions", "avatars": "players", "numPlayers": "players"}


def show(value: Any) -> str:
    """A short description of a Lua value (from to_python) for messages."""
    if value is None:
        return "nil"
    if lua_type(value) == "function":
        return "a function"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def suggest(kind: str, name: str, known: Sequence[str]) -> str:
    """``unknown <kind> 'name'. Did you mean …? Known: …`` (jaxlab's wording,
    jaxlab.errors.unknown_name_error), listing every known name."""
    text = str(unknown_name_error(kind, name, known))
    if len(known) > 12:
        text = text[:text.rindex(" Known: ")] + f" Known: {', '.join(sorted(map(str, known)))}."
    return text


class FieldReader:
    """Checks of single fields; ``where`` names the field in messages
    (``world.view.left``) and ``patterns`` locate it (see lab2d_source)."""

    def __init__(self, script: Locator):
        self.script = script

    def error(self, message: str, *patterns: str, after: Optional[Where] = None) -> LuaScriptError:
        """A LuaScriptError at the first line matching ``patterns`` (Locator.error)."""
        return self.script.error(message, *patterns, after=after)

    def check_keys(self, table: Dict[str, Any], where: str, known: Sequence[str], after: Optional[Where] = None,
                   callbacks: Optional[Dict[str, str]] = None) -> None:
        """Refuses a key of ``table`` not in ``known``: a Lab2D callback (in
        ``callbacks``, with what to declare instead), a function, or an unknown
        key (with suggestions and the jaxlab name of a renamed Lab2D key)."""
        for key, value in table.items():
            if key in known:
                continue
            key = str(key)
            if callbacks and key in callbacks:
                raise self.error(f"{where}.{key} cannot be compiled: it is a Lab2D state callback that would "
                                 f"run every frame; declare it with {callbacks[key]} instead (see {DOCS})",
                                 lua_key(key), after=after)
            if lua_type(value) == "function":
                raise self.error(f"{where}.{key} is a function: functions in the world run during play and "
                                 f"cannot be compiled; declare what they do with {RULES} (see {DOCS})",
                                 lua_key(key), after=after)
            hint = f" (Lab2D's {key} is {RENAMED[key]} here)" if key in RENAMED else ""
            raise self.error(f"{where}: {suggest('key', key, known)}{hint}", lua_key(key), after=after)

    def check_unique(self, names: List[str], where: str, noun: str) -> None:
        """Refuses a name listed twice in ``names``, the field ``where`` (``world.layers``)."""
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise self.error(f"{where}: {noun} names must be unique (repeated: {', '.join(dup)})",
                             lua_key(where.split(".")[-1]))

    def string(self, value: Any, where: str, *patterns: str, allow_empty: bool = False) -> str:
        """``value`` if it is a string (non-empty unless ``allow_empty``)."""
        if not isinstance(value, str) or (not value and not allow_empty):
            raise self.error(f"{where} must be a {'string' if allow_empty else 'non-empty string'}, "
                             f"got {show(value)}", *patterns)
        return value

    def number(self, value: Any, where: str, *patterns: str, lo: Optional[float] = None,
               hi: Optional[float] = None) -> float:
        """``value`` as a float, if it is a finite number within ``lo``..``hi``."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(f"{where} must be a number, got {show(value)}", *patterns)
        if not math.isfinite(value):
            raise self.error(f"{where} must be a finite number, got {show(value)}", *patterns)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = f"in [{lo}, {hi}]" if lo is not None and hi is not None else \
                f">= {lo}" if lo is not None else f"<= {hi}"
            raise self.error(f"{where} must be {bounds}, got {value}", *patterns)
        return float(value)

    def integer(self, value: Any, where: str, *patterns: str, lo: Optional[int] = None) -> int:
        """``value`` as an int, if it is a whole number of at least ``lo``."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value):
            raise self.error(f"{where} must be an integer, got {show(value)}", *patterns)
        if lo is not None and value < lo:
            raise self.error(f"{where} must be at least {lo}, got {int(value)}", *patterns)
        return int(value)

    def boolean(self, value: Any, where: str, *patterns: str) -> bool:
        """``value`` if it is true or false."""
        if not isinstance(value, bool):
            raise self.error(f"{where} must be true or false, got {show(value)}", *patterns)
        return value

    def table_list(self, value: Any, where: str, *patterns: str) -> List[Dict[str, Any]]:
        """``value`` if it is a list of tables; nil and ``{}`` are empty lists."""
        if value is None or value == {}:
            return []
        if isinstance(value, dict):
            raise self.error(f"{where} must be a list of tables {{...}}, {{...}} (got a table with keys "
                             f"{sorted(map(str, value))[:5]}; wrap a single entry in {{ }})", *patterns)
        if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
            raise self.error(f"{where} must be a list of tables, got {show(value)}", *patterns)
        return value

    def string_list(self, value: Any, where: str, *patterns: str) -> List[str]:
        """``value`` if it is a list of non-empty strings; one string is a list
        of one, nil and ``{}`` are empty lists."""
        if value is None or value == {}:
            return []
        if isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(f"{where} must be a list of names, got {show(value)}", *patterns)
        return value

    def choice(self, value: Any, where: str, options: Sequence[str]) -> str:
        """``value`` lower-cased, if it is one of ``options`` in any case."""
        key = where.split(".")[-1]
        text = self.string(value, where, lua_key(key))
        if text.lower() not in options:
            raise self.error(f"{where} must be one of {', '.join(o.upper() for o in options)}, got {text!r}",
                             lua_string(text), lua_key(key))
        return text.lower()

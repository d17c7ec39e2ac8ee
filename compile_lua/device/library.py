"""The library's values a translated callback may hold: Lua's own functions, engine modules, and engine functions
that a level's host tables hold (``compile_lua.device.builtins`` gives them meaning)."""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Builtin:
    """A library function value: ``name`` is e.g. ``math.floor``."""

    name: str


#: Lua's ``error``: where it runs, the play state's error flag is set and the function stops
#: (``conversions.lua_error``; its message is never evaluated)
LUA_ERROR = Builtin("error")


@dataclasses.dataclass(frozen=True)
class Module:
    """An engine module bound to a top-level local: ``kind`` is ``game``, ``random``, ``tensor`` (DMLab's)
    or ``lab2d_tensor`` (Lab2D's ``system.tensor``)."""

    kind: str


@dataclasses.dataclass(frozen=True)
class EngineFunction:
    """A function of an engine module that runs on the device (``pushbox.generate``): ``name``."""

    name: str

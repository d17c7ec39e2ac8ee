"""Global names at play time: Lua's own (``math``, ``string``, ``tostring``, ``unpack``, ``table``, ``error``),
the engine modules a top-level local is bound to, and why the others cannot run on the device.
"""
from __future__ import annotations

from typing import Any

from compile_lua.device import conversions
from compile_lua.device.library import LUA_ERROR, Builtin, Module

_UNSAFE = {"os", "debug", "coroutine", "setmetatable", "getmetatable", "load", "require", "pairs",
           "ipairs", "next", "rawset", "rawget", "pcall", "xpcall", "print", "select", "table",
           "utf8", "dofile", "loadfile"}
_UNSAFE_WHY = {"setmetatable": "metatables change what indexing and operators do at run time",
               "getmetatable": "metatables change what indexing and operators do at run time",
               "coroutine": "coroutines keep a second stack",
               "os": "a kernel cannot reach the operating system", "pairs": "tables are walked with a numeric for",
               "ipairs": "it is translated only as a generic for's iterator (for i, v in ipairs(t))",
               "table": "table.insert/remove grow or shrink tables",
               "load": "code made at play time cannot be translated ahead of time"}


def module(it: Any, kind: str, name: str) -> Any:
    """The value of a top-level local bound to ``require``: engine modules only."""
    if kind in ("game", "random", "tensor", "lab2d_tensor", "events"):
        return Module(kind)
    if kind == "system.properties":   # Lab2D's PROPERTY_RESULT codes
        return {"SUCCESS": 0, "NOT_FOUND": 1, "PERMISSION_DENIED": 2, "INVALID_ARGUMENT": 3}
    it.fail(f"the module '{kind}' (local {name})", "only dmlab.system.game, dmlab.system.random "
            "(or common.random), dmlab.system.tensor, dmlab.system.events, system.tensor and system.random can be used at "
            "play time")


def global_value(it: Any, name: str, node: Any) -> Any:
    """A global name: ``math``, ``string``, ``tostring``, ``tonumber``, or a rejection."""
    if name == "error":
        return LUA_ERROR
    if name == "unpack":   # Lua 5.1's name for table.unpack (DMLab's scripts are written for 5.1)
        return Builtin("table.unpack")
    if name == "table":   # table.insert (a list a callback builds, ``sparse_lists``) and table.unpack
        return Builtin("table")
    if name == "io":   # only io.flush, a no-op: the printed output it flushes is the host's; play prints nothing
        return Builtin("io")
    if name in ("math", "string") or name in conversions.LUA_FUNCTIONS:
        return conversions.LUA_FUNCTIONS.get(name, Builtin(name))
    if name in _UNSAFE:
        it.fail(f"'{name}'", _UNSAFE_WHY.get(name, "it has no meaning inside a kernel"), node)
    if name in it.o.globals:
        it.fail(f"the global variable '{name}'", "play-time state must be a top-level local or an api field", node)
    it.fail(f"the global '{name}'", "the script never defines it", node)

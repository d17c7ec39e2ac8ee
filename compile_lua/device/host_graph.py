"""The host objects play time can reach, as plain data: :class:`HostGraph`.

A Lab2D level made with Lab2D's libraries keeps its play-time code in closures and objects that its
main chunk and ``init`` built on the host: the api's methods, the state callbacks a method returns, a
class instance's methods behind its metatable, the observation specs' ``func`` fields, a world, its
views and a tile set. :func:`snapshot` walks them from the api table (fields, metatables, function
upvalues) and writes each down once:

- ``("table", ((key, value), ...), metatable value or None)``;
- ``("function", file, first line, last line, ((upvalue name, value), ...), (variable, ...))`` for a Lua
  function of a file the sandbox loaded (``files[file]`` holds its text; each upvalue's variable named as
  :func:`cell_names` names it);
- ``("builtin", name)`` for one of Lua's own functions (``tostring``, ``math.floor``, ...);
- ``("module", name)`` for an engine module's table (``system.random``, ``system.grid_world``, ...);
- ``("tensor", dtype, shape, hex)`` for a tensor made on the host;
- ``("opaque", what)`` for anything else (a coroutine, a function ``load`` made).

A value is a number, a string, a boolean, or ``("ref", id)``. The graph is what a compile's child
process sends back with the translation; :mod:`compile_lua.device.host_values` reads it at trace time.
"""
from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Dict, List, Optional, Tuple

from lupa.lua54 import lua_type

from compile_lua.device.source import reject

#: engine modules recognised by their table (name as ``require`` loads it)
ENGINE_TABLES = ("dmlab.system.tensor", "dmlab.system.random", "system.random", "system.tensor",
                 "dmlab.system.game", "dmlab.system.events")   # later wins
#: Lua's own functions a closure may hold as an upvalue, by name
BUILTIN_NAMES = ("tostring", "tonumber", "type", "pairs", "ipairs", "next", "select", "error", "assert",
                 "rawget", "rawset", "rawequal", "rawlen", "setmetatable", "getmetatable", "print", "pcall")
BUILTIN_LIBRARIES = ("math", "string", "table")
MAX_NODES = 200_000
#: per sandbox: (upvalue identity -> (``file:local``, variable name), name -> how many variables have it) (``cell_names``)
_NAMES: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()


@dataclasses.dataclass(frozen=True)
class HostGraph:
    """Host objects as plain data (see the module): ``nodes`` id -> node, ``files`` file -> text, ``root``
    the api table's value."""

    nodes: Dict[int, tuple]
    files: Dict[str, str]
    root: Any

    def node(self, value: Any) -> Optional[tuple]:
        """The node a ``("ref", id)`` value names (None for a plain value)."""
        return self.nodes[value[1]] if isinstance(value, tuple) and value[:1] == ("ref",) else None

    def raw_field(self, table: Any, key: Any) -> Any:
        """``rawget(table, key)`` of a table value (None when absent)."""
        node = self.node(table)
        for k, v in node[1]:
            if k == key and type(k) is type(key):
                return v
        return None

    def field(self, table: Any, key: Any) -> Any:
        """``table[key]`` with ``__index`` tables followed (Lua's lookup); a function ``__index`` is
        followed only when the field is absent, and gives ``("index_function", fn)``."""
        for _ in range(64):
            value = self.raw_field(table, key)
            if value is not None:
                return value
            meta = self.node(table)[2]
            index = self.raw_field(meta, "__index") if meta is not None else None
            if index is None:
                return None
            if self.node(index)[0] != "table":
                return ("index_function", index)
            table = index
        return None

    def items(self, table: Any) -> List[Tuple[Any, Any]]:
        """A table's own (key, value) pairs."""
        return list(self.node(table)[1])

    def kind(self, value: Any) -> Optional[str]:
        """The ``__jaxlab`` field of a table made by a jaxlab engine module (``grid_world.World``, ...)."""
        node = self.node(value)
        if node is None or node[0] != "table":
            return None
        kind = self.field(value, "__jaxlab")
        return kind if isinstance(kind, str) else None


def cell_names(sandbox: Any, func: Any) -> Dict[str, str]:
    """Upvalue name -> the name of the variable it is, for Lua function ``func`` in ``sandbox`` (no ``_ENV``):
    ``file:local`` (the file the function, and so the local, is written in), ``file:local#2`` for a second
    variable of that name in the file (a local of a function called twice); ``{}`` for a function not written
    in a file the sandbox loaded. Names are given in the order variables are first met, per sandbox."""
    where = sandbox.defined_at(func)
    if where is None:
        return {}
    known, counts = _NAMES.setdefault(sandbox, ({}, {}))
    names, ids, count = sandbox._p.upvalue_ids(func)
    out = {}
    for i in range(1, count + 1):
        base = f"{where[0]}:{names[i]}"
        if known.get(ids[i], ("",))[0] != base:   # new (or an identity a collected one had)
            counts[base] = counts.get(base, 0) + 1
            known[ids[i]] = (base, base if counts[base] == 1 else f"{base}#{counts[base]}")
        out[names[i]] = known[ids[i]][1]
    return out


def snapshot(sandbox: Any, root: Any) -> HostGraph:
    """The graph of host objects reachable from ``root`` (the api table) in ``sandbox``."""
    p = sandbox._p
    known: Dict[int, tuple] = {}
    loaded = p.env.package.loaded
    for name in ENGINE_TABLES:
        table = p.field(loaded, name)
        if lua_type(table) == "table":
            known[int(p.ident(table))] = ("module", name)
    genv = p.env
    for name in BUILTIN_NAMES:
        f = p.field(genv, name)
        if lua_type(f) == "function":
            known[int(p.ident(f))] = ("builtin", name)
    for lib in BUILTIN_LIBRARIES:
        table = p.field(genv, lib)
        if lua_type(table) == "table":
            known[int(p.ident(table))] = ("module", lib)
            _, n, keys, values, _ = p.entries(table)
            for i in range(1, n + 1):
                if lua_type(values[i]) == "function":
                    known[int(p.ident(values[i]))] = ("builtin", f"{lib}.{keys[i]}")
    nodes: Dict[int, tuple] = {}
    files: Dict[str, str] = {}
    todo: List[Any] = []

    def value(v: Any) -> Any:
        t = lua_type(v)
        if t is None:
            return v if not isinstance(v, bytes) else v.hex()
        ident = int(p.ident(v)) if t in ("table", "function") else None
        if ident is None:
            return ("opaque", t)
        if ident not in nodes:
            if len(nodes) >= MAX_NODES:
                reject(str(sandbox.script), None, "a level whose host objects are this many",
                       f"play time may reach at most {MAX_NODES} tables and functions")
            nodes[ident] = known.get(ident) or ("pending",)
            if ident not in known:
                todo.append((ident, v))
        return ("ref", ident)

    made = value(root)
    while todo:
        ident, v = todo.pop()
        nodes[ident] = _node(sandbox, v, value, files)
    return HostGraph(nodes, files, made)


def _node(sandbox: Any, v: Any, value, files: Dict[str, str]) -> tuple:
    p = sandbox._p
    if lua_type(v) == "function":
        where = sandbox.defined_at(v)
        if where is None:
            return ("opaque", "a function not written in a file the level loaded")
        display, real, first, last = where
        if display not in files:
            files[display] = real.read_text(encoding="utf-8", errors="replace")
        ups = tuple((name, value(u)) for name, u in sandbox.upvalues(v).items())
        cells = cell_names(sandbox, v)
        return ("function", display, first, last, ups, tuple(cells.get(name) for name, _ in ups))
    info = p.tensor_info(v)
    if isinstance(info, tuple) and info[0] is not None:
        return ("tensor", str(info[0]), tuple(int(d) for d in str(info[1]).split(",")), str(info[2]))
    _, n, keys, values, flags = p.entries(v)
    fields = []
    for i in range(1, n + 1):
        k, x = keys[i], values[i]
        if lua_type(k) is not None or flags[i]:
            continue   # a table or function as a key (no static name reaches it), or bytes that are not text
        fields.append((k, value(x)))
    meta = p.meta(v)
    return ("table", tuple(fields), value(meta) if lua_type(meta) == "table" else None)

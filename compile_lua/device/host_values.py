"""Host objects and closures as translator values.

- :class:`HostTable`: a table of the :class:`~compile_lua.device.host_graph.HostGraph`, read-only at play
  time: indexing it with a key known at translation time reads the host's value (``__index`` tables
  followed, so a class instance finds its methods), ``#t`` and ``ipairs``/``pairs`` walk its keys.
- :class:`HostFunction`: a Lua function of the graph; calling it inlines its source with its upvalues.
- :class:`Closure`: a function made at play time (``function(grid, piece) ... end`` inside a callback),
  holding the scopes it was made in; calling it inlines it there.

The api table itself reads as ``values.API``: its fields are play-time state once a callback writes them
(``callstate.Env.write``), the host's values until then.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Dict, List, Optional

import jax.numpy as jnp
import numpy as np
from luaparser import astnodes as n

from compile_lua.device import conversions
from compile_lua.device.host_graph import HostGraph
from compile_lua.device.library import LUA_ERROR, Builtin, EngineFunction, Module
from compile_lua.device.source import FunctionDef, parameters, parse
from compile_lua.device.values import (API, Arr, MaybeNum, MaybeStr, Num, Str, as_num, choice_index, finite_choices,
                                       lua_type, select)

#: engine module tables, by the name ``require`` loads them with, as the translator's module kinds
MODULE_KINDS = {"system.random": "random", "dmlab.system.random": "random", "system.tensor": "lab2d_tensor",
                "dmlab.system.tensor": "tensor", "dmlab.system.game": "game", "dmlab.system.events": "events"}


@dataclasses.dataclass(frozen=True, eq=False)
class HostTable:
    """A host table (``ref``: its ``("ref", id)`` in ``graph``)."""

    graph: HostGraph
    ref: tuple
    LUA_TYPE = "table"

    @property
    def kind(self) -> Optional[str]:
        """Its ``__jaxlab`` kind (a world, view, tile set, scene made by jaxlab's engine modules) or None."""
        return self.graph.kind(self.ref)


@dataclasses.dataclass(frozen=True, eq=False)
class HostFunction:
    """A Lua function of the host (``ref`` in ``graph``)."""

    graph: HostGraph
    ref: tuple


class UpvalueScope(dict):
    """The scope of a host function's upvalues: read-only at play time, but for the variables in ``cells``
    (upvalue name -> state key, ``compile_lua.device.upvalues``) that play-time state holds."""

    def __init__(self, items=(), cells: Optional[Dict[str, str]] = None):
        super().__init__(items)
        self.cells = dict(cells or {})


@dataclasses.dataclass(eq=False)
class Closure:
    """A function to inline: ``fdef`` run in ``scopes`` (the scopes it was made in, outermost first),
    written in ``path``; ``free_globals``: names it does not find in ``scopes`` are globals (a host
    function's file is not the outline's)."""

    fdef: FunctionDef
    scopes: List[Dict[str, Any]]
    path: str
    free_globals: bool


def host_value(graph: HostGraph, value: Any, fail) -> Any:
    """The translator value of a graph value: numbers, strings and booleans as they are, the root (the api)
    as ``API``, tables as HostTable, functions as HostFunction, engine modules and Lua's own functions as the
    builtins name them. ``fail(construct, why)`` rejects what play time cannot hold."""
    node = graph.node(value)
    if node is None:
        if isinstance(value, tuple) and value[:1] == ("opaque",):
            fail(f"a {value[1]} kept on the host", "play time can read numbers, strings, booleans, tables and "
                 "functions")
        return value
    if value == graph.root:
        return API
    kind = node[0]
    if kind == "table":
        return HostTable(graph, value)
    if kind == "function" and node[1] == "system/generators/pushbox.lua":   # the library's pushbox.generate
        return EngineFunction("pushbox.generate")
    if kind == "function":
        return HostFunction(graph, value)
    if kind == "module":
        if node[1] in MODULE_KINDS:
            return Module(MODULE_KINDS[node[1]])
        if node[1] in ("math", "string"):
            return Builtin(node[1])
        fail(f"the library '{node[1]}'", "only math and string translate")
    if kind == "builtin":
        name = node[1]
        if name in conversions.LUA_FUNCTIONS:
            return conversions.LUA_FUNCTIONS[name]
        if name in ("pairs", "ipairs"):
            return Builtin(name)
        if name == "error":
            return LUA_ERROR
        if ("." in name and name.split(".")[0] in ("math", "string")) or name == "table.unpack":
            return Builtin(name)
        fail(f"Lua's {name}", "it has no meaning inside a kernel")
    if kind == "tensor":
        fail("a tensor made on the host and read at play time", "make it in api:start, or keep its numbers in a "
             "table")
    fail(f"a {node[1] if kind == 'opaque' else kind} kept on the host", "play time cannot call or read it")


#: the prefix of the state key of a variable host functions share as an upvalue (``compile_lua.device.upvalues``)
UPVALUE = "upvalue."
#: the prefix of the state keys of host tables' fields written at play time (``state_key``)
HOST_FIELD = "hostfield."


def state_key(t: HostTable, key: Any) -> str:
    """The state key of field ``key`` of host table ``t`` once play writes it (``self.count = 0`` in a method
    of a class instance kept on the host): its own, whichever name reaches the table."""
    return f"{HOST_FIELD}{t.ref[1]}.{key}"


def parse_state_key(graph: HostGraph, key: str) -> tuple:
    """``(table ref, field)`` of a state key: an api field's (``api.x``) or a host table's (``state_key``)."""
    if key.startswith("api."):
        return graph.root, key[4:]
    table, _, name = key[len(HOST_FIELD):].partition(".")
    return ("ref", int(table)), name


def field(t: HostTable, key: Any, fail) -> Any:
    """``t[key]`` for a key known at translation time."""
    value = t.graph.field(t.ref, key)
    if isinstance(value, tuple) and value[:1] == ("index_function",):
        fail(f"reading the field {key!r} through an __index function", "a table's missing fields are read "
             "through __index tables only")
    return host_value(t.graph, value, fail)


def length(t: HostTable) -> int:
    """``#t``: the border of its integer keys from 1."""
    keys = {k for k, _ in t.graph.items(t.ref) if isinstance(k, int)}
    size = 0
    while size + 1 in keys:
        size += 1
    return size


def keys(t: HostTable) -> List[Any]:
    """The keys of ``t`` in the order the sandbox's ``pairs`` walks them (:func:`pairs_order`)."""
    return pairs_order([k for k, _ in t.graph.items(t.ref)])


def pairs_order(keys: List[Any]) -> List[Any]:
    """``keys`` (a table's) in the order the sandbox's ``pairs`` walks them (Lua's own order is unspecified):
    the integers 1..n without a gap, then the other numbers ascending, strings in byte order, false, true."""
    present = set(k for k in keys if isinstance(k, int) and not isinstance(k, bool))
    n_ = 0
    while n_ + 1 in present:
        n_ += 1
    rest = [k for k in keys if not (isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= n_)]
    return list(range(1, n_ + 1)) + sorted(rest, key=_key_order)


def _key_order(k: Any) -> tuple:
    """A sort key of a table key other than 1..n in the sandbox's ``pairs`` order."""
    if isinstance(k, bool):
        return (3, int(k), b"")
    if isinstance(k, (int, float)):
        return (1, k, b"")
    return (2, 0, k.encode() if isinstance(k, str) else bytes(k) if isinstance(k, bytes) else str(k).encode())


@functools.lru_cache(maxsize=64)
def _functions(text: str) -> Dict[tuple, List[Any]]:
    """(first line, last line) -> the function nodes of a file's text written there."""
    found: Dict[tuple, List[Any]] = {}
    from luaparser import ast as lua_ast
    for node in lua_ast.walk(parse("<host>", text)):
        if isinstance(node, (n.AnonymousFunction, n.Function, n.LocalFunction, n.Method)):
            found.setdefault((node.line, node.last_token.line), []).append(node)
    return found


def function_at(text: str, line: int) -> Any:
    """The first function node (in the parse tree's walk order) of file ``text`` written from ``line``, or None."""
    return next((nodes[0] for (first, _), nodes in _functions(text).items() if first == line), None)


def source_node(path: str, text: str, first: int, last: int) -> Any:
    """The luaparser node of the one function of file ``text`` written from line ``first`` to ``last``, or None
    when none or several are."""
    found = _functions(text).get((first, last), [])
    return found[0] if len(found) == 1 else None


def written_in(f: HostFunction, file: str) -> bool:
    """Whether the host function ``f`` is written in a file whose path ends with ``file`` (``common/log.lua``)."""
    node = f.graph.node(f.ref)
    return node[0] == "function" and str(node[1]).replace("\\", "/").endswith("/" + file)


def closure_of(f: HostFunction, fail) -> Closure:
    """The Closure a host function is: its source found by the lines Lua gives, its upvalues its scope (those
    that are variables play-time state holds named in the scope's ``cells``)."""
    node = f.graph.node(f.ref)
    _, path, first, last, upvalues = node[:5]
    found = source_node(path, f.graph.files[path], first, last)
    if found is None:
        fail(f"the function at {path}:{first}", "no single function is written on those lines (write one "
             "function per line)" if _functions(f.graph.files[path]).get((first, last)) else "its source was not "
             "found")
    cells = {name: UPVALUE + cell for (name, _), cell in zip(upvalues, node[5] if len(node) > 5 else ()) if cell}
    scope = UpvalueScope(((name, host_value(f.graph, v, fail)) for name, v in upvalues), cells)
    return Closure(function_def(path, found), [scope], path, True)


def function_def(path: str, node: Any, name: Optional[str] = None) -> FunctionDef:
    """The FunctionDef of a luaparser function node (a method's ``self`` first)."""
    params = (["self"] if isinstance(node, n.Method) else []) + parameters(node.args)
    return FunctionDef(name or f"function at line {node.line}", params, node.body, node.line, 0)


def plain(graph: Any, value: Any, _within: tuple = ()) -> Any:
    """A graph value as Python data (tables as dicts, or lists for keys 1..n; a Lua function of a file as its key
    ``("host", id)``, ``compile_lua.device.stored_functions``; a tensor as a numpy array); a table inside itself,
    and anything else, as None."""
    node = graph.node(value)
    if node is None:
        return value
    if node[0] == "function":
        return ("host", value[1])
    if node[0] == "tensor":
        _, dtype, shape, hexdata = node
        return np.frombuffer(bytes.fromhex(hexdata), np.dtype(dtype).newbyteorder("<")).reshape(tuple(shape))
    if node[0] != "table" or value in _within:
        return None
    items = {k: plain(graph, v, _within + (value,)) for k, v in node[1]}
    if items and sorted(k for k in items if isinstance(k, int)) == list(range(1, len(items) + 1)):
        return [items[i] for i in range(1, len(items) + 1)]
    return items


def data(v: Any) -> Any:
    """A host table of numbers as a fixed table (Arr), one of strings as a list of them; anything else as it
    is."""
    if isinstance(v, HostTable) and v.kind is None:
        items = plain(v.graph, v.ref)
        if isinstance(items, list) and items and all(isinstance(x, str) for x in items):
            return list(items)
        if isinstance(items, list) and items and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                     for x in items):
            dtype = jnp.int32 if all(isinstance(x, int) for x in items) else jnp.float32
            return Arr(jnp.asarray(items, dtype), static=tuple(items))
    return v


def host_lookup(it: Any, table: HostTable, key: Any, node: Any) -> Any:
    """``t[k]`` of a host table at a key known only at play time (a string from a finite set, or an integer):
    each candidate key's value, chosen on the device; an integer key the table lacks reads nil (for strings and
    numbers; a table's value is read as its first candidate's there)."""
    choices = finite_choices(key)
    present = True
    if choices is None and isinstance(key, Num) and key.is_int:
        choices = sorted(k for k, _ in table.graph.items(table.ref) if isinstance(k, int))
        if not choices:
            it.fail("indexing a table kept on the host with an integer", "it has no integer keys", node)
        hits = key.x == jnp.asarray(choices, jnp.int32)
        index, present = jnp.argmax(hits).astype(jnp.int32), jnp.any(hits)
    elif choices is None:
        it.fail("indexing a table kept on the host with a key known only at play time", "the key must be a string "
                "from a finite set or an integer", node)
    else:
        index = choice_index(key, choices, it.env.intern)
    values = [data(field(table, c, it.fail)) for c in choices]
    held = [v for v in values if v is not None]
    if held and len(held) < len(values) and lua_type(held[0]) == "table":
        # a table at some keys and nil at others: where Lua would read nil it stops at the next use of it, so
        # those keys are taken as never reached and read the first table
        values = [held[0] if v is None else v for v in values]
    out = values[0]
    for i, v in enumerate(values[1:], start=1):
        out = select(index == i, v, out, it.env.intern, it.failer("a value read from a host table"))
    if present is not True and isinstance(out, (str, Str)):
        out = out if isinstance(out, Str) else Str(jnp.int32(it.env.intern(out)), frozenset([out]))
        return MaybeStr(out.gid, out.cands, present)
    if present is not True and isinstance(out, (int, float, Num)):
        num = as_num(out)
        return MaybeNum(num.x, num.lo, num.hi, present)
    return out

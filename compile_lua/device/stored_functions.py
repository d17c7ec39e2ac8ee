"""Functions kept in play-time state: a timer's callback, a widget's handler (PsychLab's point-and-click
framework keeps ``{name = ..., timeout = ..., callback = function(...) ... end}`` in a table of timers and calls
the callback frames later).

A function value is kept by its key (:func:`function_key`), data that names it in any process:

- ``("def", name)``: a function the play source defines at its top level;
- ``("host", id)``: a Lua function of the host's object graph (``host_values.HostFunction``);
- ``("closure", path, line, name, free_globals, captured)``: a function expression made at play time, found again
  by where it is written, with the values of the names it uses from the scopes it was made in (``captured``:
  ``((name, value), ...)``, each a constant, a host object or function, the api, an engine module, or
  ``("cell", state key)`` for a variable play-time state holds). A function that uses a value known only at play
  time (a traced local) cannot be kept: it is refused.

Its layout entry is ``("fn", (key, ...))`` (``compile_lua.device.layouts``): the variable holds the index of its
function among those keys (int32), and more functions widen the entry (:func:`joined_keys`). Loaded, it is a
:class:`FnChoice`, called as each candidate where its index says so (of one key: that function, directly).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional

import jax.numpy as jnp
from luaparser import ast as lua_ast
from luaparser import astnodes as n

from compile_lua.device.host_values import Closure, HostFunction, HostTable, UpvalueScope, function_at, function_def
from compile_lua.device.library import Builtin, Module
from compile_lua.device.source import FunctionDef, reject
from compile_lua.device.values import API, MERGERS, is_traced

@dataclasses.dataclass
class FnChoice:
    """One of several functions (or nil): ``index`` (int32, traced) into ``keys``; ``present`` (bool) whether it
    holds a function at all."""

    index: Any
    keys: tuple
    present: Any = True
    LUA_TYPE = "function"


def is_function(v: Any) -> bool:
    """Whether ``v`` is a function value the translator can keep (FnChoice included)."""
    return isinstance(v, (FunctionDef, Closure, HostFunction, FnChoice)) or \
        (isinstance(v, Builtin) and "." in v.name)


def _free_names(body: Any) -> List[str]:
    """The names a function body reads as variables (not the field names of ``a.b``), in order."""
    names: List[str] = []
    skip = set()
    for node in lua_ast.walk(body):
        if isinstance(node, n.Index) and node.notation == n.IndexNotation.DOT:
            skip.add(id(node.idx))
        elif isinstance(node, n.Name) and id(node) not in skip and node.id not in names:
            names.append(node.id)
    return names


def _encoded(value: Any, fail: Callable[[str], Any]) -> Any:
    """A captured value as data (see the module)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if value is API:
        return ("api",)
    if isinstance(value, HostTable):
        return ("table", value.ref[1])
    if isinstance(value, Module):
        return ("module", value.kind)
    if is_function(value) and not isinstance(value, FnChoice):
        return ("fn", function_key(value, fail))
    return fail("a function that uses a value known only at play time (a local that holds a traced number, a "
                "string or a table made at play)")


def function_key(f: Any, fail: Callable[[str], Any]) -> tuple:
    """The key of the function value ``f`` (see the module); ``fail(why)`` refuses one that cannot be kept."""
    if isinstance(f, HostFunction):
        return ("host", f.ref[1])
    if isinstance(f, FunctionDef):
        return ("def", f.name)
    if isinstance(f, Builtin):
        return ("builtin", f.name)
    if not isinstance(f, Closure):
        return fail(f"a {type(f).__name__} kept as a function")
    captured = []
    for name in _free_names(f.fdef.body):
        for scope in reversed(f.scopes):
            if name in scope:
                cell = scope.cells.get(name) if isinstance(scope, UpvalueScope) else None
                captured.append((name, ("cell", cell) if cell else _encoded(scope[name], fail)))
                break
    return ("closure", f.path, f.fdef.line, f.fdef.name, f.free_globals, tuple(captured))


def function_of(key: tuple, outline: Any, graph: Any, sources: Dict[str, str]) -> Any:
    """The function value of ``key``: ``outline`` (the play source's) holds the top-level functions, ``graph`` (a
    HostGraph, or None) the host's objects, ``sources`` (path -> text) the files functions are written in."""
    if key[0] == "def":
        return outline.functions.get(key[1]) or next(f for f in outline.methods.values() if f.name == key[1])
    if key[0] == "host":
        return HostFunction(graph, ("ref", key[1]))
    if key[0] == "builtin":
        return Builtin(key[1])
    _, path, line, name, free_globals, captured = key
    node = function_at(sources[path], line)
    if node is None:
        reject(path, line, "a function kept in play-time state", "its source was not found")
    fdef = function_def(path, node, name)
    values, cells = {}, {}
    for var, value in captured:
        if isinstance(value, tuple) and value[:1] == ("cell",):
            cells[var] = value[1]
        else:
            values[var] = _decoded(value, outline, graph, sources)
    return Closure(fdef, [UpvalueScope(values, cells)], path, free_globals)


def _decoded(value: Any, outline: Any, graph: Any, sources: Dict[str, str]) -> Any:
    if not isinstance(value, tuple):
        return value
    if value == ("api",):
        return API
    if value[0] == "table":
        return HostTable(graph, ("ref", value[1]))
    if value[0] == "module":
        return Module(value[1])
    return function_of(value[1], outline, graph, sources)


def joined_keys(keys: tuple, more: tuple) -> tuple:
    """``keys`` and then those of ``more`` it lacks: the keys of a variable that holds functions of both."""
    return keys + tuple(k for k in more if k not in keys)


def choice_of(f: Any, fail: Callable[[str], Any]) -> FnChoice:
    """``f`` (a function, a FnChoice or nil) as a FnChoice."""
    if isinstance(f, FnChoice):
        return f
    if f is None:
        return FnChoice(jnp.int32(0), (), False)
    return FnChoice(jnp.int32(0), (function_key(f, fail),))


def _select(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> Any:
    """``select`` of two values that are each a function or nil (see :func:`compile_lua.device.values.select`)."""
    if a is not None and b is not None and not isinstance(a, FnChoice) and not isinstance(b, FnChoice) and \
            function_key(a, fail) == function_key(b, fail):
        return a
    x, y = choice_of(a, fail), choice_of(b, fail)
    keys = joined_keys(x.keys, y.keys)
    ix = _remapped(x, keys)
    iy = _remapped(y, keys)
    present = True if x.present is True and y.present is True else jnp.where(c, x.present, y.present)
    return FnChoice(jnp.where(c, ix, iy).astype(jnp.int32), keys, present)


def _remapped(f: FnChoice, keys: tuple) -> Any:
    """``f``'s index among ``keys`` (a superset of its own)."""
    if not f.keys:
        return jnp.int32(0)
    table = jnp.asarray([keys.index(k) for k in f.keys], jnp.int32)
    return table[f.index] if is_traced(f.index) or len(f.keys) > 1 else table[0]


def stored_index(f: Any, keys: tuple, fail: Callable[[str], Any]) -> Any:
    """The int32 a variable of entry ``("fn", keys)`` keeps for the function ``f`` (a FnChoice or a function)."""
    return _remapped(choice_of(f, fail), keys)


def key_set(f: Any, fail: Callable[[str], Any]) -> Optional[tuple]:
    """The keys a function value may be (None for nil)."""
    return None if f is None else choice_of(f, fail).keys


for _type in (FunctionDef, Closure, HostFunction, FnChoice):
    MERGERS[_type] = _select


def call_choice(it: Any, f: FnChoice, args: List[Any]) -> List[Any]:
    """Call the function ``f`` holds, each candidate where its index (and presence) says so, in the Interpreter
    ``it``; the results merged (Lua would stop with an error calling nil: there the call does nothing)."""
    from compile_lua.device.values import select
    results: Optional[List[Any]] = None
    for i, key in enumerate(f.keys):
        cond = f.index == i if len(f.keys) > 1 else True
        cond = cond if f.present is True else jnp.logical_and(cond, f.present)
        out: Dict[str, List[Any]] = {}
        run = lambda key=key: out.update(r=it.inline(it.callable(it.env.tr.function_value(key)), args))  # noqa: E731
        if cond is True:
            run()
        else:
            it.branch(cond, run, lambda: None)
        got = out.get("r", [])
        if results is None or cond is True:
            results = got
            continue
        width = max(len(results), len(got))
        results = [select(cond, (got + [None] * width)[j], (results + [None] * width)[j], it.env.intern,
                          it.failer("a call of one of several functions")) for j in range(width)]
    return results or []

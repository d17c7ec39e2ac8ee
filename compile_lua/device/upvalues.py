"""Play-time state kept in another file's local: the upvalues a host function writes.

DeepMind Lab's decorators add functions to the api from their own modules: ``custom_observations.decorate(api)``
sets ``api.setInstruction(text)``, a closure that writes a local of the decorator's module, which the decorator's
``customObservation('INSTR')`` reads. A play-time callback that calls such a setter (``self.setInstruction(s)``
in ``api:pickup``) changes that local as it plays, so the local is play-time state, as an api field would be.

Each such variable is named by where it is declared (:func:`cell_names`: ``file:local``, the same name for every
closure that shares it, as Lua's upvalue identities say), and its state key is ``upvalue.<that name>``
(:data:`UPVALUE`). :func:`setters` finds, on the host, the api's functions written outside the play source whose
own body assigns one of their upvalues; :func:`written_cells` gives the values those variables hold now (each
episode's start values). The translator reads and writes them through the upvalue scope of the host function it
inlines (``host_values.UpvalueScope.cells``), wherever that function is written.
"""
from __future__ import annotations

from typing import Any, Dict, Set

from luaparser import ast as lua_ast
from luaparser import astnodes as n
from lupa.lua54 import lua_type

from compile_lua.device.host_graph import cell_names
from compile_lua.device.host_values import UPVALUE, source_node


_FUNCTIONS = (n.AnonymousFunction, n.Function, n.LocalFunction, n.Method)


def _assigned(node: Any, upvalues: Set[str]) -> Set[str]:
    """The names of ``upvalues`` that the function ``node``'s own body assigns (not a nested function's; a name
    the body declares local is its own)."""
    nodes = list(lua_ast.walk(node.body))
    inner = {id(c) for f in nodes if isinstance(f, _FUNCTIONS) for c in lua_ast.walk(f.body)}
    own = {a.id for a in node.args if isinstance(a, n.Name)}
    found: Set[str] = set()
    for stmt in nodes:
        if id(stmt) in inner:
            continue
        if isinstance(stmt, n.LocalAssign):
            own.update(t.id for t in stmt.targets)
        elif isinstance(stmt, n.LocalFunction):
            own.add(stmt.name.id)
        elif isinstance(stmt, n.Fornum):
            own.add(stmt.target.id)
        elif isinstance(stmt, n.Forin):
            own.update(t.id for t in stmt.targets)
        elif isinstance(stmt, n.Assign):
            found.update(t.id for t in stmt.targets if isinstance(t, n.Name))
    return (found - own) & upvalues


def written_by(sandbox: Any, func: Any) -> Dict[str, str]:
    """State key -> upvalue name of each upvalue Lua function ``func``'s own body assigns."""
    where = sandbox.defined_at(func)
    cells = cell_names(sandbox, func)
    if where is None or not cells:
        return {}
    node = source_node(where[0], where[1].read_text(encoding="utf-8", errors="replace"), where[2], where[3])
    if node is None:
        return {}
    return {UPVALUE + cells[name]: name for name in sorted(_assigned(node, set(cells)))}


def setters(sandbox: Any, api: Any, methods: Any) -> Dict[str, Dict[str, str]]:
    """Api field -> (state key -> upvalue name) for each field of the Lua table ``api`` that holds a function
    not among the play source's ``methods`` (a decorator's) whose body assigns upvalues."""
    found = {}
    if lua_type(api) != "table":
        return found
    _, count, keys, values, _ = sandbox._p.entries(api)
    for i in range(1, count + 1):
        if isinstance(keys[i], str) and keys[i] not in methods and lua_type(values[i]) == "function":
            cells = written_by(sandbox, values[i])
            if cells:
                found[keys[i]] = cells
    return found


def written_cells(sandbox: Any, api: Any, methods: Any) -> Dict[str, Any]:
    """State key -> the value now (a lupa value) of every variable the api's setters (:func:`setters`) write."""
    out = {}
    for field, cells in setters(sandbox, api, methods).items():
        values = sandbox.upvalues(sandbox.field(api, field))
        out.update({key: values[name] for key, name in cells.items()})
    return out

"""Play-time variables that hold objects, not data: their data is state, the rest is read from the host.

DeepMind Lab's own factories keep play-time helpers as objects: a ``common.timer`` instance in an api field (its
methods behind a metatable), a reward controller a module function made (its methods fields of the table, closures
over the module's locals), the factory's argument ``kwargs`` (numbers beside other objects and functions). A
play-time variable (an api field, a top-level local) whose value is such a table is split (:func:`data_part`): its
fields that are data (numbers, booleans, strings, tables of them: ``layouts.layout_kind``) are play-time state as
any record's, and the rest (functions, other objects) is read from the host, read-only, through a
:class:`~compile_lua.device.host_graph.HostGraph` of those tables (:func:`snapshot_objects`, taken after the first
episode's ``start`` and ``nextMap``). A method call ``obj:m(...)`` inlines the host's function with ``self`` the
object (``builtins.method_of``).

The graph holds the first episode's host values. The graph logs what play time reads of it (:class:`ReadGraph`), and
each later episode's objects are compared with it there (:func:`difference`), so that an episode whose objects differ
(another controller, another function, another number read at play) is not run with the first one's: it is another
variant (``compile_lua.device.object_variants``).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, Optional, Set

from lupa.lua54 import lua_type

from compile_lua.device.host_graph import HostGraph, snapshot
from compile_lua.device.host_values import UPVALUE, HostFunction, HostTable, host_value
from compile_lua.device.layouts import layout_kind


def data_part(sandbox: Any, table: Any) -> Dict[str, Any]:
    """The fields of Lua ``table`` (a table that is not data as a whole) at string keys whose values are data,
    as Python data (``sandbox.to_python``): the part of an object that is play-time state."""
    data = {}
    _, count, keys, values, flags = sandbox._p.entries(table)
    for i in range(1, count + 1):
        key, value = keys[i], values[i]
        if flags[i] or not isinstance(key, str) or lua_type(value) == "function":
            continue
        try:
            plain = sandbox.to_python(value)
        except ValueError:   # a table inside itself: not data
            continue
        if layout_kind(plain) is not None:
            data[key] = plain
    return data


@dataclasses.dataclass(frozen=True)
class ReadGraph(HostGraph):
    """A HostGraph that notes the nodes play time reads (``read``: their ids)."""

    read: Set[int] = dataclasses.field(default_factory=set, compare=False)

    def node(self, value: Any) -> Optional[tuple]:
        if isinstance(value, tuple) and value[:1] == ("ref",):
            self.read.add(value[1])
        return super().node(value)


def snapshot_objects(sandbox: Any, objects: Dict[str, Any]) -> ReadGraph:
    """The graph of the Lua tables ``objects`` (state key -> table) and what they reach; its root is a table of
    them at their state keys (``object_ref``)."""
    graph = snapshot(sandbox, sandbox.table({key: table for key, table in objects.items()}))
    return ReadGraph(graph.nodes, graph.files, graph.root)


def data_key(key: str, variant: int) -> str:
    """The state key of the data of variant ``variant`` of the object at state key ``key`` (``object_variants``)."""
    return key if variant == 0 else f"{key}#{variant}"


def object_at(tr: Any, key: str) -> Optional[Any]:
    """The host table of the object whose data is state key ``key`` (an object's state key, or its variant's
    ``data_key``) in Translation ``tr`` (a HostFunction for an api field holding a function written elsewhere),
    or None when no object is kept there."""
    base, _, variant = key.partition("#")
    if not tr.object_graphs:
        return None
    index = tr.object_variants.get(base, [0])[int(variant or 0)]
    if index < 0:   # plain data of another shape (``object_variants``): no host table
        return None
    graph = tr.object_graphs[index]
    ref = graph.raw_field(graph.root, base)
    if ref is None:
        return None
    return HostFunction(graph, ref) if graph.node(ref)[0] == "function" else HostTable(graph, ref)


def object_of(tr: Any, value: Any) -> Optional[HostTable]:
    """The host table of the object whose data ``value`` is, when it is the whole record of an object's state key
    (a HeldRecord read from it, not a record inside it); else None."""
    origin = getattr(value, "origin", None)
    return object_at(tr, origin[0]) if origin is not None and not origin[1] else None


def top_level_local(it: Any, name: str, node: Any) -> Any:
    """A top-level local that is not play-time state: the object it holds, read from the host, or a rejection."""
    found = object_at(it.env.tr, f"local.{name}")
    if found is None:
        it.fail(f"the top-level local '{name}'", "its value is not a number, boolean, string or fixed table when "
                "the script has loaded", node)
    return found


def difference(first: ReadGraph, other: HostGraph, key: str, state: Set[str],
               cells: Set[str] = frozenset()) -> Optional[str]:
    """Where the object at state key ``key`` in ``other`` (a later episode's graph) differs from the one in
    ``first`` in what play read of ``first`` (:attr:`ReadGraph.read`), as a path and what differs
    (``api._judge.award: another function ...``); None when it does not. ``state``: the object's fields that
    are play-time state (they may differ per episode: each episode starts them from its own values); ``cells``: the
    state keys of upvalues that are play-time state (``compile_lua.device.upvalues``), alike."""
    start_a, start_b = first.raw_field(first.root, key), other.raw_field(other.root, key)
    if not (isinstance(start_a, tuple) and isinstance(start_b, tuple)):
        return None if start_a == start_b else f"{key}: another kind of value"
    state_at = {start_a[1]: state}
    pairs: Dict[int, Any] = {start_a[1]: start_b}
    todo, done = [(start_a, start_b, key)], set()
    while todo:
        a, b, path = todo.pop()
        if a[1] in done or a[1] not in first.read:
            continue
        done.add(a[1])
        na, nb = first.nodes[a[1]], other.node(b)
        if nb is None or na[0] != nb[0]:
            return f"{path}: another kind of value"
        if na[0] == "function":
            if na[1:4] != nb[1:4]:
                return f"{path}: another function ({nb[1]}:{nb[2]} instead of {na[1]}:{na[2]})"
            own = {name for (name, _), cell in zip(na[4], na[5] if len(na) > 5 else ()) if UPVALUE + str(cell) in cells}
            items_a = {k: v for k, v in na[4] if k not in own}
            items_b = {k: v for k, v in nb[4] if k not in own}
        elif na[0] == "table":
            skip = state_at.get(a[1], set())
            items_a = {k: v for k, v in na[1] if k not in skip}
            items_b = {k: v for k, v in nb[1] if k not in skip}
            items_a["(metatable)"], items_b["(metatable)"] = na[2], nb[2]
        else:
            if na != nb:
                return f"{path}: another value"
            continue
        if set(items_a) != set(items_b):
            fields = ", ".join(sorted(map(str, set(items_a) ^ set(items_b))))
            return f"{path}: other fields ({fields})"
        for k, va in items_a.items():
            vb, where = items_b[k], f"{path}.{k}"
            ref_a = isinstance(va, tuple) and va[:1] == ("ref",)
            ref_b = isinstance(vb, tuple) and vb[:1] == ("ref",)
            if ref_a != ref_b or (not ref_a and (va != vb or type(va) is not type(vb))):
                return f"{where}: {_shown(vb)} instead of {_shown(va)}"
            if ref_a and pairs.setdefault(va[1], vb) != vb:
                return f"{where}: another table than in the first episode"
            if ref_a:
                todo.append((va, vb, where))
    return None


def _shown(value: Any) -> str:
    return "a table or function" if isinstance(value, tuple) and value[:1] == ("ref",) else repr(value)


def graph_json(graph: HostGraph) -> str:
    """``graph`` as JSON text (a compile's meta carries it)."""
    return json.dumps({"nodes": [[k, v] for k, v in graph.nodes.items()], "files": graph.files,
                       "root": graph.root})


def graph_from_json(text: str) -> HostGraph:
    """The graph :func:`graph_json` wrote."""
    data = json.loads(text)
    return HostGraph({int(k): _tuples(v) for k, v in data["nodes"]}, dict(data["files"]), _tuples(data["root"]))


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value

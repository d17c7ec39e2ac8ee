"""Objects, and api fields' data, that differ between episodes: translated per variant, each episode's own chosen
on the device.

A DMLab level may hand play another object in each episode: the language levels draw a task per episode, and with
it a reward controller (another table of closures, with other functions). Each distinct object at a state key (one
whose functions, or what play reads of its host values, differ: ``host_objects.difference``) is a variant: its
graph is kept (``Translation.object_graphs``, ``Translation.object_variants``), its data is play-time state at
``host_objects.data_key(key, v)``, and ``variant.<key>`` (int32) holds the episode's variant. Reading such an object
gives a :class:`VariantObject`: a method call on it runs each variant's method, merged where the episode's variant
is that one (as an ``if`` merges its arms: :func:`invoke`), and a field read chooses among the variants' values
(:func:`field`); ``#`` and ``ipairs``/``pairs`` run over each variant (:func:`length`, :func:`each`). An api field whose data has another shape in some episodes (another length of list, other
fields) is split into variants the same way, without a host table.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, ClassVar, List

import jax.numpy as jnp

from compile_lua.device import fixed_tables
from compile_lua.device.host_objects import data_key, object_at
from compile_lua.device.ops import maybe_of
from compile_lua.device.values import as_num, held

#: the prefix of the state key holding an object's variant in the episode
VARIANT = "variant."


@dataclasses.dataclass(frozen=True)
class VariantObject:
    """The object at state key ``key``, of ``count`` variants."""

    key: str
    count: int
    LUA_TYPE: ClassVar[str] = "table"


def variants(tr: Any, key: str) -> int:
    """How many variants the object at state key ``key`` has in Translation ``tr`` (1 for one kept the same)."""
    return len(tr.object_variants.get(key, [0]))


def member(it: Any, obj: VariantObject, v: int) -> Any:
    """Variant ``v`` of ``obj``: its data as the state's record (methods and other fields found on the host), or
    the host's table when it has no data."""
    key = data_key(obj.key, v)
    if key in it.env.state:
        return held(it.env.state[key], key)
    if key in it.env.tr.layout:
        return held(it.env.fresh(key), key)
    return object_at(it.env.tr, key)


def _chosen(it: Any, obj: VariantObject) -> Any:
    """int32[]: the episode's variant of ``obj``."""
    key = VARIANT + obj.key
    return as_num(it.env.state[key] if key in it.env.state else it.env.fresh(key)).x


def _uniform(rows: List[List[Any]], it: Any, what: str) -> List[List[Any]]:
    """The variants' values (``rows``: per variant, a list) padded to one length with nil, each position that is
    nil in some variant a value-or-nil in all (``ops.maybe_of``)."""
    width = max(len(r) for r in rows)
    rows = [list(r) + [None] * (width - len(r)) for r in rows]
    for i in range(width):
        if any(r[i] is None for r in rows):
            for r in rows:
                r[i] = maybe_of(r[i], it.failer(what))
    return rows


def each(it: Any, obj: VariantObject, run: Callable[[Any], Any]) -> List[Any]:
    """``run(member)`` for each variant of ``obj`` (:func:`member`) from the same state; the state merged where the
    episode's variant is that one; ``run``'s results (lists of values), merged likewise."""
    chosen, start, arms = _chosen(it, obj), it.snapshot(), []
    for v in range(obj.count):
        it.restore(start)
        results = run(member(it, obj, v))
        arms.append((it.snapshot(), list(results or [])))
    rows = _uniform([r for _, r in arms], it, f"the values of {obj.key}'s variants")
    snap, results = arms[-1][0], rows[-1]
    for v in range(obj.count - 2, -1, -1):
        c = chosen == v
        sel = it.merger(c, arms[v][0], snap)
        results = [sel(x, y) for x, y in zip(rows[v], results)]
        snap = it.merged(c, arms[v][0], snap)
    it.restore(snap)
    return results


def invoke(it: Any, obj: VariantObject, name: str, args: List[Any], node: Any) -> List[Any]:
    """``obj:name(args)``: each variant's method run (:func:`each`)."""
    def call(target: Any) -> List[Any]:
        method = it.env.builtins.method_of(it, target, name, node)
        if method is None:
            it.fail(f"the method :{name} of {obj.key}", "a variant of it (the object another episode gives) has no "
                    "such method", node)
        return it.inline(it.callable(method), [target] + list(args))
    return each(it, obj, call)


def length(it: Any, obj: VariantObject, node: Any) -> Any:
    """``#obj``: the episode's variant's length."""
    return each(it, obj, lambda target: [it.env.builtins.length(it, target, node)])[0]


def field(it: Any, obj: VariantObject, key: Any, node: Any) -> Any:
    """``obj[key]``: the episode's variant's value (numbers, strings, booleans and records of one shape; nil in
    a variant that lacks it)."""
    found = [{"value": it.env.builtins.index(it, member(it, obj, v), key, node)} for v in range(obj.count)]
    chosen = fixed_tables.chosen_record(it, found, _chosen(it, obj) == jnp.arange(obj.count))   # as a list's records
    return it.env.builtins.index(it, chosen, "value", node)

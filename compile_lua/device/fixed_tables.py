"""Fixed tables in translated Lua: lists of numbers, booleans or strings whose keys are 1..n.

A fixed table (an ``Arr`` of numbers or booleans, or a Python list of strings) is read at a key known at
translation time or at a traced number: where the key's interval (``Num.lo``/``hi``) lies within 1..n the
value is the item's, else it may be nil (a MaybeNum, MaybeBool or MaybeStr, nil where the key is not one of
its keys, as in Lua). It is written only at keys within 1..n: a fixed table does not grow during play, so a
write whose key may lie outside is refused at its line.
"""
from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp

from compile_lua.device import conversions, keyed
from compile_lua.device.ops import maybe_of
from compile_lua.device.values import (Arr, Keyed, MaybeBool, MaybeNum, MaybeStr, Num, Str, as_num, is_traced,
                                       lua_type, present_of, select)


def element(it: Any, table: Any, key: Any, node: Any) -> Any:
    """``table[key]`` of a fixed table (Arr or list): the item, nil (None) at a static key outside 1..n, a
    value that may be nil at a traced key that may lie outside."""
    size = table.x.shape[0] if isinstance(table, Arr) else len(table)
    if not is_traced(key):
        if not isinstance(key, (int, float)) or isinstance(key, bool):
            return None
        if key != int(key) or not 1 <= key <= size:
            return None
        k = int(key) - 1
        if isinstance(table, Arr) and table.static is not None:   # numbers the script wrote: known now
            return table.static[k]
        return table[k] if isinstance(table, list) else _element(table.x[k])
    if lua_type(key) == "number" and isinstance(table, list) and table and all(isinstance(v, (str, Str))
                                                                               for v in table):
        return _string_at(it, table, key)
    if lua_type(key) == "number" and isinstance(table, list) and table and all(isinstance(v, dict) for v in table):
        return _record_at(it, table, key, node)
    if lua_type(key) != "number" or not isinstance(table, Arr):
        it.fail("indexing a table with a key known only at play time",
                "only tables of numbers, booleans or strings that no function changes take a traced index", node)
    return _element_at(table, key)


class ChosenRecord(dict):
    """A record read from a list of records at a key known only at play time: each field chosen on the device
    from the items'; a copy, so it is read-only (``records.set_field`` refuses a write through it). ``partial``:
    its fields that hold a table in some items and nothing in others (reading one is refused)."""

    def __init__(self, fields: dict, partial: frozenset = frozenset()):
        super().__init__(fields)
        self.partial = partial


def _record_at(it: Any, table: list, key: Any, node: Any) -> ChosenRecord:
    """``table[key]`` of a list of records (DMLab's ``self._pickups[id]``) at traced number ``key``. A record has
    no nil to stand for: where the key is not one of 1..#table, the first item is read and the script's error
    flag set (``conversions.error_where``; Lua reads nil there and stops at its next use, unless it tests it)."""
    k = as_num(key)
    if not k.is_int:
        it.fail("reading a list of tables at a float key", "its keys are 1..n", node)
    if not _within(key, len(table)):
        conversions.error_where(it, (k.x < 1) | (k.x > len(table)))
    lo, hi = max(int(k.lo), 1), min(int(k.hi), len(table))
    lo, hi = (lo, hi) if lo <= hi else (1, 1)
    return chosen_record(it, table[lo - 1:hi], k.x == jnp.arange(lo, hi + 1))


def chosen_record(it: Any, items: list, hits: Any) -> ChosenRecord:
    """The record whose fields are chosen from ``items`` (records) where ``hits`` (bool[len(items)]) is true (the
    first item where none is): a field some items lack is nil there."""
    fields, partial = {}, set()
    for name in dict.fromkeys(f for item in items for f in item):
        values = [item.get(name) for item in items]
        if all(isinstance(v, dict) for v in values):
            fields[name] = chosen_record(it, values, hits)
            continue
        if any(isinstance(v, dict) for v in values):
            partial.add(name)
            continue
        if any(v is None for v in values):
            values = [maybe_of(v, it.failer(f"the field {name!r} of a list's tables")) for v in values]
        out = values[0]
        for i, v in enumerate(values[1:], start=1):
            out = select(hits[i], v, out, it.env.intern, it.failer("a list of tables read at a key known only "
                                                                  "at play time"))
        fields[name] = out
    return ChosenRecord(fields, frozenset(partial))


def _within(key: Any, size: int) -> bool:
    """Whether traced number ``key`` is, by its interval, always one of the keys 1..size of a fixed list."""
    k = as_num(key)
    return k.is_int and 1 <= k.lo and k.hi <= size and not isinstance(key, MaybeNum)


def _element_at(table: Arr, key: Any) -> Any:
    """``table[key]`` of a fixed table at traced number ``key``: a Num or boolean where the key's interval lies
    within 1..#table, else a MaybeNum or MaybeBool, nil where the key is not one of its keys (Lua's nil)."""
    size = int(table.x.shape[0])
    i, inside = keyed.slot(key, 1, size)
    x = table.x[i]
    if _within(key, size):
        return _element(x)
    if x.dtype == jnp.bool_:
        return MaybeBool(x, inside)
    return MaybeNum(jnp.where(inside, x, jnp.zeros_like(x)), present=inside)


def _string_at(it: Any, table: list, key: Any) -> Str:
    """``table[key]`` of a fixed list of strings (str, Str, or MaybeStr: nil past this episode's end) at a traced
    number ``key``: a Str where the key's interval lies within 1..#table and no item may be nil, else a
    MaybeStr, nil where the key is not one of its keys."""
    ids = jnp.stack([jnp.asarray(v.gid if isinstance(v, Str) else it.env.intern(v), jnp.int32) for v in table])
    held = jnp.stack([jnp.asarray(present_of(v), jnp.bool_) for v in table])
    cands = frozenset().union(*(v.cands if isinstance(v, Str) else {v} for v in table))
    k = as_num(key)
    i, inside = keyed.slot(key, 1, len(table))
    text = Str(ids[i], cands)
    if k.is_int and 1 <= k.lo and k.hi <= len(table) and not isinstance(key, MaybeNum) and not any(
            isinstance(v, MaybeStr) for v in table):
        return text
    return MaybeStr(text.gid, cands, inside & held[i])


def _element(x: Any) -> Any:
    return x if x.dtype == jnp.bool_ else Num(x)


def set_item(it: Any, table: Any, key: Any, value: Any) -> Any:
    """``table`` (an Arr, or a Keyed: ``keyed.set_item``) with ``table[key] = value`` on the live path."""
    if isinstance(table, Keyed):
        return keyed.set_item(it, table, key, value)
    size = table.x.shape[0]
    kind = "boolean" if table.x.dtype == jnp.bool_ else "number"
    if lua_type(value) != kind:
        it.fail(f"storing a {lua_type(value)} in a table of {kind}s", "a fixed table keeps one kind of value")
    if isinstance(value, (MaybeNum, MaybeBool)):
        it.fail(f"storing a {kind} that may be nil in a fixed table", "a fixed table holds a value at every key")
    v = jnp.asarray(value if not isinstance(value, Num) else value.x)
    if kind == "number" and jnp.issubdtype(v.dtype, jnp.floating) and not jnp.issubdtype(table.x.dtype, jnp.floating):
        table = Arr(table.x.astype(jnp.float32), table.owner)
    if not is_traced(key):
        if not isinstance(key, int) or not 1 <= key <= size:
            it.fail("a table that grows", f"t[{key!r}] is outside 1..{size}, the table's fixed keys")
        idx = key - 1
    elif not _within(key, size):
        k = as_num(key)
        it.fail(f"t[k] = v with a key k in {_interval_text(k)}", f"a fixed table has the keys 1..{size} and does "
                "not grow during play; bound the key with math.min/math.max (or math.floor for a float)")
    else:
        idx = as_num(key).x.astype(jnp.int32) - 1
    live = it.live()
    old = table.x[idx]
    new = v.astype(table.x.dtype) if live is True else jnp.where(live, v.astype(table.x.dtype), old)
    return Arr(table.x.at[idx].set(new), table.owner)


def _interval_text(k: Num) -> str:
    """The interval a traced number is known to lie in, as a message states it."""
    def bound(v: float) -> str:
        return str(int(v)) if math.isfinite(v) and v == int(v) else str(v)
    return f"[{bound(k.lo)}, {bound(k.hi)}]" + ("" if k.is_int else " (a float)")


def length(it: Any, v: Any, node: Any) -> Any:
    """``#v`` on a fixed table or a string known at translation time, or on a table keyed by integers from 1
    (a ``Keyed``: the keys present before the first nil, as Lua's border of such a table)."""
    if isinstance(v, Arr):
        return int(v.x.shape[0])
    if isinstance(v, Keyed) and v.first == 1:
        size = int(v.x.shape[0])
        run = jnp.argmin(jnp.concatenate([v.present, jnp.zeros(1, jnp.bool_)])).astype(jnp.int32)
        return Num(run, 0, size) if size else 0
    if isinstance(v, list) and any(isinstance(x, MaybeStr) or isinstance(x, MaybeNum) for x in v):
        it.fail("# of a list whose length changes from episode to episode", "its length is known only at play "
                "time; walk it with ipairs", node)
    if isinstance(v, list):
        return len(v)
    if isinstance(v, str):
        return len(v.encode("utf-8"))
    if isinstance(v, Str) and not isinstance(v, MaybeStr):   # one of a finite set of strings: its length
        sizes = {c: len(c.encode("utf-8")) for c in v.cands}
        if len(set(sizes.values())) == 1:
            return next(iter(sizes.values()))
        size = sum(jnp.where(v.gid == it.env.intern(c), n, 0) for c, n in sizes.items())
        return Num(jnp.asarray(size, jnp.int32), min(sizes.values()), max(sizes.values()))
    it.fail(f"# of a {lua_type(v)}", "only fixed tables and strings known at translation time have a length", node)

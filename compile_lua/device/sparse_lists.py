"""A list a callback builds with ``table.insert`` on paths known only at play time: :class:`SparseList`.

PsychLab's point-and-click framework collects the timers that are due and the hover callbacks to run in a local
list (``local due = {}``, ``table.insert(due, timer)`` inside ``if timer.timeout <= 0``), then calls them in order
(``for _, timer in ipairs(due) do ... end``). At translation time each insert is an entry of the list with a flag
saying where the path that made it ran; ``ipairs`` walks the entries in order, each pass only where its entry is
there, and ``#t`` counts them. The two arms of an ``if`` merge into one list: the entries both had, then each
arm's own (never both there at once). ``t[#t + 1] = v`` appends as ``table.insert`` does; ``table.sort`` sorts
entries whose values are known when translating; ``t[i]`` at an entry's :class:`Position` (``ipairs``, or ``for
i = #t, 1, -1``, ``iteration.Loops``) reads that entry itself, at any other position the entry chosen there.

The framework also keeps such lists between calls: its screen's layers, rebuilt from the widgets when it draws and
walked from the top when the mouse clicks. A list kept in play-time state has a fixed number of slots, each of one
kind (``("list", slots)``, ``compile_lua.device.layouts``): an entry is a slot and a flag. A table of the state it
holds (a widget) is kept as where it is (:class:`StateRef`: Lua's list holds that very table, so the list sees
the table's writes; a table replaced or removed from its place after the list was built is read at its place
now, where Lua's list would still hold the old one).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, List, Optional

import jax.numpy as jnp

from compile_lua.device.number_bounds import constant_key
from compile_lua.device.values import MERGERS, Arr, Keyed, Num, flag_select, is_traced, select


@dataclasses.dataclass(frozen=True)
class SparseList:
    """A Lua list of ``entries``: ``((value, present), ...)`` in insertion order, ``present`` a bool (traced or
    not) where the entry was inserted. ``kept``: the state key whose slots the entries line up with (a list kept
    in play-time state, ``compile_lua.device.layouts``: two such lists merge slot by slot); ``loaded``: whether it
    is the list the state held when the call began, or made from it by inserting (so it grows call after call)."""

    entries: tuple = ()
    kept: Optional[str] = None
    loaded: bool = False
    LUA_TYPE = "table"


@dataclasses.dataclass(frozen=True)
class StateRef:
    """An entry of a list kept in play-time state that is a table kept in the state itself (a record at fields
    ``path`` of state ``key``): Lua's list holds that table, so the list reads it there
    (``compile_lua.device.callstate.Env``)."""

    key: str
    path: tuple


@dataclasses.dataclass
class Position(Num):
    """The position of entry ``entry`` of the list ``of`` among the entries there (a number, traced when an
    earlier entry's presence is): ``of[i]`` at it reads that entry itself, whatever its kind."""

    of: Any = None
    entry: int = 0


def as_list(t: Any) -> SparseList:
    """``t`` (a SparseList, an empty table, or a list of values) as a SparseList."""
    if isinstance(t, SparseList):
        return t
    if isinstance(t, Arr):   # a fixed table of numbers (a list of the host's that play rebuilds)
        items = t.static if t.static is not None else [Num(x) for x in t.x]
        return SparseList(tuple((v, True) for v in items))
    return SparseList(tuple((v, True) for v in (t if isinstance(t, list) else ())))


def can_hold(t: Any) -> bool:
    """Whether ``t`` is a list ``table.insert`` may grow here: a SparseList, an empty table or a list of values."""
    return isinstance(t, (SparseList, list)) or (isinstance(t, dict) and not t) or \
        (isinstance(t, Keyed) and not t.x.size) or (isinstance(t, Arr) and t.x.dtype != jnp.bool_)


def inserted(t: Any, value: Any) -> SparseList:
    """``t`` after ``table.insert(t, value)`` (the caller's path decides, by merging, where the entry is): in the
    first of the entries at its end that are not there (the room a list kept in state has), else after them."""
    t = as_list(t)
    entries, room = t.entries, len(t.entries)
    while room and entries[room - 1][1] is False:
        room -= 1
    if room < len(entries):
        return SparseList(entries[:room] + ((value, True),) + entries[room + 1:], t.kept, t.loaded)
    return SparseList(entries + ((value, True),), None, t.loaded)


def length(t: SparseList) -> Any:
    """``#t``: the entries there (a Python int when every flag is known)."""
    flags = [p for _, p in t.entries]
    if all(isinstance(p, bool) for p in flags):
        return sum(flags)
    return Num(sum(jnp.asarray(p, jnp.int32) for p in flags), 0.0, float(len(flags)))


def passes(t: SparseList) -> List[tuple]:
    """``(key, value, present)`` of each entry in order, ``key`` its index among those there: an int, or a
    traced :class:`Position` of the entry."""
    out, count = [], 0
    for i, (value, present) in enumerate(t.entries):
        key = count + 1 if isinstance(count, int) else Position(count + 1, 1.0, float(len(t.entries)), t, i)
        out.append((key, value, present))
        count = count + (1 if present is True else 0 if present is False else jnp.asarray(present, jnp.int32))
    return out


def at_entry(t: SparseList, entry: int, key: Any) -> Position:
    """The position ``key`` (an int or a Position) of entry ``entry`` of ``t`` as a Position of it."""
    if isinstance(key, Position):
        return key
    return Position(jnp.int32(key), float(key), float(key), t, entry)


def element(t: SparseList, key: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> Any:
    """``t[key]``: the entry at a :class:`Position` of ``t`` itself; else the entry whose position is ``key``
    (a number, traced or not), chosen on the device among those that may be there (nil where none is)."""
    if isinstance(key, Position) and key.of is t:
        return t.entries[key.entry][0]
    found = None
    for position, value, present in reversed(passes(t)):
        if isinstance(position, int) and not is_traced(key):
            at = present if position == key else False
        else:
            at = jnp.logical_and(jnp.asarray(position.x if isinstance(position, Num) else position) ==
                                 jnp.asarray(key.x if isinstance(key, Num) else key), present)
        if at is True:
            found = value
        elif at is not False:
            found = select(at, value, found, intern, fail)
    return found


def sorted_list(t: SparseList, fail: Callable[[str], Any]) -> SparseList:
    """``table.sort(t)`` of a list whose entries are numbers or strings known when translating (which entries
    are there may be known only at play): the entries in ascending order, each keeping where it is there."""
    entries = [e for e in t.entries if e[1] is not False]   # those that may be there
    values = [v if constant_key(v) is None else constant_key(v) for v, _ in entries]
    if any(is_traced(v) or isinstance(v, bool) or not isinstance(v, (int, float, str)) for v in values) or \
            len({type(v) is str for v in values}) > 1:
        fail("table.sort sorts lists of numbers or of strings known when the level compiles")
    order = sorted(range(len(entries)), key=lambda i: values[i])
    return SparseList(tuple(entries[i] for i in order), None, t.loaded)


def _select(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> SparseList:
    """The list of two paths: their shared first entries, then ``a``'s own where ``c`` holds and ``b``'s where not."""
    if not (can_hold(a) and can_hold(b)):
        other = MERGERS.get(type(b) if isinstance(a, SparseList) else type(a))
        if a is None or b is None:
            other = MERGERS.get("table or nil")
        if other is not None and other is not _select:   # a list that may be nil (``maybe_tables``)
            return other(c, a, b, intern, fail)
        fail("a list built with table.insert on one path and another value on the other")
    x, y = as_list(a).entries, as_list(b).entries
    if as_list(a).kept is not None and as_list(a).kept == as_list(b).kept:   # the state's slots (one has more
        x = x + tuple((v, False) for v, _ in y[len(x):])                       # where the state grew)
        y = y + tuple((v, False) for v, _ in x[len(y):])
        return SparseList(tuple(_slot(c, u, p, v, q, intern, fail) for (u, p), (v, q) in zip(x, y)),
                          as_list(a).kept, as_list(a).loaded or as_list(b).loaded)
    shared = 0
    while shared < min(len(x), len(y)) and x[shared][0] is y[shared][0]:
        shared += 1
    both = tuple((v, flag_select(c, p, q)) for (v, p), (_, q) in zip(x[:shared], y[:shared]))
    own = [(v, jnp.logical_and(c, p)) for v, p in x[shared:]] + \
        [(v, jnp.logical_and(jnp.logical_not(c), p)) for v, p in y[shared:]]
    return SparseList(both + tuple(own), None, as_list(a).loaded or as_list(b).loaded)


def _slot(c: Any, u: Any, p: Any, v: Any, q: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> tuple:
    """The entry ``(value, present)`` of one slot of a list kept in state: ``(u, p)`` where ``c`` holds, ``(v, q)``
    where not; a side that is not there gives no value (the other's stays as it is)."""
    present = flag_select(c, p, q)
    if q is False:
        return u, present
    if p is False:
        return v, present
    return select(c, u, v, intern, fail), present


MERGERS[SparseList] = _select

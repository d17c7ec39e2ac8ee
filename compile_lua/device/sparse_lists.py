"""A list a callback builds with ``table.insert`` on paths known only at play time: :class:`SparseList`.

PsychLab's point-and-click framework collects the timers that are due and the hover callbacks to run in a local
list (``local due = {}``, ``table.insert(due, timer)`` inside ``if timer.timeout <= 0``), then calls them in order
(``for _, timer in ipairs(due) do ... end``). At translation time each insert is an entry of the list with a flag
saying where the path that made it ran; ``ipairs`` walks the entries in order, each pass only where its entry is
there, and ``#t`` counts them. The two arms of an ``if`` merge into one list: the entries both had, then each
arm's own (never both there at once).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, List

import jax.numpy as jnp

from compile_lua.device.values import MERGERS, Num


@dataclasses.dataclass(frozen=True)
class SparseList:
    """A Lua list of ``entries``: ``((value, present), ...)`` in insertion order, ``present`` a bool (traced or
    not) where the entry was inserted."""

    entries: tuple = ()
    LUA_TYPE = "table"


def as_list(t: Any) -> SparseList:
    """``t`` (a SparseList, an empty table, or a list of values) as a SparseList."""
    if isinstance(t, SparseList):
        return t
    return SparseList(tuple((v, True) for v in (t if isinstance(t, list) else ())))


def can_hold(t: Any) -> bool:
    """Whether ``t`` is a list ``table.insert`` may grow here: a SparseList, an empty table or a list of values."""
    return isinstance(t, SparseList) or (isinstance(t, dict) and not t) or isinstance(t, list)


def inserted(t: Any, value: Any) -> SparseList:
    """``t`` after ``table.insert(t, value)`` (the caller's path decides, by merging, where the entry is)."""
    return SparseList(as_list(t).entries + ((value, True),))


def length(t: SparseList) -> Any:
    """``#t``: the entries there (a Python int when every flag is known)."""
    flags = [p for _, p in t.entries]
    if all(isinstance(p, bool) for p in flags):
        return sum(flags)
    return Num(sum(jnp.asarray(p, jnp.int32) for p in flags), 0.0, float(len(flags)))


def passes(t: SparseList) -> List[tuple]:
    """``(key, value, present)`` of each entry in order, ``key`` its index among those there (int or traced Num)."""
    out, count = [], 0
    for value, present in t.entries:
        key = count + 1 if isinstance(count, int) else Num(count + 1, 1.0, float(len(t.entries)))
        out.append((key, value, present))
        count = count + (1 if present is True else 0 if present is False else jnp.asarray(present, jnp.int32))
    return out


def _select(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> SparseList:
    """The list of two paths: their shared first entries, then ``a``'s own where ``c`` holds and ``b``'s where not."""
    if not (can_hold(a) and can_hold(b)):
        fail("a list built with table.insert on one path and another value on the other")
    x, y = as_list(a).entries, as_list(b).entries
    shared = 0
    while shared < min(len(x), len(y)) and x[shared][0] is y[shared][0]:
        shared += 1
    if any(p is not q for (_, p), (_, q) in zip(x[:shared], y[:shared])):
        fail("a list whose entries differ in where they were inserted on two paths")
    own = [(v, jnp.logical_and(c, p)) for v, p in x[shared:]] + \
        [(v, jnp.logical_and(jnp.logical_not(c), p)) for v, p in y[shared:]]
    return SparseList(x[:shared] + tuple(own))


MERGERS[SparseList] = _select

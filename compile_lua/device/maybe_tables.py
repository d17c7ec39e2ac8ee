"""A table that may be nil: :class:`MaybeTable`.

DMLab's scripts keep a table in an api field only some of the time: PsychLab's factory sets ``self._pos = pos``
in ``lookat`` when the gaze is on the screen and ``self._pos = nil`` at the end of ``modifyControl``, and reads
``self._pos and {self._pos[1], 1 - self._pos[3]} or {-1, -1}`` in between. Such a field is play-time state of the
layout entry ``("maybe", table entry)`` (``compile_lua.device.layouts``): the table's arrays and a presence flag.
A :class:`MaybeTable` is its value at trace time. Lua's truth and ``== nil`` read ``present``; reading a field
reads the table's (where Lua would stop with an error on nil, the device reads the arrays it keeps, as a number
that may be nil reads 0).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax.numpy as jnp

from compile_lua.device.sparse_lists import SparseList
from compile_lua.device.values import MERGERS, Arr, held, select

#: the layout entries of tables a ("maybe", entry) may hold
TABLE_KINDS = ("array", "record", "tuple", "list")


@dataclasses.dataclass
class MaybeTable:
    """A table or nil: ``value`` (an Arr, a record dict or a list: the table where ``present``, the arrays last
    held where not) and ``present`` (a bool, traced or not)."""

    value: Any
    present: Any = True
    LUA_TYPE = "table"


def holds_table(kind: tuple) -> bool:
    """Whether the layout entry ``("maybe", inner)`` ``kind`` holds tables."""
    return kind[0] == "maybe" and kind[1][0] in TABLE_KINDS


def table_of(v: Any) -> Any:
    """The table a MaybeTable holds (its arrays, whatever its presence); ``v`` itself otherwise."""
    return v.value if isinstance(v, MaybeTable) else v


def presence(v: Any) -> Any:
    """Whether ``v`` (a table, a MaybeTable or nil) holds a table: a bool, traced for a MaybeTable."""
    return v.present if isinstance(v, MaybeTable) else v is not None


def held_table(value: Any, key: str, path: tuple = ()) -> Any:
    """``values.held`` of a value read from state ``key`` at fields ``path``, a MaybeTable's table held too (a write
    through a local that holds it reaches the state)."""
    if isinstance(value, MaybeTable):
        return MaybeTable(held(value.value, key, path), value.present)
    return held(value, key, path)


def _select(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> MaybeTable:
    """``select`` of two values that are each a table (of one shape) or nil, one of them a MaybeTable: where one
    side is nil, the other side's arrays are kept (read nowhere: the result is absent there)."""
    x, y = table_of(a), table_of(b)
    if x is None or y is None:
        payload = y if x is None else x
    else:
        payload = select(c, x, y, intern, fail)
    return MaybeTable(payload, jnp.where(c, presence(a), presence(b)))


def _table_or_nil(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> MaybeTable:
    """``select`` of a table a callback made (a record, a list) on one path and nil on the other."""
    table = a if a is not None else b
    if not isinstance(table, (dict, list, Arr, SparseList)):
        fail("a value that is a table on one path and nil on another")
    return _select(c, a, b, intern, fail)


MERGERS[MaybeTable] = _select
MERGERS["table or nil"] = _table_or_nil

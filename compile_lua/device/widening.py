"""How a layout entry of play-time state (``compile_lua.device.layouts``) widens to hold another value's
(another episode's start value, a write at play): :func:`widened` and :func:`padded`.
"""
from __future__ import annotations

from typing import Any, Optional

from compile_lua.device import keyed
from compile_lua.device.layouts import EMPTY, UNSET
from compile_lua.device.maybe_tables import TABLE_KINDS
from compile_lua.device.number_bounds import number_kind, numbers_joined, scalar_unbounded
from compile_lua.device.stored_functions import joined_keys


def widened(kind: tuple, got: Optional[tuple]) -> tuple:
    """The layout entry ``kind`` grown, where play-time state may grow, to hold a start value of entry ``got``
    too (another episode's): a string's set of values, a table's integer keys, a list's length (``padded``),
    those of a list's items and a record's fields, an empty table's items (a list of tables that the map's
    entities fill: each item a table's zero value until then). Whether ``got`` then fits is the caller's
    question."""
    if got is None:
        return kind
    if "list" in (kind[0], got[0]):
        return _lists_joined(kind, got)
    if kind[0] in ("int", "float") and got[0] in ("int", "float"):
        return numbers_joined(kind, got)
    if got[0] == "record" and (kind[0] == "record" or kind[:2] == ("keyed", "none")):
        if kind[0] == "record" and [f for f, _ in kind[1]] == [f for f, _ in got[1]]:
            return ("record", tuple((f, widened(k, g)) for (f, k), (_, g) in zip(kind[1], got[1])))
        if kind[0] == "keyed":
            return _filled(got)
        return _fields_joined(kind[1], got[1]) or kind
    if kind == EMPTY and got[0] == "tuple":   # a list the script starts empty, filled as the map loads
        return got
    if kind[0] == "keyed":
        return keyed.joined(kind, got) or kind
    if kind[0] == "string" and got[0] == "string":
        return ("string", kind[1] | got[1])
    if kind[0] == "fn" and got[0] == "fn":
        return ("fn", joined_keys(kind[1], got[1]))
    if kind == UNSET and got[0] in ("fn",) + TABLE_KINDS:   # nil so far, a function or a table now
        return ("maybe", got)
    if kind[0] == "maybe" and kind[1][0] in ("int", "float") and (got[1] if got[0] == "maybe" else got)[0] in (
            "int", "float"):
        return ("maybe", numbers_joined(kind[1], got[1] if got[0] == "maybe" else got))
    if kind[0] == "maybe" and kind[1][0] == "string":
        return ("maybe", widened(kind[1], got))
    if kind[0] == "maybe" and kind[1][0] in ("fn",) + TABLE_KINDS:
        return ("maybe", widened(kind[1], got[1] if got[0] == "maybe" else got))
    if kind[0] == "tuple" and got[0] == "tuple":
        if len(kind[1]) != len(got[1]):
            return padded(kind, got) or kind
        return ("tuple", tuple(widened(k, g) for k, g in zip(kind[1], got[1])))
    return kind


def listed(kind: tuple, data: Any) -> tuple:
    """The list layout entry (``("list", slots)``) of a list of the host's of entry ``kind`` (an array, a tuple)
    that play rebuilds: a slot per item, each the number ``data`` (the host's list) holds there when known."""
    if kind[0] == "array" and isinstance(data, list) and len(data) == kind[2] and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in data):
        return ("list", tuple(number_kind(kind[1] == "int", v, v) for v in data))
    return ("list", list_slots(kind) or ())


def precise(kind: tuple, got: Optional[tuple], data: Any) -> Optional[tuple]:
    """``got``, the layout entry of start value ``data``, with each host list where ``kind`` holds a list built at
    play as that list's slots (``listed``: the numbers it holds), so that ``widened`` keeps what the slots hold."""
    if got is None:
        return None
    if kind[0] == "maybe":
        return precise(kind[1], got, data)
    if kind[0] == "list" and got[0] in ("array", "tuple"):
        return listed(got, data)
    if kind[0] == "record" and got[0] == "record" and isinstance(data, dict):
        fields = dict(kind[1])
        return ("record", tuple((f, precise(fields[f], g, data.get(f)) if f in fields else g) for f, g in got[1]))
    return got


def list_slots(kind: tuple) -> Optional[tuple]:
    """The slots of a list kept in state that hold what layout entry ``kind`` holds (an empty table, a list of
    the host's), or None."""
    if kind[0] == "list":
        return kind[1]
    if kind[:2] == ("keyed", "none") or kind == ("record", ()):
        return ()
    if kind[0] == "array":
        return ((kind[1],),) * kind[2]
    return kind[1] if kind[0] == "tuple" else None


def _lists_joined(kind: tuple, got: tuple) -> tuple:
    """``widened`` where one side is a list built at play (``("list", slots)``): slot by slot, the longer's
    slots past the shorter's end; ``kind`` itself when the other side is not a list."""
    mine, theirs = list_slots(kind), list_slots(got)
    if mine is None or theirs is None:
        return kind
    both = tuple(widened(a, b) for a, b in zip(mine, theirs))
    return ("list", both + mine[len(both):] + theirs[len(both):])


def _fields_joined(a: tuple, b: tuple) -> Optional[tuple]:
    """The record layout entry holding records of fields ``a`` and of fields ``b`` (name, entry) whose names
    differ (a table of names set per episode, e.g. a door's colour by its target name, or an empty table):
    every name of either, a name one of them lacks nil there. None when such a field holds a table."""
    mine, theirs = dict(a), dict(b)
    fields = []
    for name in list(mine) + [f for f in theirs if f not in mine]:
        k, g = mine.get(name), theirs.get(name)
        if k is not None and g is not None:
            fields.append((name, widened(k, g)))
            continue
        one = k or g
        if one == EMPTY:   # an empty table: a record of no names yet (names or a list's entries widen it)
            one = ("record", ())
        if one[0] in TABLE_KINDS:
            fields.append((name, ("maybe", one)))
            continue
        if one[0] not in ("string", "int", "float", "bool", "maybe", "fn"):
            return None
        fields.append((name, one if one[0] == "maybe" else ("maybe", scalar_unbounded(one))))
    return ("record", tuple(fields))


def _filled(got: tuple) -> tuple:
    """The record layout entry holding an empty table and records of entry ``got`` (a table the script starts
    empty and play replaces with a record, e.g. ``self.state = {}`` at load, ``self.state = {n = 0, t = {}}`` in
    ``start``): every field of ``got`` nil until a record is written (a table, a function, a number, a string or
    a boolean that may be nil); a field of another kind (a tensor, a grid) at its zero value until then."""
    return ("record", tuple((name, ("maybe", scalar_unbounded(g)) if g[0] in _MAYBE_FIELDS else g)
                            for name, g in got[1]))


#: the layout entries a field of a record may hold or be nil (``("maybe", entry)``)
_MAYBE_FIELDS = ("string", "int", "float", "bool", "fn") + TABLE_KINDS


def padded(a: tuple, b: Optional[tuple]) -> Optional[tuple]:
    """The tuple layout entry holding lists of entries ``a`` and ``b`` (tuples of strings or numbers, each
    item possibly nil) of different lengths: the longer length, every item a string (or number) or nil,
    nil past a shorter list's end. None when they are not such lists."""
    if b is None or b[0] != "tuple" or len(a[1]) == len(b[1]):
        return None
    items = [k[1] if k[0] == "maybe" else k for k in a[1] + b[1]]
    if all(k[0] == "string" for k in items):
        item = ("maybe", ("string", frozenset().union(*(k[1] for k in items))))
    elif all(k[0] in ("int", "float") for k in items):
        item = ("maybe", ("float",) if any(k[0] == "float" for k in items) else ("int",))
    else:
        return None
    return ("tuple", (item,) * max(len(a[1]), len(b[1])))

"""How a value written to a play-time state variable (or a field of one) fits its layout entry
(``compile_lua.device.layouts``): :func:`fitted` widens the entry where play-time state may grow (an integer
that takes a float, a string variable that takes more strings, a table's fields) and refuses the rest.
"""
from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from compile_lua.device import keyed
from compile_lua.device.grid_values import GridRef
from compile_lua.device.layouts import DTYPE, EMPTY, UNSET, slot_kind, start_value, value_kind, zero_value
from compile_lua.device.widening import listed, widened
from compile_lua.device.sparse_lists import SparseList, as_list
from compile_lua.device.number_bounds import number_kind, numbers_joined
from compile_lua.device.maybe_tables import TABLE_KINDS, MaybeTable, holds_table, table_of
from compile_lua.device.stored_functions import FnChoice, is_function, joined_keys, key_set
from compile_lua.device.values import (Arr, HeldRecord, Keyed, MaybeBool, MaybeNum, MaybeStr, NumText, Str, as_num,
                                       bool_of, lua_type, present_of)


_WANT = {"bool": "boolean", "int": "number", "float": "number", "string": "string", "array": "table",
         "tensor": "userdata", "record": "table", "tuple": "table"}
_TYPE = {"array": Arr, "record": dict, "tuple": list}
#: the entries of a record's fields that a write may leave nil (a table or function field becomes one that may be)
_NILABLE = ("maybe", "fn") + TABLE_KINDS


def fitted(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``(kind widened to hold value, value as the state keeps it)`` for writing ``value`` to the state
    variable (or field of one) ``key`` of ``kind``: an integer variable takes a float (it becomes float),
    a string variable more strings, a table its own length and fields, a tensor its kind and shape.
    Anything else is rejected at the running line (``it.fail``)."""
    if kind[0] == "maybe":
        return _fitted_maybe(it, key, kind, value)
    if kind[0] == "fn":
        return _fitted_function(it, key, kind, value)
    if kind[0] == "gridref":
        if value != GridRef(kind[1]):
            it.fail(f"assigning a {lua_type(value)} to {key}", "it holds a grid: play-time state keeps one grid there")
        return kind, value
    if kind[0] == "grid":
        return kind, value
    if kind[0] == "ref":
        return _fitted_ref(it, key, kind, value)
    if kind[0] in ("array", "tuple") and (isinstance(value, SparseList) or (isinstance(value, dict) and not value)):
        kind = listed(kind, _start_data(it, key))   # a list of the host's that play rebuilds
    if isinstance(value, SparseList) and (kind[0] == "keyed" or kind == ("record", ())):
        kind = widened(kind, value_kind(value))
    if kind[0] == "list":
        return _fitted_list(it, key, kind, value)
    if kind[:2] == ("keyed", "none") and isinstance(value, dict) and value:   # {} at load, names set in play
        kind = widened(kind, value_kind(value))
    if kind[0] == "keyed":
        return keyed.fitted(it, key, kind, value)
    if isinstance(value, (MaybeNum, MaybeBool, MaybeStr)) and value.present is not True:
        it.fail(f"assigning a {lua_type(value)} that may be nil to {key}", f"it holds a {lua_type(value)} when the "
                "script has loaded; only an api field that is nil then (numbers) may be nil during play")
    if isinstance(value, MaybeBool):
        value = value.x
    want = _WANT[kind[0]]
    if lua_type(value) != want or not isinstance(value, _TYPE.get(kind[0], object)):
        it.fail(f"assigning a {lua_type(value)} to {key}", f"it holds a {want} when the script has loaded; "
                "play-time state keeps one kind of value")
    if isinstance(value, NumText):
        it.fail(f"assigning tostring of a number to {key}", "that text is written on the host; keep the number "
                "in the state and call tostring where it is returned")
    if kind[0] == "int" and not as_num(value).is_int:
        return ("float",), value
    if kind[0] in ("int", "float"):   # its bounds, while the number lies within them
        return numbers_joined(kind, number_kind(as_num(value).is_int, as_num(value).lo, as_num(value).hi)), value
    if kind[0] == "string" and isinstance(value, (str, Str)):
        cands = value.cands if isinstance(value, Str) else frozenset([value])
        return (kind if cands <= kind[1] else ("string", kind[1] | cands)), value
    if kind[0] == "array":
        if value.x.shape != (kind[2],):
            it.fail(f"a table that changes length ({key})", f"it has {kind[2]} items when the script has loaded")
        if value.owner not in (None, key):
            it.fail(f"assigning the table {value.owner} to {key}", "two names for one table (Lua tables are "
                    "shared references) cannot be followed on the device")
        to_float = kind[1] == "int" and jnp.issubdtype(value.x.dtype, jnp.floating)
        return (("array", "float", kind[2]) if to_float else kind), Arr(value.x, key)
    if kind[0] == "tensor" and (value.t.kind, value.t.shape) != kind[1:]:
        it.fail(f"assigning a {value.t.kind} tensor of shape {list(value.t.shape)} to {key}",
                f"it holds a {kind[1]} tensor of shape {list(kind[2])}: play-time state keeps one kind and shape")
    if kind[0] == "record" and isinstance(value, dict) and set(value) != {k for k, _ in kind[1]} and all(
            sub[0] in _NILABLE or sub == EMPTY for k, sub in kind[1] if k not in value):   # names: nil where unset
        kind = widened(("record", tuple((k, sub if k in value or sub[0] == "maybe" else
                                         ("maybe", ("record", ()) if sub == EMPTY else sub))
                                        for k, sub in kind[1])), value_kind(value))
        value = {k: value.get(k) for k, sub in kind[1] if k in value or sub[0] == "maybe"}
    if kind[0] == "record":
        if set(value) != {k for k, _ in kind[1]}:
            it.fail(f"a table whose fields change ({key}: {', '.join(sorted(map(str, value)))})", "it has the "
                    f"fields {', '.join(str(k) for k, _ in kind[1])} when the script has loaded; a record keeps its "
                    "fields")
        fields = [(k, fitted(it, f"{key}.{k}", sub, value[k])) for k, sub in kind[1]]
        return ("record", tuple((k, w) for k, (w, _) in fields)), {k: v for k, (_, v) in fields}
    if kind[0] == "tuple":
        if len(value) != len(kind[1]):
            it.fail(f"a table that changes length ({key})", f"it has {len(kind[1])} items when the script has loaded")
        items = [fitted(it, f"{key}[{i + 1}]", sub, v) for i, (sub, v) in enumerate(zip(kind[1], value))]
        return ("tuple", tuple(w for w, _ in items)), [v for _, v in items]
    return kind, value


def _fitted_list(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``fitted`` for a list built at play (``("list", slots)``, ``compile_lua.device.sparse_lists``): its entries
    in the slots in order, a slot's entry kept as its entry allows (a table of the state where it is); a list of
    more entries widens it, but not one that grows from the list the call began with (it would grow without
    end). Entries that are not there on any path leave their slots as they are."""
    if (isinstance(value, dict) and not value) or (isinstance(value, Keyed) and not value.x.size):
        value = SparseList()
    if not isinstance(value, (SparseList, list)):
        it.fail(f"assigning a {lua_type(value)} to {key}", "it holds a list built at play (table.insert, "
                "t[#t + 1] = v); play-time state keeps one kind of value")
    value = as_list(value)
    slots = list(kind[1])
    if len(value.entries) > len(slots) and value.loaded:
        it.fail(f"a list kept in play-time state that grows call after call ({key})", "play-time state has a "
                "fixed size: rebuild the list from {} where play fills it")
    entries = []
    for i, (v, present) in enumerate(value.entries):
        if i == len(slots):
            slots.append(slot_kind(v))
        if slots[i] is None:
            it.fail(f"keeping a {lua_type(v)} in the list {key}", "a list kept in play-time state holds numbers, "
                    "booleans, strings, tables of them and the state's own tables (a table of an object kept on the "
                    "host is not one)")
        if present is False:
            entries.append((start_value(slots[i], zero_value(slots[i])), False))
            continue
        slots[i], v = fitted(it, f"{key}[{i + 1}]", slots[i], v)
        entries.append((v, present))
    entries += [(start_value(sub, zero_value(sub)), False) for sub in slots[len(entries):]]
    return ("list", tuple(slots)), SparseList(tuple(entries), key, value.loaded)


def _start_data(it: Any, key: str) -> Any:
    """The host data state ``key`` (a variable, or a field of one: ``api._env._layerOrder``) starts from, or None."""
    start = it.env.tr.start
    top = max((k for k in start if key == k or key.startswith(k + ".")), key=len, default=None)
    data = start.get(top)
    for name in key[len(top) + 1:].split(".") if top is not None and key != top else []:
        data = data.get(name) if isinstance(data, dict) else None
    return data


def _fitted_ref(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``fitted`` for a list's entry that is a table kept in the state (``("ref", state key, fields)``): that same
    table again."""
    if not isinstance(value, HeldRecord) or (value.origin[0], tuple(value.origin[1])) != kind[1:]:
        it.fail(f"keeping another table in {key}", f"a list kept in play-time state holds at each place the same "
                f"table of the state ({kind[1]}{''.join(f'.{f}' for f in kind[2])}) or tables it makes")
    return kind, value


def _fitted_maybe(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``fitted`` for a field that holds a number or nil (``("maybe", ("int",) | ("float",))``) or a string
    from a finite set or nil (``("maybe", ("string", set))``; a field no write has given a number or a
    string yet is ``layouts.UNSET``)."""
    if holds_table(kind) or (kind == UNSET and lua_type(value) == "table"):
        return _fitted_maybe_table(it, key, kind, value)
    if kind[1][0] == "fn" or (kind == UNSET and is_function(value)):
        if value is None:
            return kind, None
        inner = _fitted_function(it, key, kind[1] if kind[1][0] == "fn" else ("fn", ()), value)[0]
        return ("maybe", inner), value
    text = kind[1][0] == "string"
    if kind[1][0] == "bool":   # a name of a table of names that play sets to booleans
        if value is not None and lua_type(value) != "boolean":
            it.fail(f"assigning a {lua_type(value)} to {key}", "it holds booleans or nil")
        return kind, MaybeBool(bool_of(value) if value is not None else jnp.bool_(False), present_of(value))
    if value is None:
        return kind, (MaybeStr(jnp.int32(0), kind[1][1], False) if text else
                      MaybeNum(jnp.zeros((), DTYPE[kind[1][0]]), 0.0, 0.0, False))
    if lua_type(value) == "string" and not isinstance(value, NumText) and (text or kind == UNSET):
        cands = (value.cands if isinstance(value, Str) else frozenset([value])) | (kind[1][1] if text else set())
        gid = value.gid if isinstance(value, Str) else jnp.int32(it.env.intern(value))
        return ("maybe", ("string", cands)), MaybeStr(gid, cands, present_of(value))
    if lua_type(value) != "number" or text:
        it.fail(f"assigning a {lua_type(value)} to {key}", "it is nil when the script has loaded and play sets "
                "it: such a field holds numbers or strings from a finite set (one kind of them) or nil")
    num = as_num(value)
    wide = ("maybe", numbers_joined(kind[1], number_kind(num.is_int, num.lo, num.hi)))
    present = value.present if isinstance(value, MaybeNum) else True
    return wide, MaybeNum(num.x, num.lo, num.hi, present)


def _fitted_maybe_table(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``fitted`` for a field that holds a table or nil (``("maybe", table entry)``, or ``layouts.UNSET``
    before any write gave it a table): the table fits its entry as a table variable's would."""
    if value is None:
        return kind, None
    if lua_type(value) != "table":
        it.fail(f"assigning a {lua_type(value)} to {key}", "it holds a table or nil")
    table = table_of(value)
    inner = kind[1] if kind[1][0] in TABLE_KINDS else value_kind(table)
    if inner == EMPTY:   # {}: a record of no names yet (names or a list's entries widen it)
        inner = ("record", ())
    if inner is None:
        it.fail(f"assigning a table to {key}", "a table that may be nil holds numbers, booleans, strings and "
                "fixed tables of them")
    wide, fit = fitted(it, key, inner, table)
    return ("maybe", wide), MaybeTable(fit, value.present if isinstance(value, MaybeTable) else True)


def _fitted_function(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``fitted`` for a variable that holds a function (``("fn", keys)``, ``compile_lua.device.stored_functions``):
    another function widens its keys."""
    if not is_function(value) or (isinstance(value, FnChoice) and value.present is not True):
        it.fail(f"assigning a {lua_type(value)} to {key}", "it holds a function when the script has loaded")
    keys = key_set(value, it.failer(f"keeping a function in {key}"))
    return ("fn", joined_keys(kind[1], keys)), value

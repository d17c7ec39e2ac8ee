"""Tables that play sets and reads at integer keys (``seen[id] = true``, ``opened[door] = true``):
:class:`~compile_lua.device.values.Keyed`.

A table of numbers or booleans at integer keys, nil at every other key, that the script starts empty
or with a few such keys (DeepMind Lab's ``level._pickedUp = {}``, filled in ``pickup(id)``), is kept
as a fixed array of values and a presence mask over the keys it can hold: those it starts with and
every key a write can reach, as the translator's interval of the key says (``Num.lo``/``hi``; a DMLab
pickup id lies within the level's pickup ids, ``Translation.bounds``). A write at a key with no
finite interval, at a float key, or one that would make the table span more than :data:`MAX_KEYS`
keys is refused at its line; a read at a key the table has no room for is nil. A write at a key that may be
nil (a piece ``createPiece`` may not make) writes where it is a number; where it is nil, Lua stops with an
error, which sets the grids' error bit (``conversions.error_where``).

Its layout entry (``compile_lua.device.callstate``) is ``("keyed", value, first, size)``: ``value``
``"bool"``, ``"int"`` or ``"float"`` (``"none"`` while nothing is stored: ``size`` 0), room for the
keys ``first`` .. ``first + size - 1``; the state keeps ``{"value": (size,), "present": bool(size,)}``.
A start value read on the host is a dict (integer keys, or their decimal text once it has travelled
as JSON) or a list (keys 1..n).
"""
from __future__ import annotations

import math
from typing import Any, Optional

import jax.numpy as jnp
import numpy as np

from compile_lua.device import conversions
from compile_lua.device.values import Keyed, MaybeBool, MaybeNum, as_num, is_traced, lua_type, placed, present_of

MAX_KEYS = 4096   # most keys one table keyed by integers may span
_DTYPE = {"bool": jnp.bool_, "int": jnp.int32, "float": jnp.float32, "none": jnp.bool_}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def host_kind(value: Any) -> Optional[tuple]:
    """The layout entry of a host table (a dict) of numbers or booleans at integer keys, or of an empty
    table; None for any other value."""
    if not isinstance(value, dict) or not all(isinstance(k, int) and not isinstance(k, bool) for k in value):
        return None
    if not value:
        return ("keyed", "none", 1, 0)
    items = list(value.values())
    if all(isinstance(v, bool) for v in items):
        kind = "bool"
    elif all(_is_number(v) for v in items):
        kind = "int" if all(isinstance(v, int) for v in items) else "float"
    else:
        return None
    first, last = min(value), max(value)
    return ("keyed", kind, first, last - first + 1) if last - first < MAX_KEYS else None


def value_kind(t: Keyed) -> tuple:
    """The layout entry of a Keyed value."""
    size = int(t.x.shape[0])
    if not size:
        return ("keyed", "none", t.first, 0)
    dtype = t.x.dtype
    return ("keyed", "bool" if dtype == jnp.bool_ else "int" if jnp.issubdtype(dtype, jnp.integer) else "float",
            t.first, size)


def joined(a: tuple, b: Optional[tuple]) -> Optional[tuple]:
    """The keyed layout entry with room for tables of entries ``a`` (keyed) and ``b`` (keyed, or an array:
    keys 1..n); None when one holds booleans and the other numbers, or together they span more than
    :data:`MAX_KEYS` keys."""
    if b is not None and b[0] == "array":
        b = ("keyed", b[1], 1, b[2])
    if b is None or b[0] != "keyed":
        return None
    filled = [k for k in (a, b) if k[3]]
    if not filled:
        return a
    values = {k[1] for k in filled}
    if "bool" in values and len(values) > 1:
        return None
    first, last = min(k[2] for k in filled), max(k[2] + k[3] - 1 for k in filled)
    if last - first >= MAX_KEYS:
        return None
    return ("keyed", "float" if "float" in values else values.pop(), first, last - first + 1)


def from_host(kind: tuple, value: Any) -> Keyed:
    """The Keyed value over ``kind``'s keys of a host start value (see the module)."""
    items = enumerate(value, 1) if isinstance(value, list) else ((int(k), v) for k, v in (value or {}).items())
    first, size = kind[2], kind[3]
    x, present = np.zeros(size, _DTYPE[kind[1]]), np.zeros(size, bool)
    for k, v in items:
        x[k - first], present[k - first] = v, True
    return Keyed(jnp.asarray(x), jnp.asarray(present), first)


def to_host(value: Any) -> Any:
    """A host start value as JSON data: a dict's integer keys as their decimal text, a tensor (numpy array)
    as nested lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else value


def load(kind: tuple, x: Any, owner: str) -> Keyed:
    """The state's ``{"value", "present"}`` of layout entry ``kind`` as a Keyed value written through ``owner``."""
    return Keyed(x["value"], x["present"], kind[2], owner)


def stored(kind: tuple, t: Keyed) -> dict:
    """``t`` as the state keeps it under layout entry ``kind`` (which has room for its keys)."""
    t = placed(t, kind[2], kind[3], _DTYPE[kind[1]])
    return {"value": t.x, "present": t.present}


def slot(key: Any, first: int, size: int) -> tuple:
    """(int32[] index clipped into 0..size-1, bool[] whether it is one) of the slot of traced number ``key``
    among keys ``first`` .. ``first + size - 1``: a whole number in range (and, for a key that may be nil,
    present)."""
    k = as_num(key)
    whole = k.x if k.is_int else jnp.floor(k.x)
    i = whole.astype(jnp.int32) - first
    inside = (i >= 0) & (i < size) & (whole == k.x) & jnp.asarray(present_of(key))
    return jnp.clip(i, 0, size - 1), inside


def element(t: Keyed, key: Any) -> Any:
    """``t[key]``: a MaybeBool or MaybeNum (nil where the key holds nothing), None where it is nil on every path."""
    size = int(t.x.shape[0])
    if not size or lua_type(key) != "number":
        return None
    if not is_traced(key):
        if not math.isfinite(key) or key != int(key) or not t.first <= key <= t.last:
            return None
        i, inside = int(key) - t.first, True
    else:
        i, inside = slot(key, t.first, size)
    present = jnp.logical_and(t.present[i], inside)
    return MaybeBool(t.x[i], present) if t.x.dtype == jnp.bool_ else MaybeNum(t.x[i], present=present)


def set_item(it: Any, t: Keyed, key: Any, value: Any) -> Keyed:
    """``t`` with ``t[key] = value`` on the live path (``value`` nil: the key holds nothing); the table gets
    room for every key ``key`` may be. ``it`` is the running Interpreter, which rejects at its line."""
    if lua_type(key) != "number":
        it.fail(f"writing a {lua_type(key)} key of a table keyed by integers", "such a table holds numbers or "
                "booleans at integer keys only")
    nil_key = isinstance(key, MaybeNum) and key.present is not True
    if nil_key:   # written where the key is a number; where it is nil, Lua stops with an error
        conversions.error_where(it, ~jnp.asarray(key.present, jnp.bool_))
    if not is_traced(key) and isinstance(key, float) and key == int(key):
        key = int(key)
    k = as_num(key)
    if not k.is_int:
        it.fail("writing a table at a float key", "a table written at play time is keyed by integers")
    if not (math.isfinite(k.lo) and math.isfinite(k.hi)):
        it.fail("writing a table at a key with no bound known ahead of time", "a table written at play time keeps "
                "room for every key a write can reach, so the key must lie in a range known when the script has "
                "loaded (a pickup id, an integer clamped with math.min/math.max)")
    kind = lua_type(value)
    if kind not in ("boolean", "number", "nil"):
        it.fail(f"storing a {kind} in a table keyed by integers", "such a table holds numbers or booleans")
    if kind == "nil" and not t.x.size:
        return t
    held = "none" if not t.x.size else "boolean" if t.x.dtype == jnp.bool_ else "number"
    if kind != "nil" and held not in ("none", kind):
        it.fail(f"storing a {kind} in a table of {held}s", "a table written at play time keeps one kind of value")
    lo, hi = int(k.lo), int(k.hi)
    first = min(lo, t.first) if t.x.size else lo
    last = max(hi, t.last) if t.x.size else hi
    if last - first >= MAX_KEYS:
        it.fail(f"a table written at keys {first} .. {last}", f"a table written at play time spans at most "
                f"{MAX_KEYS} keys (the range its keys may lie in, as far as the translator can tell)")
    new = as_num(value) if kind == "number" else None
    dtype = (jnp.bool_ if kind == "boolean" else t.x.dtype if kind == "nil" else
             jnp.float32 if not new.is_int or jnp.issubdtype(t.x.dtype, jnp.floating) else jnp.int32)
    t = placed(t, first, last - first + 1, dtype)
    i = k.x - first
    x = (jnp.asarray(value.x if isinstance(value, MaybeBool) else value) if kind == "boolean" else
         new.x if kind == "number" else t.x[i]).astype(dtype)
    present = jnp.asarray(False if kind == "nil" else value.present if isinstance(value, (MaybeBool, MaybeNum))
                          else True, jnp.bool_)
    live = jnp.logical_and(it.live(), key.present) if nil_key else it.live()
    if live is not True:
        x, present = jnp.where(live, x, t.x[i]), jnp.where(live, present, t.present[i])
    return Keyed(t.x.at[i].set(x), t.present.at[i].set(present), first, t.owner)


def fitted(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``(kind widened to hold value, value as the state keeps it)`` for writing ``value`` to the state
    variable ``key`` of keyed layout entry ``kind``: another table keyed by integers, or ``{}``."""
    if isinstance(value, dict) and not value:
        value = Keyed(jnp.zeros(0, jnp.bool_), jnp.zeros(0, jnp.bool_), kind[2])
    if not isinstance(value, Keyed):
        it.fail(f"assigning a {lua_type(value)} to {key}", "it holds a table of numbers or booleans at integer "
                "keys when the script has loaded; play-time state keeps one kind of value")
    if value.owner not in (None, key):
        it.fail(f"assigning the table {value.owner} to {key}", "two names for one table (Lua tables are shared "
                "references) cannot be followed on the device")
    wide = joined(kind, value_kind(value))
    if wide is None:
        it.fail(f"a table of booleans and numbers ({key})", "a table written at play time keeps one kind of value")
    return wide, Keyed(value.x, value.present, value.first, key)

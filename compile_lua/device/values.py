"""Values of translated Lua: what the translator holds for each Lua value while it traces a callback.

- nil, booleans, numbers and strings known at translation time stay Python values (None, bool, int for a Lua
  integer, float for a Lua float, str);
- a traced number is :class:`Num` (an int32 or float32 scalar: Lua integers and floats, at JAX's 32 bits) with the
  interval its value is known to lie in;
- a traced boolean is a bool scalar (a JAX array);
- a traced string is :class:`Str`: the id of the string in the translation's string table (int32) and the finite
  set of strings it may be; ``tostring`` of a traced number with no finite set of values is :class:`NumText`, a
  string the host writes from the number;
- a table of numbers or booleans is :class:`Arr` (a 1-D array of fixed length); a table of numbers or booleans that
  play sets and reads at integer keys, nil elsewhere (``seen[id] = true``), is :class:`Keyed`, and what it holds
  at a key :class:`MaybeNum` or :class:`MaybeBool`; other tables (records, lists of records) are Python dicts and
  lists of values, of fixed structure;
- a Lab2D ``system.tensor`` tensor is :class:`TensorVal`: a ``jaxlab.kernels.lab2d_tensor.Tensor`` view and the id
  of the storage it views (``compile_lua.device.tensors``).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any, Callable, Dict, List, Optional, Sequence

import jax.numpy as jnp

INF = math.inf
MAX_STRINGS = 4096   # most strings one traced string expression may be
#: how :func:`select` merges the engine's values (``grid_values`` adds its own): type -> merge(c, a, b, intern, fail);
#: ``"table or nil"``: a table on one path and nil on the other (``maybe_tables``)
MERGERS: Dict[Any, Callable[..., Any]] = {}


class ApiRef:
    """The script's api table (``api``/``self``): its fields are state or methods."""


API = ApiRef()


class PendingNil:
    """An api field that is nil on the host, read while the translation is still finding which fields play
    sets (``Translation.discovering``): nil to Lua's tests, 0 to arithmetic, nothing to method calls, so the
    callback runs on to the writes that make such fields state."""


PENDING = PendingNil()


@dataclasses.dataclass
class Num:
    """A traced Lua number: ``x`` (int32 or float32 scalar), known to lie in [``lo``, ``hi``]."""

    x: Any
    lo: float = -INF
    hi: float = INF

    @property
    def is_int(self) -> bool:
        """True for a Lua integer (int32), False for a float."""
        return jnp.issubdtype(self.x.dtype, jnp.integer)


@dataclasses.dataclass
class MaybeNum(Num):
    """A number that may be nil: an api field that is nil when the script has loaded and that play
    sets to numbers (DMLab's ``api._time = timeSeconds``). ``present`` (a bool, traced or not) says
    whether it holds a number; where it does not, ``x`` is 0. Lua's truth and ``== nil`` read
    ``present``; arithmetic reads ``x`` (where Lua would stop with an error on nil: the device
    cannot), and ``type()`` says number."""

    present: Any = True


@dataclasses.dataclass
class MaybeBool:
    """A boolean that may be nil (what a :class:`Keyed` table of booleans holds at a key): ``x`` (bool
    scalar) where ``present`` (bool, traced or not) holds, nil elsewhere. Lua's truth is
    ``present and x``; ``== nil`` reads ``present``; ``type()`` says boolean."""

    x: Any
    present: Any


@dataclasses.dataclass
class Str:
    """A traced Lua string: ``gid`` (int32 id into the string table), one of ``cands``."""

    gid: Any
    cands: frozenset


@dataclasses.dataclass
class MaybeStr(Str):
    """A string that may be nil (an entry of a list of strings read at a key that may lie outside it; an api
    field that is nil when the script has loaded and that play sets to strings): ``present`` (a bool,
    traced or not) says whether it holds a string. Lua's truth and ``== nil`` read ``present``; joining
    and formatting read ``gid`` (where Lua would stop with an error on nil: the device cannot)."""

    present: Any = True


@dataclasses.dataclass
class NumText:
    """``tostring(num)`` of a traced number (:class:`Num`) with no finite set of values: a Lua string
    whose text the host writes from the number the device computes (Lua 5.4's tostring: integers as
    ``3``, floats as ``%.14g``, ``3.0`` when whole). It can be returned (a property's value), compared
    and merged with another NumText, not joined, formatted or stored in play-time state."""

    num: Num


@dataclasses.dataclass
class Arr:
    """A Lua table of numbers or booleans with keys 1..n: ``x`` is its (n,) array; ``owner`` is the
    one name it may be written through (a state key or a local); ``static``: its items as Python
    numbers when a constructor made it from numbers known at translation time (else None)."""

    x: Any
    owner: Optional[str] = None
    static: Optional[tuple] = None


@dataclasses.dataclass
class Keyed:
    """A Lua table of numbers or booleans at integer keys that play sets and reads (``seen[id] = true``):
    ``x`` (n,) holds the values of the keys ``first`` .. ``first + n - 1`` (bool, int32 or float32),
    ``present`` (n,) bool says which of them hold a value; every other key is nil. ``owner`` as Arr's.
    An empty table that nothing has written yet has n = 0."""

    x: Any
    present: Any
    first: int = 1
    owner: Optional[str] = None

    @property
    def last(self) -> int:
        """The highest key it has room for (``first - 1`` when it has none)."""
        return self.first + int(self.x.shape[0]) - 1


def placed(t: Keyed, first: int, size: int, dtype: Any) -> Keyed:
    """``t`` with room for the keys ``first`` .. ``first + size - 1`` (which hold ``t``'s), its values as
    ``dtype``; the new keys are nil."""
    if (t.first, int(t.x.shape[0]), t.x.dtype) == (first, size, dtype):
        return t
    x, present = jnp.zeros(size, dtype), jnp.zeros(size, jnp.bool_)
    at, n = t.first - first, int(t.x.shape[0])
    if n:
        x, present = x.at[at:at + n].set(t.x.astype(dtype)), present.at[at:at + n].set(t.present)
    return Keyed(x, present, first, t.owner)


@dataclasses.dataclass
class TensorVal:
    """A Lab2D tensor: ``t`` (a ``jaxlab.kernels.lab2d_tensor.Tensor`` view) and ``owner``, the id of
    the storage it views: every value with that owner sees a write through any of them. ``owner`` is
    None for a tensor merged from two storages on two paths (read-only)."""

    t: Any
    owner: Optional[str]


class HeldRecord(dict):
    """A record read from play-time state (an api field, a host object's field, a top-level local, or a record
    inside one of them): ``origin`` is ``(state key, path of fields)``, where a write through a local that holds
    it is written back (``compile_lua.device.records``), as Lua's shared table would be."""

    def __init__(self, fields: Dict[str, Any], origin: tuple, source: Optional[Dict[str, Any]] = None):
        super().__init__(fields)
        self.origin, self.source = origin, source   # source: the state's own dict it was read from


def held(value: Any, key: str, path: tuple = ()) -> Any:
    """``value`` read from state ``key`` at fields ``path``: a HeldRecord when it is a record."""
    if isinstance(value, HeldRecord) and value.origin == (key, path) or not isinstance(value, dict):
        return value
    return HeldRecord(value, (key, path), value)


def tensors_in(v: Any) -> list:
    """The tensors ``v`` is or holds in its records' fields and lists' items (a record may keep a tensor)."""
    if isinstance(v, TensorVal):
        return [v]
    items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
    return [t for x in items for t in tensors_in(x)]


def is_traced(v: Any) -> bool:
    """True for a value only known at run time (Num, MaybeBool, Str, NumText, a bool array, Arr, Keyed,
    TensorVal)."""
    return isinstance(v, (Num, MaybeBool, Str, NumText, Arr, Keyed, TensorVal)) or hasattr(v, "dtype")


def lua_type(v: Any) -> str:
    """The Lua type name of a translator value."""
    if v is None or v is PENDING:
        return "nil"
    if isinstance(v, (bool, MaybeBool)) or (hasattr(v, "dtype") and v.dtype == jnp.bool_):
        return "boolean"
    if isinstance(v, (int, float, Num)):
        return "number"
    if isinstance(v, (str, Str, NumText)):
        return "string"
    if isinstance(v, TensorVal):
        return "userdata"
    if hasattr(v, "LUA_TYPE"):   # the engine's values (``grid_values``)
        return v.LUA_TYPE
    return "table" if isinstance(v, (Arr, Keyed, dict, list)) else "function"


def as_num(v: Any) -> Num:
    """A number (static or traced) as Num: Lua integers int32 (float32 beyond int32's range), floats float32."""
    if isinstance(v, Num):
        return v
    dtype = jnp.int32 if isinstance(v, int) and -2**31 <= v < 2**31 else jnp.float32
    return Num(jnp.asarray(v, dtype), float(v), float(v))


def tostring(v: Any) -> str:
    """Lua's tostring of a static value (integers as ``3``, floats as ``3.0`` / ``%.14g``)."""
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if math.isnan(v):
            return "nan" if math.copysign(1, v) > 0 else "-nan"
        text = "%.14g" % v
        return text + ".0" if all(c in "-0123456789" for c in text) else text
    return v


def finite_choices(v: Any) -> Optional[List[Any]]:
    """The static values a value may take, when they are few (at most MAX_STRINGS); None otherwise.
    An integer Num needs a finite interval; a float Num has no finite set."""
    if not is_traced(v):
        return [v]
    if isinstance(v, Str):
        return sorted(v.cands)
    if isinstance(v, Num):
        if not v.is_int or not (math.isfinite(v.lo) and math.isfinite(v.hi)) or v.hi - v.lo >= MAX_STRINGS:
            return None
        return list(range(int(v.lo), int(v.hi) + 1))
    if hasattr(v, "dtype") and v.dtype == jnp.bool_:
        return [False, True]
    return None


def choice_index(v: Any, choices: Sequence[Any], intern: Callable[[str], int]) -> Any:
    """The position of ``v``'s run-time value in ``choices`` (int32; 0 for a static value)."""
    if not is_traced(v):
        return jnp.int32(0)
    if isinstance(v, Str):
        ids = jnp.asarray([intern(s) for s in choices], jnp.int32)
        return jnp.argmax(ids == v.gid).astype(jnp.int32)
    if isinstance(v, Num):
        return (v.x - int(choices[0])).astype(jnp.int32)
    return v.astype(jnp.int32)


def combine_strings(parts: Sequence[Any], make: Callable[[list], str], intern: Callable[[str], int],
                    fail: Callable[[Any], Any]) -> Any:
    """The string ``make(values)`` for the run-time values of ``parts``: a str when all are static,
    else a Str over every combination (at most MAX_STRINGS). ``fail(part)`` is called (and must
    raise) for a part whose set of values is not finite."""
    choices = []
    for p in parts:
        c = finite_choices(p)
        if c is None:
            fail(p)
        choices.append(c)
    total = math.prod(len(c) for c in choices)
    if total > MAX_STRINGS:
        fail(None)
    if total == 1:
        text = make([c[0] for c in choices])
        return text if not any(is_traced(p) for p in parts) else Str(jnp.int32(intern(text)), frozenset([text]))
    table, index = [], jnp.int32(0)
    for combo in itertools.product(*choices):
        table.append(intern(make(list(combo))))
    for p, c in zip(parts, choices):
        index = index * len(c) + choice_index(p, c, intern)
    names = frozenset(make(list(combo)) for combo in itertools.product(*choices))
    return Str(jnp.asarray(table, jnp.int32)[index], names)


def select(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> Any:
    """Lua ``c and a or b`` for a traced boolean ``c`` over values of one kind (both numbers, both
    booleans, both strings, tables of one shape, records of the same fields). ``fail(why)`` raises
    for values that cannot be merged."""
    if a is b:
        return a
    merge = MERGERS.get(type(a)) or MERGERS.get(type(b))
    if merge is not None:
        return merge(c, a, b, intern, fail)
    if isinstance(a, (bool, int, float, str)) and type(a) is type(b) and a == b:   # records: field by field
        return a
    ta, tb = lua_type(a), lua_type(b)
    if {ta, tb} <= {"number", "nil"} and (isinstance(a, MaybeNum) or isinstance(b, MaybeNum) or ta != tb):
        return _select_maybe(c, a, b, intern, fail)
    if {ta, tb} <= {"string", "nil"} and (isinstance(a, MaybeStr) or isinstance(b, MaybeStr)):
        x, y = (Str(v.gid, v.cands) if isinstance(v, Str) else v for v in (a, b))   # the strings alone
        text = select(c, x if x is not None else y, y if y is not None else x, intern, fail)
        return MaybeStr(text.gid, text.cands, jnp.where(c, present_of(a), present_of(b)))
    if {ta, tb} <= {"boolean", "nil"} and (isinstance(a, MaybeBool) or isinstance(b, MaybeBool)):
        pa, pb = present_of(a), present_of(b)
        return MaybeBool(jnp.where(c, bool_of(a), bool_of(b)), jnp.where(c, pa, pb))
    if {ta, tb} == {"table", "nil"} and "table or nil" in MERGERS:   # ``compile_lua.device.maybe_tables``
        return MERGERS["table or nil"](c, a, b, intern, fail)
    if ta != tb:
        fail(f"a value that is a {ta} on one path and a {tb} on another")
    if ta == "number":
        a, b = as_num(a), as_num(b)
        if a.is_int != b.is_int:
            a, b = Num(a.x.astype(jnp.float32), a.lo, a.hi), Num(b.x.astype(jnp.float32), b.lo, b.hi)
        return Num(jnp.where(c, a.x, b.x), min(a.lo, b.lo), max(a.hi, b.hi))
    if ta == "boolean":
        return jnp.where(c, a, b)
    if ta == "string" and (isinstance(a, NumText) or isinstance(b, NumText)):
        if not (isinstance(a, NumText) and isinstance(b, NumText)) or a.num.is_int != b.num.is_int:
            fail("tostring of a number on one path and another string (or a number of the other subtype) on "
                 "another: the host writes a number's text, so both paths must give one")
        return NumText(select(c, a.num, b.num, intern, fail))
    if ta == "string":
        ca = a.cands if isinstance(a, Str) else frozenset([a])
        cb = b.cands if isinstance(b, Str) else frozenset([b])
        ga = a.gid if isinstance(a, Str) else intern(a)
        gb = b.gid if isinstance(b, Str) else intern(b)
        return Str(jnp.where(c, ga, gb).astype(jnp.int32), ca | cb)
    if isinstance(a, Arr) and isinstance(b, Arr):
        if a.x.shape != b.x.shape:
            fail("tables of different lengths on two paths")
        return Arr(jnp.where(c, a.x, b.x), a.owner if a.owner == b.owner else None,
                   a.static if a.static == b.static else None)
    if isinstance(a, Keyed) and isinstance(b, Keyed):
        filled, first = [t for t in (a, b) if t.x.size], a.first
        if len({t.x.dtype == jnp.bool_ for t in filled}) > 1:
            fail("a table of booleans on one path and of numbers on another")
        if filled:
            first = min(t.first for t in filled)
            size, dtype = max(t.last for t in filled) - first + 1, jnp.result_type(*(t.x.dtype for t in filled))
            a, b = placed(a, first, size, dtype), placed(b, first, size, dtype)
        return Keyed(jnp.where(c, a.x, b.x), jnp.where(c, a.present, b.present), first,
                     a.owner if a.owner == b.owner else None)
    if isinstance(a, TensorVal) and isinstance(b, TensorVal):
        ta, tb = a.t, b.t
        if (ta.kind, ta.shape, ta.strides) != (tb.kind, tb.shape, tb.strides) or ta.storage.shape != tb.storage.shape:
            fail("tensors of different kinds or layouts on two paths")
        merged = ta.replace(storage=jnp.where(c, ta.storage, tb.storage), offset=jnp.where(c, ta.offset, tb.offset))
        return TensorVal(merged, a.owner if a.owner == b.owner else None)
    if isinstance(a, Keyed) and not a.x.size and isinstance(b, dict):   # {} on one path, names set on the other
        a = {}
    if isinstance(b, Keyed) and not b.x.size and isinstance(a, dict):
        b = {}
    if isinstance(a, dict) and isinstance(b, dict):   # a name one path lacks is nil there
        merged = {k: select(c, a.get(k), b.get(k), intern, fail) for k in list(a) + [k for k in b if k not in a]}
        origins = {getattr(a, "origin", None), getattr(b, "origin", None)}
        return HeldRecord(merged, origins.pop()) if len(origins) == 1 and None not in origins else merged
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [select(c, x, y, intern, fail) for x, y in zip(a, b)]
    fail("tables of different shapes on two paths")


def plain_num(v: Any) -> Num:
    """The number of ``v`` (a Lua number, or a :class:`MaybeNum`'s, whatever its presence) as a plain Num."""
    n = as_num(v)
    return Num(n.x, n.lo, n.hi)


def present_of(v: Any) -> Any:
    """Whether the number-, boolean- or string-or-nil ``v`` holds one (a bool, traced for a :class:`MaybeNum`,
    :class:`MaybeBool` or :class:`MaybeStr`)."""
    return v is not None and (v.present if isinstance(v, (MaybeNum, MaybeBool, MaybeStr)) else True)


def flag_select(c: Any, a: Any, b: Any) -> Any:
    """A flag (a Python or traced bool: whether a path runs, an entry is there) that is ``a`` where ``c`` holds and
    ``b`` where not; one both sides share stays as it is (a Python bool stays one)."""
    return a if a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b) else jnp.where(c, a, b)


def bool_of(v: Any) -> Any:
    """The boolean of the boolean-or-nil ``v`` (False for nil), whatever its presence."""
    return v.x if isinstance(v, MaybeBool) else jnp.asarray(v is not None and v, jnp.bool_)


def _select_maybe(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> MaybeNum:
    """``select`` of two values that are each a number or nil (not both nil): a MaybeNum."""
    def plain(v):   # the number alone (for nil, the other side's: read nowhere, as it is absent there), a Num
        return plain_num(v if v is not None else a if a is not None else b)
    num = select(c, plain(a), plain(b), intern, fail)
    present = jnp.where(c, present_of(a), present_of(b))
    return MaybeNum(num.x, num.lo, num.hi, present)

"""The values a translated call works on: the layout of play-time state, and :class:`Env`, one traced call.

A state variable's layout entry says how it is carried between calls (``layout_kind``); ``Env`` holds
one call's variables as translator values (``compile_lua.device.values``), its effects, its key, the
engine's inputs and the newest version of every tensor storage, and is what an ``if`` on a traced
condition snapshots, restores and merges.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import jax.numpy as jnp
import numpy as np

from compile_lua.device import builtins, keyed
from compile_lua.device.values import (Arr, Keyed, MaybeBool, MaybeNum, MaybeStr, Num, NumText, Str, TensorVal, as_num,
                                       bool_of, lua_type, present_of)
from jaxlab.kernels.lab2d_tensor import Tensor, dtype_of


#: the tensor kind a DMLab tensor made on the host is kept as, by its numpy dtype (Char and Int16 have none)
HOST_TENSOR_KINDS = {"uint8": "Byte", "int32": "Int32", "int64": "Int64", "float32": "Double", "float64": "Double"}


def layout_kind(value: Any) -> Optional[tuple]:
    """The layout entry of a start value: ("bool",), ("int",), ("float",), ("string", set), ("array", dtype, n),
    ("keyed", dtype, first, n) for a table of numbers or booleans at integer keys or an empty table
    (``compile_lua.device.keyed``), ("record", ((field, kind), ...)) for a table of named fields,
    ("tuple", (kind, ...)) for a list of other tables, ("tensor", kind, shape) for a tensor (a Lab2D tensor
    a translated ``start`` makes, or a DMLab tensor made on the host: a numpy array of a dtype of
    :data:`HOST_TENSOR_KINDS`); None for a value that cannot be state."""
    if isinstance(value, bool):
        return ("bool",)
    if isinstance(value, int):
        return ("int",) if -2**31 <= value < 2**31 else None
    if isinstance(value, float):
        return ("float",)
    if isinstance(value, str):
        return ("string", frozenset([value]))
    if isinstance(value, np.ndarray):   # a DMLab tensor made on the host (``dmlab.system.tensor``)
        kind = HOST_TENSOR_KINDS.get(value.dtype.name)
        return ("tensor", kind, tuple(int(d) for d in value.shape)) if kind and value.ndim else None
    if isinstance(value, list) and value:
        if all(isinstance(v, bool) for v in value):
            return ("array", "bool", len(value))
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return ("array", "int" if all(isinstance(v, int) for v in value) else "float", len(value))
    return keyed.host_kind(value) or _nested(value, layout_kind)


def _nested(value: Any, kind_of: Callable[[Any], Optional[tuple]]) -> Optional[tuple]:
    """The record or tuple kind of a dict (string keys) or list of values whose kinds ``kind_of`` gives."""
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        fields = tuple(sorted((k, kind_of(v)) for k, v in value.items()))
        return ("record", fields) if all(_inner(f) for _, f in fields) else None
    if isinstance(value, list) and value:
        items = tuple(kind_of(v) for v in value)
        return ("tuple", items) if all(_inner(i) for i in items) else None
    return None


def _inner(kind: Optional[tuple]) -> bool:
    """Whether a record or tuple may hold a value of ``kind`` (not a tensor: a tensor is kept in a
    variable of its own, where writes through its views are followed)."""
    return kind is not None and kind[0] != "tensor"


DTYPE = {"bool": jnp.bool_, "int": jnp.int32, "float": jnp.float32}


def widened(kind: tuple, got: Optional[tuple]) -> tuple:
    """The layout entry ``kind`` grown, where play-time state may grow, to hold a start value of entry ``got``
    too (another episode's): a string's set of values, a table's integer keys, a list's length (``padded``),
    those of a list's items and a record's fields. Whether ``got`` then fits is the caller's question."""
    if got is None:
        return kind
    if got[0] == "record" and (kind[0] == "record" or kind[:2] == ("keyed", "none")):
        if kind[0] == "record" and [f for f, _ in kind[1]] == [f for f, _ in got[1]]:
            return ("record", tuple((f, widened(k, g)) for (f, k), (_, g) in zip(kind[1], got[1])))
        return _fields_joined(kind[1] if kind[0] == "record" else (), got[1]) or kind
    if kind[0] == "keyed":
        return keyed.joined(kind, got) or kind
    if kind[0] == "string" and got[0] == "string":
        return ("string", kind[1] | got[1])
    if kind[0] == "maybe" and kind[1][0] == "string":
        return ("maybe", widened(kind[1], got))
    if kind[0] == "tuple" and got[0] == "tuple":
        if len(kind[1]) != len(got[1]):
            return padded(kind, got) or kind
        return ("tuple", tuple(widened(k, g) for k, g in zip(kind[1], got[1])))
    return kind


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
        if one[0] not in ("string", "int", "float", "bool", "maybe"):
            return None
        fields.append((name, one if one[0] == "maybe" else ("maybe", one)))
    return ("record", tuple(fields))


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


def value_kind(v: Any) -> tuple:
    """The layout entry of a translator value (a variable ``start`` sets first)."""
    if isinstance(v, TensorVal):
        return ("tensor", v.t.kind, v.t.shape)
    if isinstance(v, Keyed):
        return keyed.value_kind(v)
    if isinstance(v, Arr):
        return ("array", "bool" if v.x.dtype == jnp.bool_ else "int" if jnp.issubdtype(v.x.dtype, jnp.integer)
                else "float", int(v.x.shape[0]))
    if isinstance(v, MaybeBool):
        return ("maybe", ("bool",))
    if isinstance(v, MaybeStr):
        return ("maybe", ("string", v.cands))
    if isinstance(v, Str):
        return ("string", v.cands)
    if isinstance(v, MaybeNum):
        return ("maybe", ("int",) if v.is_int else ("float",))
    if isinstance(v, Num):
        return ("int",) if v.is_int else ("float",)
    if isinstance(v, (dict, list)):
        return _nested(v, value_kind)
    return layout_kind(v)


def zero_value(kind: tuple) -> Any:
    """The host value a variable ``start`` sets first holds before it does: 0, false, its first string,
    zeros, nil."""
    if kind[0] == "string":
        return sorted(kind[1])[0]
    if kind[0] == "maybe":
        return None
    if kind[0] == "keyed":
        return {}
    if kind[0] == "array":
        return [{"bool": False, "int": 0, "float": 0.0}[kind[1]]] * kind[2]
    if kind[0] == "tensor":   # nested lists: a compile's reply carries plain Python data only
        return np.zeros(kind[2], dtype_of(kind[1])).tolist()
    if kind[0] == "record":
        return {k: zero_value(sub) for k, sub in kind[1]}
    if kind[0] == "tuple":
        return [zero_value(sub) for sub in kind[1]]
    return {"bool": False, "int": 0, "float": 0.0}[kind[0]]


class Env:
    """One traced call: the state (key -> translator value), effects, key, inputs, the string table."""

    def __init__(self, tr: Any, state: Dict[str, Any], inputs: Dict[str, Any]):
        self.tr, self.builtins, self.inputs = tr, builtins, inputs
        self.key = state["key"]
        self.state = dict(tr.constants)
        self.state.update({k: _load(tr.layout[k], x, k) for k, x in state["vars"].items()})
        self.storages = {k: v.t.storage for k, v in self.state.items() if isinstance(v, TensorVal)}
        self.effects = {"score": 0, "finish": False}
        self.defining = False   # whether writing an unknown api field makes it state (Lab2D's start)

    def intern(self, text: str) -> int:
        return self.tr.intern(text)

    def snapshot(self) -> Dict[str, Any]:
        return {"state": dict(self.state), "effects": dict(self.effects), "key": self.key,
                "storages": dict(self.storages)}

    def restore(self, snap: Dict[str, Any]) -> None:
        self.state, self.effects, self.key = dict(snap["state"]), dict(snap["effects"]), snap["key"]
        self.storages = dict(snap["storages"])

    def merge(self, c: Any, sel: Callable, a: Dict[str, Any], b: Dict[str, Any]) -> Dict[str, Any]:
        key = a["key"] if a["key"] is b["key"] else jnp.where(c, a["key"], b["key"])
        storages = {**a["storages"], **b["storages"]}
        storages.update({k: jnp.where(c, a["storages"][k], b["storages"][k]) for k in a["storages"]
                         if k in b["storages"] and a["storages"][k] is not b["storages"][k]})
        return {"state": {k: sel(a["state"][k], b["state"][k]) for k in a["state"] if k in b["state"]},
                "effects": {k: sel(a["effects"][k], b["effects"][k]) for k in a["effects"]}, "key": key,
                "storages": storages}

    def fresh(self, key: str) -> Any:
        """The value of state ``key`` that this call has not seen yet: an api field that is nil when the
        script has loaded and that play sets (``tr.nilable``) becomes state holding a number (or, once a
        string is written, a string) or nil, starting nil; a variable that became state inside one arm of
        an ``if`` starts from its zero value (``Translation.settle`` traces again with it in the state)."""
        if key not in self.tr.layout:
            self.tr.define(key, ("maybe", ("int",)))
        kind = self.tr.layout[key]
        self.state[key] = _load(kind, store(kind, start_value(kind, zero_value(kind)), self.intern), key)
        return self.state[key]

    def write(self, it: Any, key: str, value: Any) -> None:
        """``state[key] = value`` on the live path; widens the layout (int to float, more strings). In a
        callback that defines state (``self.defining``), an api field that is not yet state becomes state."""
        nilable = key in self.tr.nilable and not self.defining and lua_type(value) in ("number", "string", "nil")
        if key not in self.state and (key in self.tr.layout or nilable):
            self.fresh(key)
        if key not in self.tr.layout:
            if not (self.defining and key.startswith("api.")) or lua_type(value) == "nil":
                it.fail(f"assigning {key}", "play-time state is what the script holds when it has loaded "
                        "(and, in a Lab2D level, what start sets): set it there first")
            kind = value_kind(value)
            if kind is None:
                it.fail(f"assigning a {lua_type(value)} to {key}", "play-time state holds numbers, booleans, strings "
                        "from a finite set, fixed tables and tensors")
            self.tr.define(key, kind)
            self.state[key] = _load(kind, store(kind, start_value(kind, zero_value(kind)), self.intern), key)
        kind = self.tr.layout[key]
        wide, value = fitted(it, key, kind, value)
        if wide != kind:
            self.tr.widen(key, wide)
        self.state[key] = it.predicated(value, self.state[key])


_WANT = {"bool": "boolean", "int": "number", "float": "number", "string": "string", "array": "table",
         "tensor": "userdata", "record": "table", "tuple": "table"}
_TYPE = {"array": Arr, "record": dict, "tuple": list}


def fitted(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``(kind widened to hold value, value as the state keeps it)`` for writing ``value`` to the state
    variable (or field of one) ``key`` of ``kind``: an integer variable takes a float (it becomes float),
    a string variable more strings, a table its own length and fields, a tensor its kind and shape.
    Anything else is rejected at the running line (``it.fail``)."""
    if kind[0] == "maybe":
        return _fitted_maybe(it, key, kind, value)
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
            sub[0] == "maybe" for k, sub in kind[1] if k not in value):   # a table of names: nil where unset
        kind = widened(kind, value_kind(value))
        value = {k: value.get(k) for k, sub in kind[1] if k in value or sub[0] == "maybe"}
    if kind[0] == "record":
        if set(value) != {k for k, _ in kind[1]}:
            it.fail(f"a table whose fields change ({key}: {', '.join(sorted(value))})", "it has the fields "
                    f"{', '.join(k for k, _ in kind[1])} when the script has loaded; a record keeps its fields")
        fields = [(k, fitted(it, f"{key}.{k}", sub, value[k])) for k, sub in kind[1]]
        return ("record", tuple((k, w) for k, (w, _) in fields)), {k: v for k, (_, v) in fields}
    if kind[0] == "tuple":
        if len(value) != len(kind[1]):
            it.fail(f"a table that changes length ({key})", f"it has {len(kind[1])} items when the script has loaded")
        items = [fitted(it, f"{key}[{i + 1}]", sub, v) for i, (sub, v) in enumerate(zip(kind[1], value))]
        return ("tuple", tuple(w for w, _ in items)), [v for _, v in items]
    return kind, value


def _fitted_maybe(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``fitted`` for a field that holds a number or nil (``("maybe", ("int",) | ("float",))``) or a string
    from a finite set or nil (``("maybe", ("string", set))``; a field no write has given a number or a
    string yet is ``("maybe", ("int",))``)."""
    text = kind[1][0] == "string"
    if kind[1][0] == "bool":   # a name of a table of names that play sets to booleans
        if value is not None and lua_type(value) != "boolean":
            it.fail(f"assigning a {lua_type(value)} to {key}", "it holds booleans or nil")
        return kind, MaybeBool(bool_of(value) if value is not None else jnp.bool_(False), present_of(value))
    if value is None:
        return kind, (MaybeStr(jnp.int32(0), kind[1][1], False) if text else
                      MaybeNum(jnp.zeros((), DTYPE[kind[1][0]]), 0.0, 0.0, False))
    if lua_type(value) == "string" and not isinstance(value, NumText) and (text or kind == ("maybe", ("int",))):
        cands = (value.cands if isinstance(value, Str) else frozenset([value])) | (kind[1][1] if text else set())
        gid = value.gid if isinstance(value, Str) else jnp.int32(it.env.intern(value))
        return ("maybe", ("string", cands)), MaybeStr(gid, cands, present_of(value))
    if lua_type(value) != "number" or text:
        it.fail(f"assigning a {lua_type(value)} to {key}", "it is nil when the script has loaded and play sets "
                "it: such a field holds numbers or strings from a finite set (one kind of them) or nil")
    num = as_num(value)
    wide = ("maybe", ("float",)) if kind[1][0] == "float" or not num.is_int else kind
    present = value.present if isinstance(value, MaybeNum) else True
    return wide, MaybeNum(num.x, num.lo, num.hi, present)


def _load(kind: tuple, x: Any, key: str) -> Any:
    if kind[0] == "record":
        return {k: _load(sub, x[k], f"{key}.{k}") for k, sub in kind[1]}
    if kind[0] == "tuple":
        return [_load(sub, x[i], f"{key}[{i + 1}]") for i, sub in enumerate(kind[1])]
    if kind[0] == "tensor":
        return TensorVal(Tensor.fresh(kind[1], x), key)
    if kind[0] == "maybe" and kind[1][0] == "string":
        return MaybeStr(x["value"], kind[1][1], x["present"])
    if kind[0] == "maybe" and kind[1][0] == "bool":
        return MaybeBool(x["value"], x["present"])
    if kind[0] == "maybe":
        return MaybeNum(x["value"], present=x["present"])
    if kind[0] == "keyed":
        return keyed.load(kind, x, key)
    if kind[0] in ("int", "float"):
        return Num(x)
    if kind[0] == "string":
        return Str(x, kind[1])
    return x if kind[0] == "bool" else Arr(x, key)


def store(kind: tuple, v: Any, intern: Callable[[str], int]) -> Any:
    if kind[0] == "record":
        return {k: store(sub, v[k], intern) for k, sub in kind[1]}
    if kind[0] == "tuple":
        return [store(sub, x, intern) for sub, x in zip(kind[1], v)]
    if kind[0] == "string":
        return v.gid if isinstance(v, Str) else jnp.int32(intern(v))
    if kind[0] == "maybe":
        if v is None:
            return {"present": jnp.bool_(False), "value": jnp.zeros((), DTYPE.get(kind[1][0], jnp.int32))}
        return {"present": jnp.asarray(present_of(v), jnp.bool_),
                "value": store(kind[1], v, intern)}
    if kind[0] == "array":
        return v.x.astype(DTYPE[kind[1]])
    if kind[0] == "keyed":
        return keyed.stored(kind, v)
    if kind[0] == "tensor":
        return v.t.array() if isinstance(v, TensorVal) else jnp.asarray(v, dtype_of(kind[1])).reshape(kind[2])
    return jnp.asarray(v.x if isinstance(v, (Num, MaybeBool)) else v).astype(DTYPE[kind[0]])


def start_value(kind: tuple, v: Any) -> Any:
    if kind[0] == "record":   # a field another episode's record has and this one lacks is nil (``widened``)
        return {k: start_value(sub, v.get(k) if sub[0] == "maybe" else v[k]) for k, sub in kind[1]}
    if kind[0] == "tuple":   # a shorter list's missing items are nil (``padded``)
        return [start_value(sub, x) for sub, x in zip(kind[1], list(v) + [None] * (len(kind[1]) - len(v)))]
    if kind[0] == "array":
        return Arr(jnp.asarray(v, DTYPE[kind[1]]))
    if kind[0] == "keyed":
        return v if isinstance(v, Keyed) else keyed.from_host(kind, v)
    return v

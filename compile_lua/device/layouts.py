"""The layout of play-time state: how each variable is carried between calls (``layout_kind``, a variable's
"kind"; ``compile_lua.device.widening``: how kinds widen to hold more values), and how a translator value is
stored in the state's arrays and loaded back (``store``, ``load``). Besides the kinds of start values (``layout_kind``), play makes grids
(``("grid", ...)``), the grids' pieces' user state (``("pieces", P, record)``, ``compile_lua.device.user_state``)
and, inside it, views of tensors kept in state (``("view", owner, tensor kind, shape, strides)``), lists built at
play (``("list", slots)``, ``compile_lua.device.sparse_lists``) and, in their slots, the state's own tables they
hold (``("ref", state key, fields)``).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import math

import jax
import jax.numpy as jnp
import numpy as np

from compile_lua.device import keyed
from compile_lua.device.grid_values import GridRef, GridStore, PieceStore
from compile_lua.device.maybe_tables import MaybeTable, holds_table
from compile_lua.device.number_bounds import number_kind
from compile_lua.device.source import reject
from compile_lua.device.sparse_lists import SparseList, StateRef, as_list
from compile_lua.device.stored_functions import FnChoice, function_key, is_function, stored_index
from compile_lua.device.values import (Arr, HeldRecord, Keyed, MaybeBool, MaybeNum, MaybeStr, Num, Str, TensorVal,
                                       present_of)
from jaxlab.kernels.lab2d_grid.state import GridRules, empty_grid
from jaxlab.kernels.lab2d_tensor import Tensor, dtype_of


#: the tensor kind a DMLab tensor made on the host is kept as, by its numpy dtype (Char and Int16 have none)
HOST_TENSOR_KINDS = {"uint8": "Byte", "int32": "Int32", "int64": "Int64", "float32": "Double", "float64": "Double"}


def layout_kind(value: Any) -> Optional[tuple]:
    """The layout entry of a start value: ("bool",), ("int", v, v), ("float", v, v) (a number keeps its bounds:
    ``compile_lua.device.number_bounds``), ("string", set), ("array", dtype, n),
    ("keyed", dtype, first, n) for a table of numbers or booleans at integer keys or an empty table
    (``compile_lua.device.keyed``), ("record", ((field, kind), ...)) for a table of named fields,
    ("tuple", (kind, ...)) for a list of other tables, ("tensor", kind, shape) for a tensor (a Lab2D tensor
    a translated ``start`` makes, or a DMLab tensor made on the host: a numpy array of a dtype of
    :data:`HOST_TENSOR_KINDS`); None for a value that cannot be state."""
    if isinstance(value, bool):
        return ("bool",)
    if isinstance(value, int):
        return ("int", value, value) if -2**31 <= value < 2**31 else None
    if isinstance(value, float):
        return ("float", value, value) if math.isfinite(value) else ("float",)
    if isinstance(value, str):
        return ("string", frozenset([value]))
    if isinstance(value, np.ndarray):   # a DMLab tensor made on the host (``dmlab.system.tensor``)
        kind = HOST_TENSOR_KINDS.get(value.dtype.name)
        return ("tensor", kind, tuple(int(d) for d in value.shape)) if kind and value.ndim else None
    if isinstance(value, tuple) and value[:1] == ("host",):   # a host function (``host_values.plain``)
        return ("fn", (value,))
    if isinstance(value, list) and value:
        if all(isinstance(v, bool) for v in value):
            return ("array", "bool", len(value))
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return ("array", "int" if all(isinstance(v, int) for v in value) else "float", len(value))
    return keyed.host_kind(value) or _nested(value, layout_kind)


def _nested(value: Any, kind_of: Callable[[Any], Optional[tuple]]) -> Optional[tuple]:
    """The record or tuple kind of a dict (string keys) or list of values whose kinds ``kind_of`` gives."""
    if isinstance(value, dict) and value and all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in value):
        fields = tuple(sorted(((k, kind_of(v)) for k, v in value.items()), key=lambda f: field_order(f[0])))
        return ("record", fields) if all(_inner(f) for _, f in fields) else None
    if isinstance(value, list) and value:
        items = tuple(kind_of(v) for v in value)
        return ("tuple", items) if all(_inner(i) for i in items) else None
    return None


def holds(kind: tuple, name: str) -> bool:
    """Whether layout entry ``kind`` is, or holds (a record's field, a tuple's item or a list's slot, a table that
    may be nil), an entry of kind ``name`` (``"keyed"``: a table at integer keys; ``"list"``: a list built at play;
    ``"ref"``: a table of the state a list holds)."""
    if kind[0] == name:
        return True
    inner = [sub for _, sub in kind[1]] if kind[0] == "record" else list(kind[1]) if kind[0] in ("tuple", "list") \
        else [kind[1]] if kind[0] == "maybe" else []
    return any(holds(sub, name) for sub in inner)


def field_order(name: Any) -> tuple:
    """The sort key of a record's field: integers (a table of lists by number) before names."""
    return (isinstance(name, str), name)


def stored_name(name: Any) -> str:
    """The name of a record's field in the state's arrays: a name itself, an integer key as ``[k]``."""
    return name if isinstance(name, str) else f"[{name}]"


def _inner(kind: Optional[tuple]) -> bool:
    """Whether a record or tuple may hold a value of ``kind`` (any state's: a tensor there owns the storage
    named by its path, ``key.field``, where writes through its views are followed)."""
    return kind is not None


#: the layout entry of an empty table (``keyed.host_kind``)
EMPTY = ("keyed", "none", 1, 0)
#: the layout entry of a field no write has given a value yet: a number or nil until one does
UNSET = ("maybe", ("int",))
DTYPE = {"bool": jnp.bool_, "int": jnp.int32, "float": jnp.float32}


def value_kind(v: Any) -> tuple:
    """The layout entry of a translator value (a variable ``start`` sets first)."""
    if isinstance(v, GridRef):
        return ("gridref", v.slot)
    if isinstance(v, TensorVal):
        return ("tensor", v.t.kind, v.t.shape)
    if isinstance(v, Keyed):
        return keyed.value_kind(v)
    if isinstance(v, Arr):
        return ("array", "bool" if v.x.dtype == jnp.bool_ else "int" if jnp.issubdtype(v.x.dtype, jnp.integer)
                else "float", int(v.x.shape[0]))
    if isinstance(v, MaybeBool):
        return ("maybe", ("bool",))
    if isinstance(v, MaybeTable):
        return ("maybe", value_kind(v.value))
    if isinstance(v, SparseList):
        return ("list", tuple(slot_kind(x) for x, _ in v.entries))
    if isinstance(v, FnChoice):
        return ("fn", v.keys) if v.present is True else ("maybe", ("fn", v.keys))
    if is_function(v):
        return ("fn", (function_key(v, _refuse(v)),))
    if isinstance(v, MaybeStr):
        return ("maybe", ("string", v.cands))
    if isinstance(v, Str):
        return ("string", v.cands)
    if isinstance(v, MaybeNum):   # a number or nil: the bounds of the number (``number_bounds``)
        return ("maybe", number_kind(v.is_int, v.lo, v.hi))
    if isinstance(v, Num):
        return number_kind(v.is_int, v.lo, v.hi)
    if isinstance(v, dict) and not v:
        return EMPTY
    if isinstance(v, (dict, list)):
        return _nested(v, value_kind)
    if hasattr(v, "dtype") and v.dtype == jnp.bool_ and not getattr(v, "shape", ()):   # a traced boolean
        return ("bool",)
    return layout_kind(v)


def slot_kind(v: Any) -> Optional[tuple]:
    """The layout entry of an entry of a list kept in state: a record read from the state is kept as where it is
    (``("ref", state key, path of fields)``: Lua's list holds that table itself), within the entry's lists too."""
    if isinstance(v, HeldRecord):
        return ("ref", v.origin[0], tuple(v.origin[1]))
    if isinstance(v, list) and v and any(isinstance(x, (HeldRecord, list)) for x in v):
        items = tuple(slot_kind(x) for x in v)
        return ("tuple", items) if all(_inner(i) for i in items) else None
    return value_kind(v)


def _refuse(f: Any):
    """A ``fail(why)`` refusing the function ``f`` as play-time state, at the line it is written."""
    path, line = getattr(f, "path", None) or "<script>", getattr(getattr(f, "fdef", f), "line", None)
    return lambda why: reject(path, line, "a function kept in play-time state", why)


def zero_value(kind: tuple) -> Any:
    """The host value a variable ``start`` sets first holds before it does: 0, false, its first string,
    zeros, nil."""
    if kind[0] == "string":
        return sorted(kind[1])[0]
    if kind[0] == "maybe":
        return None
    if kind[0] in ("keyed", "list"):
        return {}
    if kind[0] == "ref":
        return None
    if kind[0] == "array":
        return [{"bool": False, "int": 0, "float": 0.0}[kind[1]]] * kind[2]
    if kind[0] == "tensor":   # nested lists: a compile's reply carries plain Python data only
        return np.zeros(kind[2], dtype_of(kind[1])).tolist()
    if kind[0] in ("grid", "gridref", "pieces", "view", "fn"):   # an empty grid; a handle to a grid's variable; no piece's
        return 0                                           # user state; a tensor view at the storage's start
    if kind[0] == "record":
        return {k: zero_value(sub) for k, sub in kind[1]}
    if kind[0] == "tuple":
        return [zero_value(sub) for sub in kind[1]]
    return {"bool": False, "int": 0, "float": 0.0}[kind[0]]


def grid_rules(kind: tuple) -> GridRules:
    """The GridRules (no callbacks) of a grid variable's layout entry ``("grid", world, width, height, torus,
    max_pieces, max_queue)``: what fixes its state's shapes."""
    return GridRules(kind[1], kind[2], kind[3], kind[4], kind[5], kind[6])


def load(kind: tuple, x: Any, key: str) -> Any:
    if kind[0] == "grid":
        return GridStore(x)
    if kind[0] == "pieces":
        return PieceStore(x)
    if kind[0] == "gridref":
        return GridRef(kind[1])
    if kind[0] == "record":
        return {k: load(sub, x[stored_name(k)], f"{key}.{k}") for k, sub in kind[1]}
    if kind[0] == "tuple":
        return [load(sub, x[i], f"{key}[{i + 1}]") for i, sub in enumerate(kind[1])]
    if kind[0] == "list":
        return SparseList(tuple((load(sub, x["items"][i], f"{key}[{i + 1}]"), x["present"][i])
                                for i, sub in enumerate(kind[1])), key, True)
    if kind[0] == "ref":
        return StateRef(kind[1], kind[2])
    if kind[0] == "tensor":
        return TensorVal(Tensor.fresh(kind[1], x), key)
    if kind[0] == "maybe" and kind[1][0] == "string":
        return MaybeStr(x["value"], kind[1][1], x["present"])
    if kind[0] == "maybe" and kind[1][0] == "bool":
        return MaybeBool(x["value"], x["present"])
    if holds_table(kind):
        return MaybeTable(load(kind[1], x["value"], key), x["present"])
    if kind[0] == "fn":
        return FnChoice(x, kind[1])
    if kind[0] == "maybe" and kind[1][0] == "fn":
        return FnChoice(x["value"], kind[1][1], x["present"])
    if kind[0] == "maybe":
        return MaybeNum(x["value"], *(kind[1][1:] if kind[1][0] in ("int", "float") else ()), present=x["present"])
    if kind[0] == "keyed":
        return keyed.load(kind, x, key)
    if kind[0] in ("int", "float") and len(kind) == 3 and kind[1] == kind[2]:
        return kind[1]   # every write gave it this number: a constant of the translation
    if kind[0] in ("int", "float"):
        return Num(x, *kind[1:]) if len(kind) == 3 else Num(x)
    if kind[0] == "string":
        return Str(x, kind[1])
    return x if kind[0] == "bool" else Arr(x, key)


def store(kind: tuple, v: Any, intern: Callable[[str], int]) -> Any:
    if kind[0] == "grid":
        return v.g if isinstance(v, GridStore) else empty_grid(grid_rules(kind), jax.random.PRNGKey(0))
    if kind[0] == "gridref":
        return jnp.int32(0)
    if kind[0] == "pieces":
        return pieces_stored(kind, v.x if isinstance(v, PieceStore) else None, intern)
    if kind[0] == "view":   # a view of a tensor kept in state: where it starts in its storage
        return v.t.offset.astype(jnp.int32) if isinstance(v, TensorVal) else jnp.int32(0)
    if kind[0] == "record":
        return {stored_name(k): store(sub, v[k] if k in v else start_value(sub, zero_value(sub)), intern)
                for k, sub in kind[1]}   # a field the layout gained on a path the trace went on past: its zero
    if kind[0] == "tuple":
        return [store(sub, x, intern) for sub, x in zip(kind[1], v)]
    if kind[0] == "list":
        entries = as_list(v).entries
        return {"present": jnp.stack([jnp.asarray(entries[i][1] if i < len(entries) else False, jnp.bool_)
                                      for i in range(len(kind[1]))]) if kind[1] else jnp.zeros((0,), jnp.bool_),
                "items": [store(sub, entries[i][0] if i < len(entries) else start_value(sub, zero_value(sub)), intern)
                          for i, sub in enumerate(kind[1])]}
    if kind[0] == "ref":   # where the table is: known when translating
        return {}
    if kind[0] == "string":
        return v.gid if isinstance(v, Str) else jnp.int32(intern(v))
    if kind[0] == "fn":
        if isinstance(v, (tuple, list)):   # a host function's key, as a start value holds it
            return jnp.int32(kind[1].index(tuple(v)))
        return jnp.int32(v) if isinstance(v, int) else stored_index(v, kind[1], _refuse(v))
    if kind[0] == "maybe" and kind[1][0] == "fn":
        present = v.present if isinstance(v, FnChoice) else v is not None
        return {"present": jnp.asarray(present, jnp.bool_),
                "value": stored_index(v, kind[1][1], _refuse(v)) if v is not None else jnp.int32(0)}
    if holds_table(kind):
        table = v.value if isinstance(v, MaybeTable) else v
        return {"present": jnp.asarray(v.present if isinstance(v, MaybeTable) else v is not None, jnp.bool_),
                "value": store(kind[1], table if table is not None else
                               start_value(kind[1], zero_value(kind[1])), intern)}
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


def pieces_stored(kind: tuple, x: Any, intern: Callable[[str], int]) -> dict:
    """The arrays of every piece's user state of layout entry ``("pieces", P, record)``: ``{"present": bool[P],
    "fields": record's stored arrays with a leading axis of P}``, holding ``x`` (those of another version of the
    entry, or None: no piece's) where it fits: its pieces (the first P; more zeros) and the fields both have."""
    size, record = kind[1], kind[2]
    zero = store(record, start_value(record, zero_value(record)), intern)
    want = {"present": jnp.zeros((size,), jnp.bool_),
            "fields": jax.tree_util.tree_map(lambda a: jnp.zeros((size,) + a.shape, a.dtype), zero)}
    return want if x is None else _fitted_arrays(want, x)


def _fitted_arrays(want: Any, have: Any) -> Any:
    """``want`` (arrays of the shapes and dtypes a layout gives) holding ``have``'s arrays where their paths and
    trailing shapes agree (along the leading axis, the first rows that fit)."""
    if isinstance(want, dict):
        return {k: _fitted_arrays(w, have[k]) if isinstance(have, dict) and k in have else w for k, w in want.items()}
    if isinstance(want, list):
        return [_fitted_arrays(w, h) for w, h in zip(want, have)] if isinstance(have, list) and \
            len(have) == len(want) else want
    if not hasattr(have, "shape") or have.shape[1:] != want.shape[1:]:
        return want
    if have.shape == want.shape:
        return have.astype(want.dtype)
    rows = min(want.shape[0], have.shape[0])
    return want.at[:rows].set(have[:rows].astype(want.dtype))


def start_value(kind: tuple, v: Any) -> Any:
    if holds_table(kind) and v is not None:   # a table that may be nil, holding one at the start
        return start_value(kind[1], v)
    if kind[0] == "record":   # a field the start value lacks is nil, or a table's zero value (``widened``)
        return {k: start_value(sub, v[k] if k in v else None if sub[0] == "maybe" else zero_value(sub))
                for k, sub in kind[1]}
    if kind[0] == "tuple":   # a shorter list's missing items are nil (``padded``), or zero (``widened``)
        given = list(v) if isinstance(v, list) else []
        return [start_value(sub, given[i] if i < len(given) else None if sub[0] == "maybe" else zero_value(sub))
                for i, sub in enumerate(kind[1])]
    if kind[0] == "array":
        return Arr(jnp.asarray(v, DTYPE[kind[1]]))
    if kind[0] == "list":   # a list of the host's (every item there), or a list a callback built
        if isinstance(v, SparseList):
            return v
        given = list(v) if isinstance(v, list) else []
        return SparseList(tuple((start_value(sub, given[i] if i < len(given) else zero_value(sub)), i < len(given))
                                for i, sub in enumerate(kind[1])))
    if kind[0] == "keyed":
        return v if isinstance(v, Keyed) else keyed.from_host(kind, v)
    return v

"""Conversions between Lua values (lupa objects) and plain Python data.

Used by :class:`compile_lua.sandbox.Sandbox` (``to_python`` / ``table``).
Lua tables are read raw (no metamethods run); strings that are not UTF-8 come
back as ``bytes``; dmlab.system.tensor tensors become numpy arrays.
"""
from __future__ import annotations

import reprlib
from typing import Any, Dict, Mapping, Set

import lupa.lua54 as lupa
import numpy as np

MAX_DEPTH = 200
_DTYPES = {"uint8": np.dtype(np.uint8), "int8": np.dtype(np.int8), "int16": np.dtype("<i2"),
           "int32": np.dtype("<i4"), "int64": np.dtype("<i8"), "float32": np.dtype("<f4"),
           "float64": np.dtype("<f8")}
_PYTHON_TYPES = {bool: "boolean", int: "number", float: "number", str: "string", bytes: "string",
                 dict: "table", list: "table", tuple: "several values"}


def lua_type_name(value: Any) -> str:
    """The Lua type of a value handed back by lupa, or converted by :func:`to_python`: ``'nil'`` for
    None, ``'table'`` for a lupa table, dict or list, ``'several values'`` for a tuple of results."""
    if value is None:
        return "nil"
    return lupa.lua_type(value) or _PYTHON_TYPES.get(type(value), type(value).__name__)


def show_lua(value: Any) -> str:
    """A value handed back by Lua, for a message: ``'yes' (a string)``, ``nan (a number)``,
    ``true (a boolean)``, ``nil``, ``a table``, ``a list (a table with keys 1..n)``, ``a function``."""
    kind = lua_type_name(value)
    if isinstance(value, list):
        return "a list (a table with keys 1..n)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (int, float, str, bytes, tuple)):
        return f"{reprlib.repr(value)} ({'' if kind == 'several values' else 'a '}{kind})"
    return kind if kind == "nil" else f"a {kind}"


def to_python(helpers: Any, value: Any) -> Any:
    """Lua ``value`` as Python data.

    Tables become a ``list`` when their keys are exactly 1..n (n >= 1) and a
    ``dict`` otherwise (an empty table is ``{}``); nested tables are converted
    too. Numbers stay ``int``/``float``; strings are ``str`` (``bytes`` when
    not UTF-8); tensors become numpy arrays of their dtype and shape (a copy of what a view shows).
    Functions, coroutines and userdata are returned as the lupa objects.
    ``helpers`` is the table of private functions of the sandbox prelude.
    Raises ValueError for a table that contains itself or nests too deeply.
    """
    return _convert(helpers, value, set(), 0)


def _convert(helpers: Any, value: Any, active: Set[int], depth: int) -> Any:
    if lupa.lua_type(value) != "table":
        return value
    if depth > MAX_DEPTH:
        raise ValueError(f"Lua table nested deeper than {MAX_DEPTH} levels")
    tensor = helpers.tensor_info(value)
    if isinstance(tensor, tuple) and tensor[0] is not None:
        return _tensor(*tensor)
    tid, n, keys, values, flags = helpers.entries(value)
    if tid in active:
        raise ValueError("Lua table contains itself (a reference cycle); cannot convert")
    active.add(tid)
    try:
        items = []
        for i in range(1, n + 1):
            k, v, f = keys[i], values[i], flags[i] or 0
            k = bytes.fromhex(k) if f & 1 else _convert(helpers, k, active, depth + 1)
            v = bytes.fromhex(v) if f & 2 else _convert(helpers, v, active, depth + 1)
            items.append((k, v))
    finally:
        active.discard(tid)
    if items and all(type(k) is int for k, _ in items):
        ordered = sorted(items, key=lambda kv: kv[0])
        if ordered[0][0] == 1 and ordered[-1][0] == len(ordered):
            return [v for _, v in ordered]
    out: Dict[Any, Any] = {}
    for k, v in items:
        out[_hashable(k)] = v
    return out


def _hashable(key: Any) -> Any:
    """A dict key for a Lua key (tables/functions as keys keep their lupa object)."""
    try:
        hash(key)
        return key
    except TypeError:
        return repr(key)


def _tensor(dtype: str, shape: str, data_hex: str) -> np.ndarray:
    shape_t = tuple(int(float(d)) for d in shape.split(",")) if shape else ()
    dt = _DTYPES[dtype]
    arr = np.frombuffer(bytes.fromhex(data_hex), dtype=dt).astype(dt.newbyteorder("="))
    return arr.reshape(shape_t)


def to_lua(lua: Any, obj: Any) -> Any:
    """Python data as Lua values: dicts become tables, lists/tuples/numpy arrays
    become 1-based arrays (nested); numpy scalars become numbers; ``None``
    values in dicts are left out. str, bytes, int, float, bool, None and lupa
    objects pass through. Raises TypeError for anything else."""
    if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return obj
    if lupa.lua_type(obj) is not None:
        return obj
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return to_lua(lua, obj.tolist())
    if isinstance(obj, Mapping):
        t = lua.table()
        for k, v in obj.items():
            if v is not None:
                t[to_lua(lua, k)] = to_lua(lua, v)
        return t
    if isinstance(obj, (list, tuple)):
        t = lua.table()
        for i, v in enumerate(obj, 1):
            t[i] = to_lua(lua, v)
        return t
    raise TypeError(f"cannot pass a {type(obj).__name__} to Lua "
                    "(use numbers, strings, booleans, dicts, lists or numpy arrays)")

"""Lab2D's ``system.tensor`` in translated Lua: tensors as ``jaxlab.kernels.lab2d_tensor`` views.

A tensor value is :class:`~compile_lua.device.values.TensorVal`: a kernel ``Tensor`` view and the id
of the storage it views (its ``owner``). Lua tensors are shared references, and the views that
``t(i, j)``, ``select``, ``narrow``, ``transpose``, ``reverse`` and ``reshape`` return write into their
source. The translation keeps the newest version of every storage in ``env.storages`` (owner -> flat
array): a write through any view replaces its owner's storage there (only where the path still runs),
and every tensor is read through :func:`current`, so each name that holds a view of the storage sees
the write, in the callback and in the functions it calls. A tensor kept in play-time state owns its
storage between calls (its values are carried, as its kind's dtype and its shape).

Supported: the constructors ``tensor.<Kind>Tensor(d1, ...)`` (zeros of a static shape) and
``tensor.<Kind>Tensor{...}`` (a nested table of numbers; numbers known at translation time stored as
dmlab2d's constructor stores them) and ``tensor.<Kind>Tensor{range = {...}}`` (bounds known at
translation time) for Byte, Int32, Int64 and Double; the call
``t(i, ...)``; the views above; ``val`` (read and write), ``fill``, ``add``, ``sub``, ``mul``, ``div``,
``clamp``, ``floor``, ``ceil``, ``round``, ``cadd``, ``csub``, ``cmul``, ``cdiv``, ``copy`` (in place, return
the tensor); ``sum``, ``product``, ``lengthSquared``, ``dot``, ``minElement``, ``maxElement``,
``argMinElement``, ``argMaxElement`` (numbers); ``min``, ``max``, ``argMin``, ``argMax``, ``mmul``,
``clone``, ``byte``, ``int32``, ``int64``, ``double`` (new tensors); ``size``, ``shape``, ``type``,
``isContiguous``; ``==``. Indices and sizes out of range that are known at translation time are
rejected; a traced index is clipped into range (``jaxlab.kernels.lab2d_tensor.tensor``).
"""
from __future__ import annotations

from typing import Any, List

import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.lab2d_tensor import Tensor, arange, from_table, zeros
from compile_lua.device import host_values
from compile_lua.device.layouts import HOST_TENSOR_KINDS
from compile_lua.device.maybe_tables import table_of
from compile_lua.device.values import Arr, Num, TensorVal, is_traced, lua_type, tensors_in

#: ``tensor.<class>`` -> the kind it makes
CLASSES = {"ByteTensor": "Byte", "Int32Tensor": "Int32", "Int64Tensor": "Int64", "DoubleTensor": "Double"}
VIEWS = ("select", "narrow", "transpose", "reverse", "reshape")
WRITES = ("val", "fill", "add", "sub", "mul", "div", "clamp", "floor", "ceil", "round", "cadd", "csub", "cmul",
          "cdiv", "copy")
NUMBERS = ("sum", "product", "lengthSquared", "dot", "minElement", "maxElement")
NEW = ("min", "max", "argMin", "argMax", "mmul", "clone")
CONVERSIONS = {"byte": "Byte", "int32": "Int32", "int64": "Int64", "double": "Double"}


def own(env: Any, t: Tensor) -> TensorVal:
    """A tensor with storage of its own: a new owner registered in ``env.storages``."""
    owner = f"tensor#{len(env.storages)}"
    while owner in env.storages:
        owner += "'"
    env.storages[owner] = t.storage
    return TensorVal(t, owner)


def host_tensor(it: Any, graph: Any, ref: tuple) -> TensorVal:
    """A tensor made on the host (``ref``, a ``("tensor", dtype, shape, hex)`` node of ``graph``) that play reads:
    play-time state of its own, ``hosttensor.<id>``, starting from the host's elements; every field that holds
    it reaches that one storage (views of it write there)."""
    key = f"hosttensor.{ref[1]}"
    if key not in it.env.state:
        _, dtype, shape, hexdata = graph.node(ref)
        kind = HOST_TENSOR_KINDS.get(dtype)
        if kind is None:
            it.fail(f"a {dtype} tensor made on the host", "play-time tensors are Byte, Int32, Int64 or Double")
        shape = tuple(shape)
        if key not in it.env.tr.layout:
            host = np.frombuffer(bytes.fromhex(hexdata), np.dtype(dtype).newbyteorder("<")).reshape(shape)
            it.env.tr.define(key, ("tensor", kind, shape), host.tolist())
        it.env.fresh(key)
        it.env.storages[key] = it.env.state[key].t.storage
    return current(it.env, it.env.state[key])


def current(env: Any, v: Any) -> Any:
    """``v`` with its storage as written last, and so the tensors in its records' fields and lists' items (any
    other value unchanged)."""
    if isinstance(v, TensorVal) and v.owner in env.storages:
        return TensorVal(v.t.on(env.storages[v.owner]), v.owner)
    if isinstance(v, dict) and tensors_in(v):
        return {k: current(env, x) for k, x in v.items()}
    if isinstance(v, list) and tensors_in(v):
        return [current(env, x) for x in v]
    return v


def construct(it: Any, cls: str, args: List[Any], node: Any) -> TensorVal:
    """``tensor.<cls>(d1, ...)`` (zeros of static dimensions) or ``tensor.<cls>{...}`` (a nested table)."""
    kind = CLASSES[cls]
    what = f"tensor.{cls}"
    if args and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        if any(a < 0 for a in args):
            it.fail(f"{what} with a negative dimension", "dimensions are sizes", node)
        return own(it.env, zeros(kind, *args))
    if len(args) == 1 and isinstance(args[0], (Arr, list)):
        return own(it.env, from_table(kind, _plain(it, args[0], what)))
    if len(args) == 1 and isinstance(args[0], host_values.HostTable) and args[0].kind is None:
        nested = host_values.plain(args[0].graph, args[0].ref)   # a table of numbers made on the host
        return own(it.env, from_table(kind, _plain(it, nested, what)))
    if len(args) == 1 and isinstance(args[0], dict) and set(args[0]) == {"range"}:
        bounds = args[0]["range"]
        if not isinstance(bounds, Arr) or bounds.static is None or not 1 <= len(bounds.static) <= 3:
            it.fail(f"{what}{{range = ...}} with bounds known only at play time", "a range's bounds give the "
                    "tensor's shape: write them as 1 to 3 numbers known when the script has loaded", node)
        return own(it.env, _kernel(it, f"{what}{{range = ...}}", lambda: arange(kind, *bounds.static), node))
    it.fail(f"{what} of {', '.join(lua_type(a) for a in args) or 'nothing'}",
            "a compiled tensor has a shape known ahead of time: give dimensions known when the script has loaded, "
            "or a table of numbers", node)


def call(it: Any, tv: TensorVal, args: List[Any], node: Any) -> TensorVal:
    """``t(i1, i2, ...)``: the view at those 1-based indices."""
    tv = current(it.env, tv)
    return TensorVal(_kernel(it, "t(...)", lambda: tv.t(*[_index(it, a, "t(...)") for a in args]), node), tv.owner)


def invoke(it: Any, tv: TensorVal, name: str, args: List[Any], node: Any) -> List[Any]:
    """``t:name(args)``: the results (a list) of a tensor method (see the module)."""
    tv = current(it.env, tv)
    t, what = tv.t, f"t:{name}"
    if name in VIEWS:
        plain = [_index(it, a, what) if name in ("select", "narrow") and i == 1 else _static(it, a, what)
                 for i, a in enumerate(args)]
        if name == "reshape":
            plain = [plain[0]] if len(plain) == 1 and isinstance(plain[0], list) else [plain]
        return [TensorVal(_kernel(it, what, lambda: getattr(t, name)(*plain), node), tv.owner)]
    if name == "val" and not args:
        x = _kernel(it, what, t.val, node)
        return [Num(x)] if not t.shape else [_table(x)]
    if name in WRITES:
        written = _kernel(it, what, lambda: getattr(t, name)(*[_plain(it, a, what) for a in args]), node)
        return [_write(it, tv, written, node)]
    if name in NUMBERS:
        return [Num(_kernel(it, what, lambda: getattr(t, name)(*[_plain(it, a, what) for a in args]), node))]
    if name in ("argMinElement", "argMaxElement"):
        return [Num(i.astype(jnp.int32), 1, n) for i, n in zip(_kernel(it, what, getattr(t, name), node), t.shape)]
    if name in NEW:
        return [own(it.env, _kernel(it, what, lambda: getattr(t, name)(*[_plain(it, a, what) for a in args]), node))]
    if name in CONVERSIONS:
        return [own(it.env, t.convert(CONVERSIONS[name]))]
    if name == "size":
        return [t.size()]
    if name == "shape":
        return [list(t.shape)]
    if name == "type":
        return [f"tensor.{next(c for c, k in CLASSES.items() if k == t.kind)}"]
    if name == "isContiguous":
        return [t.is_contiguous()]
    it.fail(what, "it is not one of the tensor methods that compile (see docs/grid_lua.md)", node)


def _write(it: Any, tv: TensorVal, written: Tensor, node: Any) -> TensorVal:
    """Record a write through ``tv`` (predicated on the live path); the written view."""
    if tv.owner is None:
        it.fail("writing a tensor that is one of two tensors on two paths", "a tensor written at play time must "
                "be the same tensor on every path that reaches the write", node)
    live = it.live()
    storage = written.storage if live is True else jnp.where(live, written.storage, tv.t.storage)
    it.env.storages[tv.owner] = storage
    for names in [s for frame in it.outer + [it.scopes] for s in frame] + [it.env.state]:   # every name sees it
        for name, v in names.items():
            if isinstance(v, TensorVal) and v.owner == tv.owner:
                names[name] = TensorVal(v.t.on(storage), v.owner)
    return TensorVal(written.on(storage), tv.owner)


def _kernel(it: Any, what: str, fn, node: Any) -> Any:
    """``fn()``, with the kernel's refusals of static arguments (bad index, shape, kind) as rejections."""
    try:
        return fn()
    except (IndexError, ValueError, TypeError) as e:
        it.fail(what, str(e), node)


def _index(it: Any, v: Any, what: str) -> Any:
    if isinstance(v, Num):
        return v.x
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    it.fail(f"{what} with a {lua_type(v)} index", "indices are numbers")


def _static(it: Any, v: Any, what: str) -> Any:
    """A dimension, size or shape known at translation time."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer():
        return int(v)
    if isinstance(v, list) and all(isinstance(x, int) for x in v):
        return list(v)
    if isinstance(v, Arr) and v.static is not None and all(float(x).is_integer() for x in v.static):
        return [int(x) for x in v.static]   # a table of numbers written in the script ({1, 3})
    if isinstance(v, dict) and not v:
        return []   # {}: no dimensions (``reshape{}``, a scalar)
    it.fail(f"{what} with a {'traced ' if is_traced(v) else ''}{lua_type(v)}",
            "dimensions, sizes and shapes must be whole numbers known when the script has loaded")


def _plain(it: Any, v: Any, what: str) -> Any:
    """A Lua argument as the kernel takes it: numbers as scalars, tables as arrays, tensors as Tensors."""
    v = host_values.data(table_of(v))   # a table that may be nil: its table (Lua stops on nil)
    if isinstance(v, Num):
        return v.x
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    if isinstance(v, Arr) and v.x.dtype != jnp.bool_:
        return list(v.static) if v.static is not None else v.x
    if isinstance(v, list) and v and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        return list(v)   # numbers made on the host
    if isinstance(v, list) and v and all(isinstance(x, (Arr, list)) for x in v):
        rows = [_plain(it, x, what) for x in v]
        return rows if all(isinstance(r, list) for r in rows) else jnp.stack([jnp.asarray(r) for r in rows])
    if isinstance(v, TensorVal):
        return current(it.env, v).t
    it.fail(f"{what} of a {lua_type(v)}", "tensor methods take numbers, tables of numbers and tensors")


def _table(x: Any) -> Any:
    """A tensor's elements as Lua's nested table: 1-D an Arr, deeper a list of them."""
    return Arr(x) if x.ndim == 1 else [_table(row) for row in x]

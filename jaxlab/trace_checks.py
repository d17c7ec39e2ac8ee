"""Trace-time checks of what ``reset`` and ``step`` receive: the form of the key and of the action.

Under ``jax.jit`` and ``jax.vmap`` an argument's shape and dtype are known while the function is
traced, before anything runs. ``Env.reset``/``Env.step`` and the wrappers' entry points check them
here against the env's ``action_spec()`` and the form of a PRNG key, and a wrong one ends in one
``TypeError`` (a wrong type or dtype: None, a str, a dict for an array or an array for a dict, a
float for an integer action, an integer for a key) or ``ValueError`` (a wrong shape, a batch of keys
for one key) naming the call (``"FirstPersonEnv('nav_maze_static_01').step"``), the argument, what
was given and what the spec expects. The checks read only abstract values (``jax.typeof``), so they
add nothing to the compiled program. Values (NaN, out of range) are not known at trace time: the
kernels clip them, and ``jaxlab.wrappers.CheckedActions`` checks them with ``checkify`` on request.

What correct code passes is accepted: Python ints and floats and weakly typed scalars where the
spec is a scalar, lists and tuples of numbers, any integer dtype for an integer spec (int8 ... int64,
uint8 ...), integers or any float dtype for a float spec, and both kinds of keys: typed
(``jax.random.key(seed)``, ``key<impl>[]``) and raw (``jax.random.PRNGKey(seed)``, ``uint32[2]``
for the default implementation).
"""
from __future__ import annotations

import functools
import reprlib
from typing import Any, Mapping, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.errors import UnknownNameError, unknown_name_error
from jaxlab.types import ArraySpec

#: the dtype kinds each kind of spec accepts ('i': signed or unsigned integers, 'f': floats, 'b': bools)
_ACCEPTED_KINDS = {"i": "i", "f": "fi", "b": "b"}
_KIND_WORDS = {"i": "an integer", "f": "a float (or integer)", "b": "a boolean"}


def _kind(dtype: Any) -> str:
    """'i', 'f', 'b', 'k' (a PRNG key) or '' (anything else: complex, strings) for a dtype."""
    if jnp.issubdtype(dtype, jax.dtypes.prng_key):
        return "k"
    if jnp.issubdtype(dtype, jnp.bool_):
        return "b"
    if jnp.issubdtype(dtype, jnp.integer):
        return "i"
    if jnp.issubdtype(dtype, jnp.floating):
        return "f"
    return ""


def abstract(value: Any) -> Optional[jax.ShapeDtypeStruct]:
    """The shape and dtype (``weak_type`` set for Python scalars) of an array-like ``value`` (an array,
    a tracer, a numpy or Python scalar, a list or tuple of numbers), or None for anything else (None,
    str, dict, objects). Reads types only: no operation is traced."""
    if isinstance(value, (str, bytes, Mapping)) or value is None:
        return None
    try:
        if isinstance(value, (list, tuple)):
            return jax.eval_shape(jnp.asarray, value)
        aval = jax.typeof(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not hasattr(aval, "shape") or not hasattr(aval, "dtype"):
        return None
    return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=getattr(aval, "weak_type", False))


def form(shape: Tuple[int, ...], dtype: Any) -> str:
    """The short form of an array type: ``'int32[7]'``, ``'float32[]'``, ``'key<fry>[4]'``."""
    return f"{dtype if _kind(dtype) == 'k' else np.dtype(dtype).name}[{','.join(map(str, shape))}]"


def describe(value: Any) -> str:
    """What was given, for a message: the array form (``'float32[7]'``; ``'int32[] (a Python int)'``
    for a Python scalar), ``'a dict with keys [...]'``, ``'None'``, or a short repr and the type name
    (``"'abc' (str)"``)."""
    if value is None:
        return "None"
    if isinstance(value, Mapping):
        return f"a {type(value).__name__} with keys {sorted(map(str, value))}"
    aval = abstract(value)
    if aval is None:
        return f"{reprlib.repr(value)} ({type(value).__name__})"
    text = form(aval.shape, aval.dtype)
    if isinstance(value, (bool, int, float, list, tuple)):
        text += f" (a Python {type(value).__name__})"
    return text


def _expected_array(spec: ArraySpec, batch: Tuple[int, ...], source: str = "action_spec()") -> str:
    kind = _kind(spec.dtype)
    shape = tuple(batch) + tuple(spec.shape)
    what = f"{_KIND_WORDS.get(kind, np.dtype(spec.dtype).name)} {'scalar' if not shape else 'array'}"
    return f"{what}{f' of shape {shape}' if shape else ''} ({source}: {form(spec.shape, spec.dtype)})"


def check_array(where: str, what: str, value: Any, spec: ArraySpec, batch: Tuple[int, ...] = (),
                source: str = "action_spec()") -> None:
    """Raise unless ``value`` has ``spec``'s form: shape ``batch + spec.shape``, a dtype of the same kind
    (see the module). TypeError for a wrong type or dtype, ValueError for a wrong shape; both name
    ``where`` (the call), ``what`` (the argument) and the form expected (read from ``source``)."""
    aval = abstract(value)
    expected = _expected_array(spec, batch, source)
    kind = _kind(spec.dtype)
    if aval is None or _kind(aval.dtype) not in _ACCEPTED_KINDS.get(kind, kind):
        raise TypeError(f"{where}: {what}: expected {expected}, got {describe(value)}")
    if tuple(aval.shape) != tuple(batch) + tuple(spec.shape):
        raise ValueError(f"{where}: {what}: expected {expected}, got {describe(value)}")


def check_action(where: str, action: Any, spec: Any, batch: Tuple[int, ...] = ()) -> None:
    """Raise unless ``action`` has the form of ``spec`` (an ``ArraySpec``, or a dict name -> ArraySpec
    for dict actions: any subset of the names, each value of its spec's form), with leading axes
    ``batch`` (``(B,)`` for a batch env). See :func:`check_array` for the errors; an unknown name in a
    dict action raises UnknownNameError (with close-match suggestions)."""
    if isinstance(spec, ArraySpec):
        if isinstance(action, Mapping):
            raise TypeError(f"{where}: action: expected {_expected_array(spec, batch)}, got {describe(action)}")
        check_array(where, "action", action, spec, batch)
        return
    if not isinstance(action, Mapping):
        names = ", ".join(repr(name) for name in spec)
        values = f"arrays of shape {tuple(batch)}" if batch else "scalars"
        raise TypeError(f"{where}: action: expected a dict of action names ({names}) to {values}, "
                        f"got {describe(action)}")
    for name, value in action.items():
        if name not in spec:
            raise UnknownNameError(f"{where}: {unknown_name_error('action', name, spec)}")
        check_array(where, f"action {name!r}", value, spec[name], batch, f"action_spec()[{name!r}]")


def leading_batch(value: Any) -> Tuple[Any, ...]:
    """``(B,)``, the first axis of array-like ``value`` (a batch env's keys), or ``('B',)`` when it
    has none (which no shape matches, so the check that follows names the batch as ``B``)."""
    aval = abstract(value)
    return tuple(aval.shape[:1]) if aval is not None and aval.shape else ("B",)


@functools.lru_cache(maxsize=None)
def raw_key_shape() -> Tuple[int, ...]:
    """The shape of a raw key of the default PRNG implementation (``jax.random.PRNGKey``): (2,) for threefry."""
    return tuple(jax.eval_shape(jax.random.PRNGKey, 0).shape)


def check_key(where: str, key: Any, batch: Tuple[int, ...] = ()) -> None:
    """Raise unless ``key`` is a typed PRNG key of shape ``batch`` or a raw ``uint32[*batch, 2]`` key.
    TypeError for another type or dtype (a Python int, int32 data, None), ValueError for a wrong
    shape (a batch of keys where one is expected: the message says to vmap)."""
    aval = abstract(key)
    raw = tuple(batch) + raw_key_shape()
    each = "one PRNG key" if not batch else f"a batch of PRNG keys [{', '.join(map(str, batch))}]"
    expected = (f"{each} (jax.random.key(seed): key<impl>[{','.join(map(str, batch))}], "
                f"or jax.random.PRNGKey(seed): uint32[{','.join(map(str, raw))}])")
    kind = None if aval is None else _kind(aval.dtype)
    if kind not in ("k", "i") or (kind == "i" and np.dtype(aval.dtype) != np.uint32):
        raise TypeError(f"{where}: key: expected {expected}, got {describe(key)}")
    shape = tuple(batch) if kind == "k" else raw
    if tuple(aval.shape) != shape:
        more = len(aval.shape) > len(shape) and tuple(aval.shape[len(aval.shape) - len(shape):]) == shape
        method = where.rsplit(".", 1)[-1]
        hint = f"; {method} takes one key: jax.vmap(env.{method}) takes a batch" if more and not batch else ""
        raise ValueError(f"{where}: key: expected {expected}, got {describe(key)}{hint}")


__all__ = ["abstract", "check_action", "check_array", "check_key", "describe", "form", "leading_batch",
           "raw_key_shape"]

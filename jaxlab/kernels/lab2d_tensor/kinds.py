"""Lab2D's tensor element types on the device, and how a Lua number becomes an element.

dmlab2d stores ``ByteTensor`` as uint8, ``Int32Tensor`` as int32, ``Int64Tensor`` as int64 and
``DoubleTensor`` as float64, and a Lua number is a float64. jaxlab keeps those types when JAX runs with
``jax_enable_x64``; without it (JAX's default) Double and Lua numbers are float32 and Int64 is int32:
``number()`` and ``dtype_of`` say which, so integers above 2**24 and non-dyadic fractions round earlier
than dmlab2d's.

Conversion of a Lua number to an element (what dmlab2d does on x86, confirmed against it): Double
takes the number; integer kinds truncate towards zero, and a number outside the integer type's range
(or NaN, or +-inf) becomes the type's minimum (int32: -2**31); Byte takes the low 8 bits of that
int32 conversion (300 -> 44, -1 -> 255, -2.9 -> 254, NaN -> 0).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

#: Lab2D's kind names (the part of ``tensor.<Kind>Tensor`` before ``Tensor``) -> dmlab2d's element type
KINDS = {"Byte": np.uint8, "Int32": np.int32, "Int64": np.int64, "Double": np.float64}


def number() -> np.dtype:
    """The dtype of a Lua number on the device: float64 under ``jax_enable_x64``, else float32 (asked
    at each call, so ``jax.experimental.enable_x64()`` applies)."""
    return jax.dtypes.canonicalize_dtype(np.float64)


def dtype_of(kind: str) -> np.dtype:
    """The device dtype of a tensor kind (``"Byte"``, ``"Int32"``, ``"Int64"``, ``"Double"``); Int64 and
    Double narrow to int32 and float32 without ``jax_enable_x64``. An unknown kind is a ``ValueError``."""
    if kind not in KINDS:
        raise ValueError(f"unknown tensor kind {kind!r}: one of {', '.join(KINDS)}")
    return jax.dtypes.canonicalize_dtype(KINDS[kind])


def from_number(values, kind: str) -> jax.Array:
    """Lua numbers (any shape, converted to ``number()``) as elements of ``kind``, by the rule in this
    module's docstring. Returns an array of the same shape and dtype ``dtype_of(kind)``."""
    x = jnp.asarray(values, number())
    dtype = dtype_of(kind)
    if jnp.issubdtype(dtype, jnp.floating):
        return x.astype(dtype)
    wide = np.int32 if kind == "Byte" else dtype
    info = jnp.iinfo(wide)
    inside = (x >= float(info.min)) & (x < -float(info.min))  # -min is 2**31 (2**63), exact in floats
    ints = jnp.where(inside, jnp.trunc(jnp.where(inside, x, 0)), 0).astype(wide)
    ints = jnp.where(inside, ints, jnp.asarray(info.min, wide))
    return ints.astype(dtype)  # int32 -> uint8 keeps the low 8 bits


def cast(values: jax.Array, kind: str) -> jax.Array:
    """Elements of one kind as another (``:byte()``, ``:int32()``, ...): floats by ``from_number``,
    integers by C's integer conversion (the low bits: int32 300 -> Byte 44). Same shape."""
    values = jnp.asarray(values)
    if jnp.issubdtype(values.dtype, jnp.floating):
        return from_number(values, kind)
    return values.astype(dtype_of(kind))


def static_elements(values, kind: str) -> np.ndarray:
    """Host numbers (nested lists or an array) as dmlab2d's table constructor stores them: Double as
    they are; integer kinds truncate towards zero and keep the low bits (Int32 3e9 -> -1294967296,
    Byte 300 -> 44). Byte refuses numbers below 0 (from -1 on) with a ``ValueError``, as dmlab2d does.
    Returns a numpy array of ``dtype_of(kind)``."""
    flat = np.asarray(values, np.float64)
    if kind == "Double":
        return flat.astype(dtype_of(kind))
    if kind == "Byte" and np.any(flat <= -1):
        raise ValueError(f"tensor.ByteTensor cannot hold {flat[flat <= -1][0]!r}: bytes are not negative")
    return np.trunc(flat).astype(np.int64).astype(dtype_of(kind))

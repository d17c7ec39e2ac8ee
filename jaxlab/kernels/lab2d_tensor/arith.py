"""What a Lab2D tensor computes: arithmetic, rounding, reductions, conversions (a mixin of ``Tensor``).

Semantics are dmlab2d's, confirmed against it (tests/grid/test_lab2d_tensor*.py):
- Scalar operations (``fill``, ``add``, ``sub``, ``mul``, ``div``, ``clamp``) take a Lua number, or a
  table as long as the last dimension (applied along it). They compute in Lua numbers (``number()``) and
  store by ``kinds.from_number``: Int32 ``7:add(0.5)`` is 7, ``-7:add(0.5)`` is -6, Byte ``250:add(10)``
  is 4, integer ``x:div(0)`` is the type's minimum (Byte: 0).
- Component operations (``cadd``, ``csub``, ``cmul``, ``cdiv``, ``copy``) take a tensor of the same kind
  and element count (shapes are ignored; elements pair in layout order) and compute in the element type:
  integers wrap (Int32 65536*65536 is 0), integer division truncates towards zero. An integer division
  by zero, which crashes dmlab2d, gives what ``div(0)`` gives (the type's minimum; Byte: 0).
- Reductions over all elements (``sum``, ``product``, ``lengthSquared``, ``dot``, ``minElement``,
  ``maxElement``) return a Lua number (``number()``); ``argMinElement``/``argMaxElement`` the 1-based
  indices of the first extreme in layout order; ``min``/``max(dim)`` a tensor of the same kind,
  ``argMin``/``argMax(dim)`` an Int64 tensor of 1-based indices.
Writing methods return the tensor with its buffer updated (see ``tensor.Tensor``); everything else
returns new values. No method branches on traced values: all are jit- and vmap-safe.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.lab2d_tensor.kinds import cast, dtype_of, from_number, number


class Arithmetic:
    """The computing methods of ``Tensor`` (which supplies ``kind``, ``shape``, ``array``, ``write`` and
    ``fresh``); Lab2D's method names."""

    # ----- scalar operations (Lua numbers, in place) -----

    def _operand(self, value, what: str) -> jax.Array:
        """A Lua number, or a table along the last dimension, as a ``number()`` array broadcastable to
        ``shape``."""
        if isinstance(value, (list, tuple)) or np.ndim(value) == 1:
            if not self.shape or len(value) != self.shape[-1]:
                raise ValueError(f"{what}: a table must be as long as the last dimension of {list(self.shape)}, "
                                 f"got {len(value)} values")
            return jnp.stack([jnp.asarray(v, number()) for v in value])
        if np.ndim(value):
            raise ValueError(f"{what}: expected a number or a table, got shape {list(np.shape(value))}")
        return jnp.asarray(value, number())

    def _scalar_op(self, value, op, what: str):
        return self.write(from_number(op(self.array().astype(number()), self._operand(value, what)), self.kind))

    def fill(self, value):
        """``t:fill(v)``: every element set to the Lua number ``v`` (or a table along the last dim)."""
        return self._scalar_op(value, lambda x, v: jnp.broadcast_to(v, x.shape), "fill")

    def add(self, value):
        """``t:add(v)``: ``t + v`` element-wise, in place (see the module docstring for the rounding)."""
        return self._scalar_op(value, jnp.add, "add")

    def sub(self, value):
        """``t:sub(v)``: ``t - v`` element-wise, in place."""
        return self._scalar_op(value, jnp.subtract, "sub")

    def mul(self, value):
        """``t:mul(v)``: ``t * v`` element-wise, in place."""
        return self._scalar_op(value, jnp.multiply, "mul")

    def div(self, value):
        """``t:div(v)``: ``t / v`` element-wise (in Lua numbers, then stored), in place."""
        return self._scalar_op(value, jnp.divide, "div")

    def clamp(self, lo=None, hi=None):
        """``t:clamp(lo, hi)``: elements limited to ``[lo, hi]`` (``None``: no limit that side), in place."""
        def op(x, _):
            return jnp.clip(x, None if lo is None else jnp.asarray(lo, number()), None if hi is None else hi)
        return self._scalar_op(0, op, "clamp")

    def _rounding(self, op):
        if self.kind != "Double":
            return self.write(self.array())
        return self.write(op(self.array()))

    def floor(self):
        """``t:floor()``: each element rounded down, in place (integer kinds are unchanged)."""
        return self._rounding(jnp.floor)

    def ceil(self):
        """``t:ceil()``: each element rounded up, in place (integer kinds are unchanged)."""
        return self._rounding(jnp.ceil)

    def round(self):
        """``t:round()``: each element to the nearest integer, halves away from zero, in place."""
        return self._rounding(lambda x: jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5))

    # ----- component operations (tensors of the same kind and element count, in place) -----

    def _other(self, other, what: str) -> jax.Array:
        """``other``'s elements in layout order, shaped like ``self``; kind and count checked."""
        if other.kind != self.kind or other.size() != self.size():
            raise ValueError(f"{what}: needs a {self.kind} tensor of {self.size()} elements, got a {other.kind} "
                             f"tensor of shape {list(other.shape)}")
        return other.array().reshape(self.shape)

    def cadd(self, other):
        """``t:cadd(u)``: ``t + u`` pairwise in layout order, in the element type (integers wrap)."""
        return self.write(self.array() + self._other(other, "cadd"))

    def csub(self, other):
        """``t:csub(u)``: ``t - u`` pairwise, in the element type (Byte 7-9 is 254)."""
        return self.write(self.array() - self._other(other, "csub"))

    def cmul(self, other):
        """``t:cmul(u)``: ``t * u`` pairwise, in the element type (integers wrap)."""
        return self.write(self.array() * self._other(other, "cmul"))

    def cdiv(self, other):
        """``t:cdiv(u)``: ``t / u`` pairwise; integers truncate towards zero, and ``x / 0`` gives the
        type's minimum (Byte: 0), as ``div(0)`` does."""
        a, b = self.array(), self._other(other, "cdiv")
        if jnp.issubdtype(a.dtype, jnp.floating):
            return self.write(a / b)
        zero = b == 0
        quotient = jax.lax.div(a, jnp.where(zero, jnp.ones_like(b), b))
        return self.write(jnp.where(zero, from_number(jnp.nan, self.kind), quotient))

    def copy(self, other):
        """``t:copy(u)``: ``u``'s elements written into ``t`` in layout order."""
        return self.write(self._other(other, "copy"))

    # ----- reductions -----

    def _numbers(self) -> jax.Array:
        return self.array().astype(number())

    def sum(self) -> jax.Array:
        """``t:sum()``: the sum of the elements as a Lua number (0 when empty)."""
        return jnp.sum(self._numbers())

    def product(self) -> jax.Array:
        """``t:product()``: the product of the elements as a Lua number (1 when empty)."""
        return jnp.prod(self._numbers())

    def lengthSquared(self) -> jax.Array:  # noqa: N802 (Lab2D's name)
        """``t:lengthSquared()``: the sum of the squared elements as a Lua number."""
        return jnp.sum(jnp.square(self._numbers()))

    def dot(self, other) -> jax.Array:
        """``t:dot(u)``: the sum of pairwise products (same kind and count) as a Lua number."""
        return jnp.sum(self._numbers() * self._other(other, "dot").astype(number()))

    def minElement(self) -> jax.Array:  # noqa: N802
        """``t:minElement()``: the smallest element as a Lua number."""
        return jnp.min(self._numbers())

    def maxElement(self) -> jax.Array:  # noqa: N802
        """``t:maxElement()``: the largest element as a Lua number."""
        return jnp.max(self._numbers())

    def _arg_element(self, arg) -> tuple:
        flat = arg(self.array().reshape(-1))
        return tuple(i.astype(number()) + 1 for i in jnp.unravel_index(flat, self.shape))

    def argMinElement(self) -> tuple:  # noqa: N802
        """``t:argMinElement()``: the 1-based indices (one ``number()`` per dim) of the first smallest."""
        return self._arg_element(jnp.argmin)

    def argMaxElement(self) -> tuple:  # noqa: N802
        """``t:argMaxElement()``: the 1-based indices (one ``number()`` per dim) of the first largest."""
        return self._arg_element(jnp.argmax)

    def min(self, dim: int):
        """``t:min(dim)``: a new tensor of the same kind, the smallest along ``dim`` (rank - 1)."""
        return self.fresh(self.kind, jnp.min(self.array(), axis=self._dim(dim)))

    def max(self, dim: int):
        """``t:max(dim)``: a new tensor of the same kind, the largest along ``dim`` (rank - 1)."""
        return self.fresh(self.kind, jnp.max(self.array(), axis=self._dim(dim)))

    def argMin(self, dim: int):  # noqa: N802
        """``t:argMin(dim)``: a new Int64 tensor, the 1-based index of the first smallest along ``dim``."""
        return self.fresh("Int64", jnp.argmin(self.array(), axis=self._dim(dim)) + 1)

    def argMax(self, dim: int):  # noqa: N802
        """``t:argMax(dim)``: a new Int64 tensor, the 1-based index of the first largest along ``dim``."""
        return self.fresh("Int64", jnp.argmax(self.array(), axis=self._dim(dim)) + 1)

    def mmul(self, other):
        """``t:mmul(u)``: the matrix product of rank-2 tensors of the same kind, a new tensor
        ``(n, k) x (k, m) -> (n, m)`` computed in the element type."""
        if len(self.shape) != 2 or len(other.shape) != 2 or other.kind != self.kind or self.shape[1] != other.shape[0]:
            raise ValueError(f"mmul: needs {self.kind} matrices (n, k) and (k, m), got {list(self.shape)} and "
                             f"{other.kind} {list(other.shape)}")
        return self.fresh(self.kind, jnp.matmul(self.array(), other.array()).astype(dtype_of(self.kind)))

    # ----- new storage: conversions and comparison -----

    def clone(self):
        """``t:clone()``: a contiguous copy owning new storage."""
        return self.fresh(self.kind, self.array())

    def convert(self, kind: str):
        """``t:byte()``, ``t:int32()``, ``t:int64()``, ``t:double()``: a contiguous copy as ``kind``
        (``kinds.cast``'s rule)."""
        return self.fresh(kind, cast(self.array(), kind))

    def equal(self, other) -> jax.Array:
        """``t == u``: a bool, true iff kind, shape (static) and every element agree."""
        if other.kind != self.kind or other.shape != self.shape:
            return jnp.bool_(False)
        return jnp.all(self.array() == other.array())

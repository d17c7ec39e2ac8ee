"""The device's ``system.tensor`` value: a view (shape, strides, offset) on a flat storage array.

dmlab2d's layout operations (``select``, ``narrow``, ``transpose``, ``reverse``, ``reshape``, the call
``t(i, j)``) return views that share storage with their source: writing through a view changes the
source. A ``Tensor`` here is that view made pure: ``storage`` is the whole flat buffer (a pytree leaf),
``offset`` the first element's position in it (an int32 leaf, so a traced index can move it), and
``kind``, ``shape`` and ``strides`` static. A writing method (``val(v)``, ``fill``, ``add``, ``copy``...)
returns the view with the whole buffer updated; any other view of the same buffer sees the write once
rebound with ``other.on(result.storage)`` (the compiler knows which Lua values alias).

Indices are 1-based as in Lua. A static (Python int) index or size out of range is an ``IndexError`` at
trace time, as dmlab2d raises one. A traced index cannot raise inside a kernel: it is clipped into
range (``select``/``t(i)``: to 1..n; ``narrow``: its start to 1..n-size+1), so the view always reads and
writes inside its source.
"""
from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.kernels.lab2d_tensor.kinds import dtype_of, from_number, number, static_elements
from jaxlab.kernels.lab2d_tensor.arith import Arithmetic


def row_major(shape: tuple) -> tuple:
    """Row-major (C order) strides, in elements, of ``shape``."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


@struct.dataclass
class Tensor(Arithmetic):
    """A Lab2D tensor of ``kind`` (Byte, Int32, Int64, Double) and static ``shape``: a view on
    ``storage`` (1-D, ``dtype_of(kind)``) starting at ``offset`` with ``strides`` (elements)."""

    storage: jax.Array
    offset: jax.Array
    kind: str = struct.field(pytree_node=False)
    shape: tuple = struct.field(pytree_node=False)
    strides: tuple = struct.field(pytree_node=False)

    # ----- creation of new storage -----

    @classmethod
    def fresh(cls, kind: str, values) -> "Tensor":
        """A contiguous tensor owning new storage holding ``values`` (an array already of kind's dtype,
        any shape)."""
        values = jnp.asarray(values, dtype_of(kind))
        shape = tuple(int(n) for n in values.shape)
        return cls(values.reshape(-1), jnp.int32(0), kind, shape, row_major(shape))

    # ----- metadata (static) -----

    def size(self) -> int:
        """``t:size()``: the number of elements."""
        return math.prod(self.shape)

    def is_contiguous(self) -> bool:
        """``t:isContiguous()``: whether the view is row-major and gap-free."""
        return self.strides == row_major(self.shape)

    def on(self, storage: jax.Array) -> "Tensor":
        """The same view on another version of its buffer (after a write through an aliasing view)."""
        return dataclasses.replace(self, storage=storage)

    # ----- reading and writing the viewed elements -----

    def _positions(self) -> jax.Array:
        """The viewed elements' positions in ``storage``, shape ``self.shape`` (int32)."""
        grid = np.zeros(self.shape, np.int32)
        for axis, (n, stride) in enumerate(zip(self.shape, self.strides)):
            grid = grid + (np.arange(n, dtype=np.int32) * stride).reshape((-1,) + (1,) * (len(self.shape) - axis - 1))
        return self.offset + grid

    def array(self) -> jax.Array:
        """The viewed elements as an array of ``shape`` and ``dtype_of(kind)`` (a fresh value)."""
        if self.is_contiguous():
            return jax.lax.dynamic_slice(self.storage, (self.offset,), (self.size(),)).reshape(self.shape)
        return self.storage[self._positions()]

    def write(self, values) -> "Tensor":
        """The view with its elements replaced by ``values`` (broadcast to ``shape``, cast to the
        storage dtype by the caller's rule) in the whole buffer."""
        values = jnp.broadcast_to(jnp.asarray(values, self.storage.dtype), self.shape)
        if self.is_contiguous():
            return self.on(jax.lax.dynamic_update_slice(self.storage, values.reshape(-1), (self.offset,)))
        return self.on(self.storage.at[self._positions()].set(values))

    def val(self, value=None):
        """``t:val()``: the elements as Lua numbers (a ``number()`` scalar for rank 0, else a ``number()`` array
        of ``shape``, standing for Lua's nested table). ``t:val(v)``: the tensor with its elements set
        from Lua numbers ``v`` (a number for rank 0, else nested lists/an array of exactly ``shape``)."""
        if value is None:
            return self.array().astype(number())
        if np.shape(value) != self.shape:
            raise ValueError(f"val: expected a value of shape {list(self.shape)}, got {list(np.shape(value))}")
        return self.write(from_number(_stack(value), self.kind))

    # ----- layout operations: views sharing storage -----

    def _dim(self, dim: int) -> int:
        if not isinstance(dim, (int, np.integer)) or not 1 <= dim <= len(self.shape):
            raise IndexError(f"dimension {dim!r} out of range 1..{len(self.shape)} for shape {list(self.shape)}")
        return int(dim) - 1

    def select(self, dim: int, index) -> "Tensor":
        """``t:select(dim, index)``: the slice at 1-based ``index`` of dimension ``dim`` (static), one rank
        less. A traced ``index`` is clipped to 1..n."""
        d = self._dim(dim)
        start = _start(index, 1, self.shape[d], "select")
        return dataclasses.replace(self, offset=self.offset + start * self.strides[d],
                                   shape=self.shape[:d] + self.shape[d + 1:],
                                   strides=self.strides[:d] + self.strides[d + 1:])

    def __call__(self, *indices) -> "Tensor":
        """``t(i1, i2, ...)``: ``t:select(1, i1):select(1, i2)...``."""
        if len(indices) > len(self.shape):
            raise IndexError(f"{len(indices)} indices for a tensor of rank {len(self.shape)}")
        out = self
        for index in indices:
            out = out.select(1, index)
        return out

    def narrow(self, dim: int, index, size: int) -> "Tensor":
        """``t:narrow(dim, index, size)``: elements ``index .. index+size-1`` of dimension ``dim``
        (``dim``, ``size`` static). A traced ``index`` is clipped to 1..n-size+1."""
        d = self._dim(dim)
        if not isinstance(size, (int, np.integer)) or not 1 <= size <= self.shape[d]:
            raise IndexError(f"narrow: size {size!r} out of range 1..{self.shape[d]}")
        start = _start(index, size, self.shape[d], "narrow")
        return dataclasses.replace(self, offset=self.offset + start * self.strides[d],
                                   shape=self.shape[:d] + (int(size),) + self.shape[d + 1:])

    def transpose(self, dim1: int, dim2: int) -> "Tensor":
        """``t:transpose(dim1, dim2)``: the view with the two (static) dimensions swapped."""
        a, b = self._dim(dim1), self._dim(dim2)
        shape, strides = list(self.shape), list(self.strides)
        shape[a], shape[b], strides[a], strides[b] = shape[b], shape[a], strides[b], strides[a]
        return dataclasses.replace(self, shape=tuple(shape), strides=tuple(strides))

    def reverse(self, dim: int) -> "Tensor":
        """``t:reverse(dim)``: the view with dimension ``dim`` (static) in reverse order."""
        d = self._dim(dim)
        strides = list(self.strides)
        strides[d] = -strides[d]
        return dataclasses.replace(self, offset=self.offset + (self.shape[d] - 1) * self.strides[d],
                                   strides=tuple(strides))

    def reshape(self, shape) -> "Tensor":
        """``t:reshape{...}``: the same elements under another static ``shape`` of equal size; like
        dmlab2d, only a contiguous view can be reshaped (``clone`` first), else ``ValueError``."""
        shape = tuple(int(n) for n in shape)
        if not self.is_contiguous() or math.prod(shape) != self.size():
            raise ValueError(f"reshape{list(shape)}: needs a contiguous tensor of {math.prod(shape)} elements, "
                             f"got shape {list(self.shape)}{'' if self.is_contiguous() else ' (not contiguous)'}")
        return dataclasses.replace(self, shape=shape, strides=row_major(shape))


def _start(index, size: int, extent: int, what: str):
    """0-based start of a window of ``size`` at 1-based ``index`` in an extent: static indices checked
    (``IndexError``), traced ones clipped to 1..extent-size+1."""
    if isinstance(index, (int, np.integer)) or (isinstance(index, float) and index.is_integer()):
        if not 1 <= index <= extent - size + 1:
            raise IndexError(f"{what}: index {index!r} out of range 1..{extent - size + 1}")
        return int(index) - 1
    index = jnp.asarray(index)
    if jnp.issubdtype(index.dtype, jnp.floating):
        index = jnp.trunc(index)
    return jnp.clip(index, 1, extent - size + 1).astype(jnp.int32) - 1


def _stack(value) -> jax.Array:
    """Nested lists of Lua numbers (host or traced) as one ``number()`` array."""
    if isinstance(value, (list, tuple)):
        return jnp.stack([_stack(v) for v in value]) if value else jnp.zeros((0,), number())
    return jnp.asarray(value, number())


# ----- the constructors: tensor.<Kind>Tensor(...) -----

def zeros(kind: str, *dims: int) -> Tensor:
    """``tensor.<Kind>Tensor(d1, ..., dK)``: a zero tensor of static shape ``(d1, ..., dK)`` (rank 0
    without dims)."""
    return Tensor.fresh(kind, jnp.zeros(tuple(int(d) for d in dims), dtype_of(kind)))


def from_table(kind: str, table) -> Tensor:
    """``tensor.<Kind>Tensor{{...}, ...}``: a tensor of the nested table's shape. Host numbers convert
    as dmlab2d's constructor does (``kinds.static_elements``: low bits, negative bytes refused); traced
    ones by ``kinds.from_number`` (out of range: the type's minimum)."""
    if _is_static(table):
        return Tensor.fresh(kind, static_elements(table, kind))
    return Tensor.fresh(kind, from_number(_stack(table), kind))


def arange(kind: str, *bounds) -> Tensor:
    """``tensor.<Kind>Tensor{range = {from, to, step}}`` (``{to}``: from 1; ``{from, to}``: step 1):
    ``from, from+step, ...`` up to and including ``to`` when ``to - from`` is a multiple of ``step``.
    Bounds are host numbers (the length is the shape); an empty or endless range is ``ValueError``."""
    start, stop, step = (1, bounds[0], 1) if len(bounds) == 1 else (tuple(bounds) + (1,))[:3]
    count = math.floor((stop - start) / step) + 1 if step else 0
    if count <= 0:
        raise ValueError(f"range {list(bounds)} is empty or endless")
    return Tensor.fresh(kind, static_elements(start + np.arange(count, dtype=np.float64) * step, kind))


def _is_static(table) -> bool:
    if isinstance(table, (list, tuple)):
        return all(_is_static(v) for v in table)
    return isinstance(table, (int, float, np.number, np.ndarray))

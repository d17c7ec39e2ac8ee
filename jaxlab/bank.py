"""One level bank for every family: many levels of one kind stacked on a leading axis.

A :class:`Bank` holds a family's level pytree (a first-person ``Level``, a
text ``TextGame``, a grid ``GridLayout``) whose every array has a leading
*level* axis. Levels are padded to shared shapes, so one jitted step serves
them all and a vmapped batch may mix them (multi-task training in one call).
``get``, ``sample_index``, ``sample``, ``take`` and ``shuffle`` are jit-safe;
``split`` and ``concat`` run on the host. The model is XLand-MiniGrid's
benchmark pytree.

Padding is declared by the level type, per field (the dataclass field at the
top of each array's path):

- ``PAD_VALUES``: a class attribute mapping field name -> fill value (default 0 / False);
- ``PAD_FRONT``: a class attribute naming fields whose first axis pads at the front.

A dict-valued field (e.g. a first-person level's ``custom_obs``) pads each of
its arrays with the field's fill value; every level must then have the same
keys.

Banks of first-person levels are saved and loaded pickle-free by
``jaxlab.bank_file``.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct


def _field_of(path) -> str:
    """The top-level field name of a leaf's tree path."""
    key = path[0]
    for attr in ("name", "key", "idx"):
        if hasattr(key, attr):
            return str(getattr(key, attr))
    return str(key)


def _path_name(path) -> str:
    """A leaf's tree path as ``field`` or, inside a dict field, ``field['key']``."""
    return jax.tree_util.keystr(path).lstrip(".")


def _pad(a: np.ndarray, shape: Tuple[int, ...], fill: Any, front: bool, skip: int = 0) -> np.ndarray:
    """``a`` padded with ``fill`` to ``shape`` on every axis from ``skip`` on (the first of those at the
    front when ``front``)."""
    if tuple(a.shape) == tuple(shape):
        return a
    out = np.full(shape, fill, a.dtype)
    where = [slice(0, n) for n in a.shape]
    if front and len(shape) > skip:
        where[skip] = slice(shape[skip] - a.shape[skip], shape[skip])
    out[tuple(where)] = a
    return out


def _padding(level_type: type, field: str) -> Tuple[Any, bool]:
    """(fill value, pad at the front) of ``field`` of ``level_type``."""
    return (getattr(level_type, "PAD_VALUES", {}).get(field, 0),
            field in getattr(level_type, "PAD_FRONT", ()))


def _check_structures(items: Sequence[Any], what: str) -> Any:
    """The common tree structure of ``items`` (ValueError naming the first difference otherwise)."""
    first = jax.tree_util.tree_structure(items[0])
    for i, item in enumerate(items[1:], 1):
        if jax.tree_util.tree_structure(item) != first:
            names0 = sorted(_path_name(p) for p, _ in jax.tree_util.tree_flatten_with_path(items[0])[0])
            names = sorted(_path_name(p) for p, _ in jax.tree_util.tree_flatten_with_path(item)[0])
            extra, missing = sorted(set(names) - set(names0)), sorted(set(names0) - set(names))
            raise ValueError(f"{what} {i} differs in structure from {what} 0: it has {extra or 'no'} extra and "
                             f"{missing or 'no'} missing arrays; banked {what}s must have the same arrays")
    return first


def _padded_leaves(items: Sequence[Any], level_type: type, skip: int, what: str,
                   min_shapes: Optional[Mapping[str, Tuple[int, ...]]] = None):
    """Per leaf position: the items' arrays padded to their elementwise-largest shape (axes from ``skip``)."""
    treedef = _check_structures(items, what)
    flat = [jax.tree_util.tree_flatten_with_path(item)[0] for item in items]
    columns = []
    for j, (path, _) in enumerate(flat[0]):
        name = _path_name(path)
        arrays = [np.asarray(leaves[j][1]) for leaves in flat]
        for i, a in enumerate(arrays):
            if a.ndim != arrays[0].ndim or a.dtype != arrays[0].dtype:
                raise ValueError(f"{name}: {what} {i} has {a.dtype}[{a.ndim}-d], {what} 0 has "
                                 f"{arrays[0].dtype}[{arrays[0].ndim}-d]; banked {what}s must agree")
        shape = [max(dims) for dims in zip(*(a.shape for a in arrays))]
        for axis, n in enumerate((min_shapes or {}).get(name, ())):
            shape[skip + axis] = max(shape[skip + axis], n)
        fill, front = _padding(level_type, _field_of(path))
        columns.append([_pad(a, tuple(shape[skip:]) if skip == 0 else (a.shape[0],) + tuple(shape[skip:]),
                             fill, front, skip) for a in arrays])
    return treedef, columns


def on_device(array) -> jax.Array:
    """``array`` (numpy or a scalar) as a JAX array with JAX's canonical dtype (int64 -> int32 without
    x64), put on the default device without compiling anything (``jnp.asarray`` would stage the
    conversion and compile it once per shape and dtype: most of the time of stacking a small bank)."""
    a = np.asarray(array)
    return jax.device_put(a.astype(jax.dtypes.canonicalize_dtype(a.dtype), copy=False))


@struct.dataclass
class Bank:
    """Levels of one family on a leading axis.

    levels: the family's level pytree; every array has shape [N, ...] for N
      levels (N >= 1).
    """

    levels: Any

    # ----- building (host) -----
    @classmethod
    def stack(cls, levels: Sequence[Any], min_shapes: Optional[Mapping[str, Tuple[int, ...]]] = None) -> "Bank":
        """Pad ``levels`` (one family's level pytrees, unbatched) to shared shapes and stack them.

        Each array pads (see the module docstring) to the elementwise largest
        shape over ``levels``, and at least to ``min_shapes[path]`` (path:
        ``field``, or ``field['key']`` in a dict field; the shape of one
        level's array, without the bank axis) where given. Raises ValueError
        for an empty list or levels whose arrays differ in names, dtype or
        rank (the message names the array).
        """
        levels = list(levels)
        if not levels:
            raise ValueError("a level bank needs at least one level")
        treedef, columns = _padded_leaves(levels, type(levels[0]), 0, "level", min_shapes)
        return cls(jax.tree_util.tree_unflatten(treedef, [on_device(np.stack(c)) for c in columns]))

    def concat(self, *others: "Bank") -> "Bank":
        """This bank followed by ``others`` (levels padded to shared shapes): a bank of all their levels."""
        banks = (self,) + others
        treedef, columns = _padded_leaves([b.levels for b in banks], type(self.levels), 1, "bank")
        return Bank(jax.tree_util.tree_unflatten(treedef, [jnp.concatenate(c) for c in columns]))

    def split(self, at) -> Tuple["Bank", "Bank"]:
        """(first, rest): the first ``at`` levels (an int) or the first ``round(at * size)`` (a float in
        (0, 1)), and the others. Both parts must be non-empty (ValueError otherwise)."""
        n = int(round(at * self.size)) if isinstance(at, float) else int(at)
        if not 0 < n < self.size:
            raise ValueError(f"cannot split a bank of {self.size} levels at {at!r}: both parts need a level")
        return self.take(np.arange(n)), self.take(np.arange(n, self.size))

    # ----- reading (jit-safe) -----
    @property
    def size(self) -> int:
        """N, the number of levels (static)."""
        return int(jax.tree_util.tree_leaves(self.levels)[0].shape[0])

    def get(self, index) -> Any:
        """The level at ``index`` (int32[], may be traced): the level pytree without the bank axis."""
        return jax.tree_util.tree_map(lambda a: a[index], self.levels)

    def take(self, indices) -> "Bank":
        """The bank of the levels at ``indices`` (int32[M], may be traced), in that order."""
        return Bank(jax.tree_util.tree_map(lambda a: a[jnp.asarray(indices)], self.levels))

    def sample_index(self, key: jax.Array) -> jnp.ndarray:
        """A uniformly random level index in [0, N), int32[]."""
        return jax.random.randint(key, (), 0, self.size, dtype=jnp.int32)

    def sample(self, key: jax.Array) -> Any:
        """A uniformly random level (see ``sample_index``)."""
        return self.get(self.sample_index(key))

    def shuffle(self, key: jax.Array) -> "Bank":
        """The same levels in a random order drawn with ``key``."""
        return self.take(jax.random.permutation(key, self.size))

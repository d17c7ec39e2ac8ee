"""Level banks: many Levels of one family stacked on a leading axis.

All levels are padded to the same shapes so one jitted step serves them all;
``sample_index``/``get`` are jit-safe (XLand-MiniGrid style).
"""
from __future__ import annotations

from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.level import PAD_VALUES, Level


def _pad_to(name: str, a: np.ndarray, shape) -> np.ndarray:
    fill = PAD_VALUES.get(name, 0)
    out = np.full(shape, fill, a.dtype)
    out[tuple(slice(0, n) for n in a.shape)] = a
    return out


def stack_levels(levels: Sequence[Level]) -> Level:
    """Pad every field of ``levels`` to the largest shape and stack: a bank.

    Returns a Level whose arrays have a leading axis of len(levels).
    """
    if not levels:
        raise ValueError("a level bank needs at least one level")
    fields = {}
    for name in Level.__dataclass_fields__:
        arrays = [np.asarray(getattr(l, name)) for l in levels]
        shape = tuple(max(dims) for dims in zip(*(a.shape for a in arrays)))
        fields[name] = jnp.asarray(np.stack([_pad_to(name, a, shape) for a in arrays]))
    return Level(**fields)


def bank_size(bank: Level) -> int:
    """Number of levels in a bank (static)."""
    return bank.cells.shape[0]


def get(bank: Level, index: jnp.ndarray) -> Level:
    """The level at ``index`` (int32[], may be traced) of a bank."""
    return jax.tree_util.tree_map(lambda a: a[index], bank)


def sample_index(bank: Level, key: jax.Array) -> jnp.ndarray:
    """A uniformly random level index, int32[]."""
    return jax.random.randint(key, (), 0, bank_size(bank), dtype=jnp.int32)

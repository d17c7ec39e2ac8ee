"""Level banks: many Levels of one family stacked on a leading axis.

All levels are padded to the same shapes so one jitted step serves them all;
``sample_index``/``get`` are jit-safe (XLand-MiniGrid style).
"""
from __future__ import annotations

from typing import Dict, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.level import PAD_VALUES, Level


def _pad_to(name: str, a: np.ndarray, shape) -> np.ndarray:
    fill = PAD_VALUES.get(name, 0)
    out = np.full(shape, fill, a.dtype)
    out[tuple(slice(0, n) for n in a.shape)] = a
    return out


def _stack(name: str, arrays: Sequence[np.ndarray]) -> jnp.ndarray:
    shape = tuple(max(dims) for dims in zip(*(a.shape for a in arrays)))
    return jnp.asarray(np.stack([_pad_to(name, a, shape) for a in arrays]))


def custom_obs_array(name: str, value) -> np.ndarray:
    """A custom observation as stored in a Level: uint8 ("bytes") stays uint8,
    any float becomes float32 ("doubles"); other dtypes raise ValueError."""
    a = np.asarray(value)
    if a.dtype == np.uint8:
        return a
    if np.issubdtype(a.dtype, np.floating):
        return a.astype(np.float32)
    raise ValueError(f"custom observation {name!r}: dtype {a.dtype} is neither uint8 (bytes) nor float (doubles)")


def _stack_custom_obs(levels: Sequence[Level]) -> Dict[str, jnp.ndarray]:
    keys = sorted(levels[0].custom_obs)
    for i, level in enumerate(levels):
        if sorted(level.custom_obs) != keys:
            raise ValueError(f"custom observations differ between banked levels: level 0 has {keys}, "
                             f"level {i} has {sorted(level.custom_obs)}")
    out = {}
    for key in keys:
        arrays = [custom_obs_array(key, level.custom_obs[key]) for level in levels]
        for i, a in enumerate(arrays):
            if a.dtype != arrays[0].dtype or a.ndim != arrays[0].ndim:
                raise ValueError(f"custom observation {key!r}: level {i} has {a.dtype}[{a.ndim}-d], "
                                 f"level 0 has {arrays[0].dtype}[{arrays[0].ndim}-d]; banked levels must agree")
        out[key] = _stack("custom_obs", arrays)  # pads with 0
    return out


def stack_levels(levels: Sequence[Level]) -> Level:
    """Pad every field of ``levels`` to the largest shape and stack: a bank.

    Array fields pad with ``level.PAD_VALUES`` (0/False otherwise); zero-size
    axes (no screen messages, no bots) pad to the largest size, and stay 0 if
    every level has 0. Custom observations: every level must have the same
    names, each with the same dtype and rank (ValueError naming the
    observation otherwise); each is padded with 0 to the largest shape.

    Returns a Level whose arrays have a leading axis of len(levels).
    """
    if not levels:
        raise ValueError("a level bank needs at least one level")
    fields = {}
    for name in Level.__dataclass_fields__:
        if name == "custom_obs":
            fields[name] = _stack_custom_obs(levels)
        else:
            fields[name] = _stack(name, [np.asarray(getattr(l, name)) for l in levels])
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

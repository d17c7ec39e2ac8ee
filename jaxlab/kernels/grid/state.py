"""The state of one grid world: a pytree of fixed-shape arrays (the map it starts from is level data,
``jaxlab.levels.lab2d.layout.GridLayout``)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class GridState:
    """One world's state. P players, B beams, K inventory items, L layers.

    grid:        int32[L, H, W] state id per layer and cell (0 empty; state
                 ``spec.states[i]`` has id i + 1).
    pos:         int32[P, 2] each player's (row, column); row 0 is north.
    orientation: int32[P] 0 N, 1 E, 2 S, 3 W.
    frozen:      int32[P] frames the player still cannot act (zapped).
    respawn:     int32[P] frames until a removed (caught) player returns;
                 0 = present on the grid.
    cooldown:    int32[P, B] frames until each beam may fire again.
    inventory:   int32[P, K] items held.
    reward:      float32[P] each player's reward in the last frame.
    frame:       int32[] frames played this episode.
    done:        bool[] the episode has ended.
    key:         PRNG key, split once per frame.
    """

    grid: jnp.ndarray
    pos: jnp.ndarray
    orientation: jnp.ndarray
    frozen: jnp.ndarray
    respawn: jnp.ndarray
    cooldown: jnp.ndarray
    inventory: jnp.ndarray
    reward: jnp.ndarray
    frame: jnp.ndarray
    done: jnp.ndarray
    key: jax.Array

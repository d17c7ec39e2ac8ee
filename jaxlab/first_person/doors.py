"""Doors open while the player is near them and close when the player leaves."""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.first_person import constants as C


def update_doors(level: Level, door_open, pos, dt):
    """Slide every door toward open (player within DOOR_TRIGGER_DISTANCE units
    of its centre) or closed; returns float32[D] openness in [0, 1]."""
    centre = jnp.stack([(level.door_cell[:, 1] + 0.5) * CELL_SIZE,
                        (level.rows - 1 - level.door_cell[:, 0] + 0.5) * CELL_SIZE], -1)
    near = jnp.linalg.norm(centre - pos, axis=-1) < C.DOOR_TRIGGER_DISTANCE
    rate = dt / C.DOOR_OPEN_SECONDS
    return jnp.clip(door_open + jnp.where(near, rate, -rate), 0.0, 1.0) * level.door_valid

"""Doors open while the player is near them and close when the player leaves; locked ones stay shut."""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.kernels.first_person.mechanics import door_centres
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.level import Level


def update_doors(level: Level, door_open, door_lock, pos, dt):
    """Slide every unlocked door (``door_lock`` int32[D] == 0) toward open while the player is
    within DOOR_TRIGGER_DISTANCE units of its centre, every other door toward closed; returns
    float32[D] openness in [0, 1]."""
    centre = door_centres(level)
    near = (jnp.linalg.norm(centre - pos, axis=-1) < C.DOOR_TRIGGER_DISTANCE) & (door_lock == 0)
    rate = dt / C.DOOR_OPEN_SECONDS
    return jnp.clip(door_open + jnp.where(near, rate, -rate), 0.0, 1.0) * level.door_valid

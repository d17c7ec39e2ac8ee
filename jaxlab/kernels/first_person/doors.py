"""Doors open while the player is near them and close when the player leaves; locked ones stay shut."""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.kernels.first_person.mechanics import door_centres
from jaxlab.kernels.first_person.movement import planar_length
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.level import Level


def door_zone(level: Level, pos) -> jnp.ndarray:
    """bool[D]: the doors whose trigger the player at ``pos`` (float32[2] units) is in: within
    DOOR_TRIGGER_DISTANCE units of the door's centre."""
    return level.door_valid & (planar_length(door_centres(level) - pos) < C.DOOR_TRIGGER_DISTANCE)


def update_doors(level: Level, door_open, door_lock, pos, dt):
    """Slide every unlocked door (``door_lock`` int32[D] == 0) toward open while the player is in
    its trigger (:func:`door_zone`), every other door toward closed; returns float32[D] openness
    in [0, 1]."""
    near = door_zone(level, pos) & (door_lock == 0)
    rate = dt / C.DOOR_OPEN_SECONDS
    return jnp.clip(door_open + jnp.where(near, rate, -rate), 0.0, 1.0) * level.door_valid

"""Hurt zones and jump pads (``Level.hurt_*``, ``Level.pad_*``): trigger volumes touched by the player's box.

The player's box (``units.PLAYER_RADIUS`` each way from its (x, y), its feet to ``units.PLAYER_HEIGHT``
over them) touches a volume's box when they overlap. A jump pad touched at a frame's start gives the
player its velocity (Quake III's ``BG_TouchJumpPad``: the whole velocity, again every frame the box is
in the volume) and lifts it off the ground; gravity and the ground (``terrain``) do the rest. A hurt zone
touched after a frame's move does its damage for that frame (points a second times the frame's length):
in laser tag it lowers the player's shield as a shot of its own would (a tag of oneself, -1), elsewhere it
kills (``frame``: the player comes back at a spawn point, -1 as DeepMind Lab scores a death of no
player's doing). Levels store zero rows when they have none (``has_hurt_zones`` and ``has_jump_pads``,
static), and their frames never call these.
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.level import Level


def has_hurt_zones(level: Level) -> bool:
    """Whether ``level`` (unbatched or batched) has hurt or kill zones: a static Python bool (shape)."""
    return level.hurt_damage.shape[-1] > 0


def has_jump_pads(level: Level) -> bool:
    """Whether ``level`` (unbatched or batched) has jump pads: a static Python bool (shape)."""
    return level.pad_velocity.shape[-2] > 0


def touching(boxes, pos, z) -> jnp.ndarray:
    """bool[K]: the boxes (float32[K, 6] (x0, y0, z0, x1, y1, z1) units; NaN rows never) that the player's box
    at ``pos`` (float32[2] units) with its feet at ``z`` (float32[] units) overlaps."""
    r = C.PLAYER_RADIUS
    return ((pos[0] - r < boxes[:, 3]) & (boxes[:, 0] < pos[0] + r) & (pos[1] - r < boxes[:, 4])
            & (boxes[:, 1] < pos[1] + r) & (z < boxes[:, 5]) & (boxes[:, 2] < z + C.PLAYER_HEIGHT))


def hurt(level: Level, pos, z, dt) -> jnp.ndarray:
    """float32[]: points of damage the hurt zones do in a frame of ``dt`` seconds to a player at ``pos``
    (float32[2] units) with its feet at ``z`` (float32[] units)."""
    return jnp.sum(jnp.where(touching(level.hurt_box, pos, z), level.hurt_damage, 0.0)) * dt


def push(level: Level, pos, z, vel, vz):
    """The velocity after the jump pads touched by a player at ``pos`` (float32[2] units), feet at ``z``:
    the first pad's, else ``vel`` (float32[2]) and ``vz`` (float32[]) units/s. Returns (vel, vz, launched bool[])."""
    touched = touching(level.pad_box, pos, z)
    launched = jnp.any(touched)
    given = level.pad_velocity[jnp.argmax(touched)]
    return jnp.where(launched, given[:2], vel), jnp.where(launched, given[2], vz), launched

"""Keys, locked doors, switches, teleport pads, episode-ending pickups and the hidden platform
(the DMLab-30 rooms_* mechanics).

All per frame and pure. A level without them (``level.no_mechanics``) has no
keys, no locks, no teleports and a platform of radius 0, and every function
here then leaves the state as it was.
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.kernels.first_person.movement import planar_length
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.levels.dmlab.object_catalogue import SWITCH_LOCK


def _first(mask: jnp.ndarray) -> jnp.ndarray:
    """bool[N]: only the first True entry of ``mask`` (all False if none)."""
    return mask & (jnp.cumsum(mask.astype(jnp.int32)) == 1)


def takeable_now(level: Level, touched: jnp.ndarray) -> jnp.ndarray:
    """bool[N]: the ``touched`` pickups actually taken this frame: at most one key (the first)."""
    is_key = level.pickup_key > 0
    return (touched & ~is_key) | _first(touched & is_key)


def hold_key(level: Level, taken: jnp.ndarray, held_key) -> jnp.ndarray:
    """int32[]: the key colour held after taking the ``taken`` pickups (bool[N]): a new key
    replaces the held one (DMLab: one key at a time, the old one is lost)."""
    got = jnp.max(jnp.where(taken, level.pickup_key, 0))
    return jnp.where(got > 0, got, held_key).astype(jnp.int32)


def throw_switch(level: Level, taken: jnp.ndarray, switched, door_lock):
    """Take a switch pickup: SWITCH_LOCK doors unlock for good.

    Returns (switched bool[], door_lock int32[D])."""
    switched = switched | jnp.any(taken & level.pickup_switch)
    return switched, jnp.where(switched & (door_lock == SWITCH_LOCK), 0, door_lock)


def count_pickups(level: Level, taken: jnp.ndarray, pickups_taken):
    """Count taken ``pickup_counts`` pickups. Once ``end_after_pickups`` (> 0) of them have been taken
    the level ends the episode, or, with ``counted_restarts``, restarts the map paying
    ``counted_bonus``. Returns (pickups_taken int32[], ends bool[], restarts bool[], bonus float32[])."""
    pickups_taken = pickups_taken + jnp.sum(taken & level.pickup_counts).astype(jnp.int32)
    reached = (level.end_after_pickups > 0) & (pickups_taken >= level.end_after_pickups)
    restarts = reached & level.counted_restarts
    return (pickups_taken, reached & ~level.counted_restarts, restarts,
            jnp.where(restarts, level.counted_bonus, 0.0).astype(jnp.float32))


def door_centres(level: Level) -> jnp.ndarray:
    """float32[D, 2] world (x, y) of every door cell's centre, units."""
    return jnp.stack([(level.door_cell[:, 1] + 0.5) * CELL_SIZE,
                      (level.rows - 1 - level.door_cell[:, 0] + 0.5) * CELL_SIZE], -1)


def use_key(level: Level, door_lock, held_key, pos):
    """Unlock the nearest door locked for the held key if the player touches it.

    door_lock: int32[D] current locks (see ``Level.door_lock``); held_key:
    int32[] (0 none); pos: float32[2] units. A key opens only a door of its
    colour and is used up. Returns (door_lock int32[D], held_key int32[],
    reward float32[]: ``level.unlock_reward`` if a door was opened).
    """
    dist = planar_length(door_centres(level) - pos)
    fits = level.door_valid & (door_lock > 0) & (door_lock == held_key) & (dist < C.UNLOCK_DISTANCE)
    nearest = jnp.argmin(jnp.where(fits, dist, jnp.inf))
    opened = fits.any() & (jnp.arange(door_lock.shape[0]) == nearest)
    return (jnp.where(opened, 0, door_lock), jnp.where(fits.any(), 0, held_key).astype(jnp.int32),
            jnp.where(fits.any(), level.unlock_reward, 0.0))


def teleport(level: Level, taken: jnp.ndarray, pos, vel, yaw):
    """Move the player to the destination of the first taken teleport pickup, if any.

    Returns (pos float32[2], vel float32[2], yaw float32[], moved bool[]).
    """
    pad = _first(taken & (level.pickup_teleport >= 0))
    moved = pad.any()
    dest = jnp.max(jnp.where(pad, level.pickup_teleport, 0))
    return (jnp.where(moved, level.teleport_pos[dest], pos), jnp.where(moved, 0.0, vel),
            jnp.where(moved, level.teleport_yaw[dest], yaw), moved)


def platform(level: Level, platform_frames, pos, fps: int):
    """Count frames spent on the hidden platform; pay and end the map once long enough.

    platform_frames: int32[] consecutive frames on the platform so far.
    Returns (platform_frames int32[], reward float32[], reached bool[]).
    """
    on = (level.platform_radius > 0) & (planar_length(pos - level.platform_pos) < level.platform_radius)
    frames = jnp.where(on, platform_frames + 1, 0).astype(jnp.int32)
    need = jnp.maximum(jnp.round(level.platform_seconds * fps), 1).astype(jnp.int32)
    reached = on & (frames >= need)
    return jnp.where(reached, 0, frames), jnp.where(reached, level.platform_reward, 0.0), reached

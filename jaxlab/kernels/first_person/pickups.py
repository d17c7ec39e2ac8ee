"""Pickups: touching one pays its reward; goals and cleared levels restart the map."""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.kernels.first_person.movement import planar_length
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.level import Level


def pickup_positions(level: Level, goal_choice) -> jnp.ndarray:
    """float32[N, 2] world (x, y) of every pickup this episode (goals that
    follow the episode's goal choice are moved there)."""
    goal = level.goal_choice_pos[goal_choice]
    return jnp.where(level.pickup_follows_goal[:, None], goal, level.pickup_pos)


def present(level: Level, pickup_wait) -> jnp.ndarray:
    """bool[N]: pickups currently in the world."""
    return level.pickup_valid & (pickup_wait == 0)


def start_wait(level: Level) -> jnp.ndarray:
    """int32[N]: every pickup's wait when the map starts: 0 (present), or -1 (absent) for one that appears
    only once another is taken (``level.pickup_spawned_by``)."""
    return jnp.where(level.pickup_spawned_by >= 0, -1, 0).astype(jnp.int32)


def touching(level: Level, pickup_wait, pos, goal_choice) -> jnp.ndarray:
    """bool[N]: present pickups within PICKUP_DISTANCE of ``pos`` (float32[2] units) that can be
    taken (``level.pickup_takeable``: DMLab ``canPickup``)."""
    dist = planar_length(pickup_positions(level, goal_choice) - pos)
    return present(level, pickup_wait) & level.pickup_takeable & (dist < C.PICKUP_DISTANCE)


def collect(level: Level, pickup_wait, touched):
    """Take the ``touched`` pickups (bool[N], see ``touching``) and tick respawn timers.

    Returns (pickup_wait int32[N], reward float32[], map_restart bool[]):
    the map restarts when a goal is taken, or, in a level without goals whose
    ``cleared_restarts`` holds, when no takeable pickup with a positive reward is left. A pickup another one
    spawns (``level.pickup_spawned_by``) appears when that one is taken (one
    already there stays as it is).
    """
    reward = jnp.sum(jnp.where(touched, level.pickup_reward, 0.0))
    ticking = jnp.where(pickup_wait > 0, pickup_wait - 1, pickup_wait)
    wait = jnp.where(touched, level.pickup_respawn_frames, ticking)
    spawner = level.pickup_spawned_by
    wait = jnp.where((spawner >= 0) & touched[jnp.maximum(spawner, 0)] & ~touched, 0, wait)
    reached_goal = jnp.any(touched & level.pickup_is_goal)
    has_goal = jnp.any(level.pickup_valid & level.pickup_is_goal)
    positive = level.pickup_valid & level.pickup_takeable & (level.pickup_reward > 0)
    cleared = level.cleared_restarts & ~has_goal & jnp.any(positive) & ~jnp.any(positive & (wait == 0))
    return wait, reward, reached_goal | cleared

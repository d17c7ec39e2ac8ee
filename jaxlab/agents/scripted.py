"""Scripted players for laser tag's baselines (pure JAX, jit- and vmap-safe).

``aim_and_fire``: turns toward the nearest other player in play that no
wall hides (the raycaster's wall distance along the line between them) and
fires once the view ray falls on that player's box; with nobody in sight it
turns on the spot to look around. It never walks. ``random_actions``: DMLab's
9 IMPALA actions drawn uniformly, as DMLab-30's random baseline.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.kernels.first_person.grid import door_closed
from jaxlab.kernels.first_person.state import WorldState
from jaxlab.kernels.first_person.tagging import wall_distance
from jaxlab.levels.dmlab import actions as A
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.level import Level
from jaxlab.render.first_person.raycast import solid_cells

SCAN_PIXELS = 40   # LOOK pixels per frame while nobody is in sight


def aim_and_fire(level: Level, state: WorldState, repeat: int) -> jnp.ndarray:
    """int32[7]: the aim-and-fire action for the agent of ``state`` (a level with bots) over the next
    ``repeat`` frames (see the module docstring)."""
    arena = state.arena
    rel = arena.pos - state.pos
    dist = jnp.maximum(jnp.linalg.norm(rel, axis=1), 1e-3)
    solid = solid_cells(level.cells, level.door_index, door_closed(state.door_open))
    walls = jax.vmap(wall_distance, in_axes=(None, None, None, 0))(solid, level.rows, state.pos, rel / dist[:, None])
    seen = arena.playing[1:] & arena.up[1:] & (walls > dist - C.PLAYER_RADIUS)
    k = jnp.argmin(jnp.where(seen, dist, jnp.inf))
    heading = jnp.rad2deg(jnp.arctan2(rel[k, 1], rel[k, 0]))
    turn = jnp.mod(heading - state.yaw + 180.0, 360.0) - 180.0
    on_box = jnp.abs(turn) < jnp.rad2deg(jnp.arctan2(C.PLAYER_RADIUS, dist[k]))
    look = jnp.where(seen[k], jnp.round(-turn / (C.LOOK_DEGREES_PER_PIXEL * repeat)), SCAN_PIXELS)
    act = jnp.zeros((7,), jnp.int32)
    act = act.at[A.LOOK_LEFT_RIGHT].set(jnp.clip(look, A.ACTION_MIN[0], A.ACTION_MAX[0]).astype(jnp.int32))
    return act.at[A.FIRE].set((seen[k] & on_box) | ~arena.up[0])


def random_actions(key, shape=()) -> jnp.ndarray:
    """int32[..., 7]: uniformly drawn rows of DMLab's 9 IMPALA actions (``actions.DISCRETE_ACTION_TABLE``)."""
    table = jnp.asarray(A.DISCRETE_ACTION_TABLE)
    return table[jax.random.randint(key, shape, 0, table.shape[0])]

"""Privileged steering for the memory tasks' oracle policies: walk the grid to a point, look at a point.

Pure jnp (vmap/jit-safe). Actions are memory actions, float32[4] in ``jaxlab.levels.dmlab.memory.actions`` order.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.levels.dmlab.map_parser import CELL_WALL
from jaxlab.levels.dmlab.memory import actions
from jaxlab.levels.dmlab.procedural.cells import DOWN, LEFT, RIGHT, UP, neighbour
from jaxlab.levels.dmlab.units import LOOK_DEGREES_PER_PIXEL

#: degrees turned per frame at full look deflection
DEGREES_PER_FRAME = actions.MAX_LOOK_PIXELS * LOOK_DEGREES_PER_PIXEL
#: heading error (degrees) under which the oracle walks forward
WALK_CONE = 25.0
_FAR = 1 << 20


def distance_field(open_: jnp.ndarray, target: jnp.ndarray) -> jnp.ndarray:
    """int32[H, W] 4-connected path length from each open cell to the nearest ``target`` cell through
    ``open_`` cells (bool[H, W] both); a large value where none is reachable."""
    h, w = open_.shape
    start = jnp.where(target & open_, 0, _FAR).astype(jnp.int32)

    def relax(carry):
        d, _, i = carry
        best = jnp.minimum(jnp.minimum(neighbour(d, UP, _FAR), neighbour(d, DOWN, _FAR)),
                           jnp.minimum(neighbour(d, LEFT, _FAR), neighbour(d, RIGHT, _FAR)))
        new = jnp.where(open_, jnp.minimum(d, best + 1), _FAR)
        return new, jnp.any(new != d), i + 1

    return jax.lax.while_loop(lambda c: c[1] & (c[2] < h * w), relax, (start, jnp.bool_(True), 0))[0]


def cell_of_xy(level: Level, xy) -> jnp.ndarray:
    """int32[2] (row, col) of the cell holding world point ``xy`` (float32[2] units)."""
    col = jnp.floor(xy[0] / CELL_SIZE).astype(jnp.int32)
    row = (level.rows - 1 - jnp.floor(xy[1] / CELL_SIZE)).astype(jnp.int32)
    return jnp.stack([row, col])


def look_toward(yaw, pitch, target_yaw) -> jnp.ndarray:
    """float32[4] that turns from ``yaw`` toward ``target_yaw`` and levels ``pitch`` (degrees)."""
    err = jnp.mod(target_yaw - yaw + 180.0, 360.0) - 180.0
    out = jnp.zeros((4,), jnp.float32)
    return (out.at[actions.LOOK_LEFT_RIGHT].set(jnp.clip(-err / DEGREES_PER_FRAME, -1.0, 1.0))
            .at[actions.LOOK_DOWN_UP].set(jnp.clip(-pitch / DEGREES_PER_FRAME, -1.0, 1.0)))


def walk_toward(pos, yaw, pitch, target_xy) -> jnp.ndarray:
    """float32[4]: turn toward world point ``target_xy`` and walk forward once facing it."""
    d = jnp.asarray(target_xy, jnp.float32) - pos
    target_yaw = jnp.rad2deg(jnp.arctan2(d[1], d[0]))
    act = look_toward(yaw, pitch, target_yaw)
    err = jnp.abs(jnp.mod(target_yaw - yaw + 180.0, 360.0) - 180.0)
    return act.at[actions.MOVE_BACK_FORWARD].set(jnp.where(err < WALK_CONE, 1.0, 0.0))


def walk_path(level: Level, world, target_xy, avoid=None) -> jnp.ndarray:
    """float32[4]: follow the shortest grid path (walls block) to ``target_xy``: head for the centre
    of the neighbouring cell nearer the target, and straight for the target once in its cell.
    ``world``: a first-person WorldState; ``avoid``: optional bool[H, W] cells the path must not
    enter (e.g. cells of objects not to touch)."""
    open_ = level.cells != CELL_WALL
    if avoid is not None:
        open_ = open_ & ~avoid
    here = cell_of_xy(level, world.pos)
    goal = cell_of_xy(level, target_xy)
    rows, cols = open_.shape
    target = (jnp.arange(rows)[:, None] == goal[0]) & (jnp.arange(cols)[None, :] == goal[1])
    dist = distance_field(open_, target)
    steps = jnp.array([[-1, 0], [1, 0], [0, -1], [0, 1]], jnp.int32)
    nbr = jnp.clip(here[None, :] + steps, 0, jnp.array([rows - 1, cols - 1]))
    best = nbr[jnp.argmin(dist[nbr[:, 0], nbr[:, 1]])]
    centre = jnp.stack([(best[1] + 0.5) * CELL_SIZE, (level.rows - 1 - best[0] + 0.5) * CELL_SIZE])
    in_goal_cell = jnp.all(here == goal)
    return walk_toward(world.pos, world.yaw, world.pitch,
                       jnp.where(in_goal_cell, jnp.asarray(target_xy, jnp.float32), centre))

"""Walking, stepping, falling and jumping over a level's heights (``Level.floor_z``), one frame.

DMLab's player walks up a rise of at most STEP_HEIGHT (18 units) and steps
down as far without leaving the ground; a larger drop is a fall under
gravity; JUMP leaves the ground at JUMP_VELOCITY. A height cell higher than
the feet plus the step (or, in the air, than the feet), a ``NO_FLOOR`` cell,
a wall, a closed door or a solid obstacle stops the box as a wall does. The
vertical arc integrates as ``movement.jump`` does, so a level whose ground
is 0 everywhere moves exactly as a flat one. ``z`` is the height of the feet
in world units. Only levels with heights (``heights.has_heights``) run this.
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.kernels.first_person.grid import cell_of, solid
from jaxlab.kernels.first_person.movement import arc, slide_axis
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.heights import HEIGHT_CELL, NO_FLOOR, footprint_ground, ground_at
from jaxlab.levels.dmlab.level import Level


def ground(level: Level, pos) -> jnp.ndarray:
    """float32[]: the highest ground (units) under the player's box at ``pos`` (float32[2] units)."""
    return footprint_ground(level.floor_z, level.rows, pos[0], pos[1])


def _stops(level: Level, door_open, x, y, z_limit) -> jnp.ndarray:
    """bool: the box's corner at (x, y) may not enter there with its feet at most at ``z_limit``."""
    g = ground_at(level.floor_z, level.rows, x, y)
    return solid(level, door_open, *cell_of(level, x, y)) | (g > z_limit) | (g <= NO_FLOOR)


def _inside_obstacle(level: Level, pos) -> jnp.ndarray:
    """bool: the player's box (as a disc of PLAYER_RADIUS) at ``pos`` overlaps a solid obstacle."""
    if level.obstacle_radius.shape[0] == 0:   # static: no obstacles
        return jnp.bool_(False)
    reach = level.obstacle_radius + C.PLAYER_RADIUS
    d2 = jnp.sum((level.obstacle_pos - pos) ** 2, axis=-1)
    return jnp.any((level.obstacle_radius > 0) & (d2 < reach * reach))


def _slide_axis(level: Level, door_open, pos, delta, axis: int, z_limit):
    """Move ``pos`` by ``delta`` along ``axis`` (0: x, 1: y), stopping the box at the first height
    cell it may not enter, or where it stood if it would overlap an obstacle. Returns (pos, blocked)."""
    moved, blocked = slide_axis(level, door_open, pos, delta, axis,
                                stops=lambda x, y: _stops(level, door_open, x, y, z_limit), cell=HEIGHT_CELL)
    bumped = _inside_obstacle(level, moved) & (delta != 0)
    return jnp.where(bumped, pos, moved), blocked | bumped


def move_over_heights(level: Level, door_open, pos, vel, z, vz, grounded, jump_pressed, dt):
    """One frame of movement over heights.

    pos float32[2] and vel float32[2]: position (units) and horizontal velocity (units/s) after
    acceleration; z, vz float32[]: feet height (units) and vertical speed (units/s); grounded
    bool[]: the feet stood on the ground at the frame's start (``z <= ground(level, pos)``);
    jump_pressed bool[]: JUMP, where the level allows it; dt seconds.
    Returns (pos, vel, z, vz), the same shapes.
    """
    z_limit = z + jnp.where(grounded, C.STEP_HEIGHT, 0.0)
    pos, block_x = _slide_axis(level, door_open, pos, vel[0] * dt, 0, z_limit)
    pos, block_y = _slide_axis(level, door_open, pos, vel[1] * dt, 1, z_limit)
    vel = jnp.stack([jnp.where(block_x, 0.0, vel[0]), jnp.where(block_y, 0.0, vel[1])])
    g = ground(level, pos)
    start = grounded & jump_pressed
    walks = grounded & ~start & (z - g <= C.STEP_HEIGHT)   # level, a step up, or a step down
    vz = jnp.where(start, C.JUMP_VELOCITY, vz)
    z_next, vz_next = arc(z, vz, dt)   # as movement.jump
    lands = z_next <= g
    z = jnp.where(walks | lands, g, z_next)
    vz = jnp.where(walks | lands, 0.0, vz_next)
    return pos, vel, z, vz

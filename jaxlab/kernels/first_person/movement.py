"""Looking, walking, jumping and collision of the player, one frame at a time.

Actions follow DMLab's int32[7] layout (see ``actions.py``); every function
here is pure and per-frame, with ``dt = 1 / fps`` seconds.
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.kernels.first_person.grid import cell_of, solid
from jaxlab.levels.dmlab import units as C
from jaxlab.levels.dmlab.level import CELL_SIZE, Level

_EPS = 0.01  # units kept between the player's box and a wall


def look(yaw, pitch, look_left_right, look_down_up):
    """Turn by LOOK pixels: returns (yaw, pitch) in degrees.

    Positive LOOK_LEFT_RIGHT turns right (yaw decreases); LOOK_DOWN_UP adds to
    the pitch, which looks down when positive (DeepMind Lab's engine adds it
    to Quake's view pitch); pitch is clamped to ±MAX_PITCH, yaw wrapped to
    [-180, 180).
    """
    yaw = yaw - look_left_right * C.LOOK_DEGREES_PER_PIXEL
    yaw = jnp.mod(yaw + 180.0, 360.0) - 180.0
    pitch = jnp.clip(pitch + look_down_up * C.LOOK_DEGREES_PER_PIXEL, -C.MAX_PITCH, C.MAX_PITCH)
    return yaw, pitch


def planar_length(v) -> jnp.ndarray:
    """float32[...]: the length of 2-vectors ``v`` (float32[..., 2]), written out (no reduction: a batch of
    them stays one elementwise kernel)."""
    return jnp.sqrt(v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1])


def planar_dot(a, b) -> jnp.ndarray:
    """float32[...]: the dot products of 2-vectors ``a`` and ``b`` (float32[..., 2]), written out."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


def wish_direction(yaw, strafe_left_right, move_back_forward):
    """Unit float32[2] world direction the player wants to go (zero if none)."""
    rad = jnp.deg2rad(yaw)
    forward = jnp.stack([jnp.cos(rad), jnp.sin(rad)])
    right = jnp.stack([jnp.sin(rad), -jnp.cos(rad)])
    wish = forward * move_back_forward + right * strafe_left_right
    norm = planar_length(wish)
    return jnp.where(norm > 0, wish / jnp.maximum(norm, 1e-6), 0.0)


def accelerate(vel, wish_dir, wish_speed, on_ground, dt):
    """Quake-style friction (on the ground) and acceleration toward
    ``wish_dir * wish_speed``; returns the new float32[2] velocity, units/s."""
    speed = planar_length(vel)
    drop = jnp.maximum(speed, C.STOP_SPEED) * C.FRICTION * dt
    scale = jnp.where(speed > 0, jnp.maximum(speed - drop, 0.0) / jnp.maximum(speed, 1e-6), 0.0)
    vel = jnp.where(on_ground, vel * scale, vel)
    accel = jnp.where(on_ground, C.GROUND_ACCELERATION, C.AIR_ACCELERATION)
    add = jnp.maximum(wish_speed - planar_dot(vel, wish_dir), 0.0)
    return vel + jnp.minimum(accel * dt * wish_speed, add) * wish_dir


def slide_axis(level: Level, door_open, pos, delta, axis: int, stops=None, cell: float = CELL_SIZE):
    """Move ``pos`` by ``delta`` along ``axis`` (0: x, 1: y), stopping the
    player's box at the first cell it may not enter. Returns (pos, blocked bool[]).

    ``stops(x, y) -> bool``: whether the box's leading corner may not be at
    world point (x, y) (default: the cell there is solid); ``cell``: the size
    in units of the grid whose edges stop the box (default the map's cells)."""
    if stops is None:
        def stops(x, y):
            return solid(level, door_open, *cell_of(level, x, y))
    r = C.PLAYER_RADIUS
    moved = pos.at[axis].add(delta)
    lead = moved[axis] + jnp.sign(delta) * r
    other = 1 - axis
    side_a, side_b = moved[other] - r + _EPS, moved[other] + r - _EPS
    if axis == 0:
        hit_a, hit_b = stops(lead, side_a), stops(lead, side_b)
    else:
        hit_a, hit_b = stops(side_a, lead), stops(side_b, lead)
    blocked = (hit_a | hit_b) & (delta != 0)
    edge = jnp.floor(lead / cell) * cell
    stop = jnp.where(delta > 0, edge - r - _EPS, edge + cell + r + _EPS)
    return moved.at[axis].set(jnp.where(blocked, stop, moved[axis])), blocked


def move_and_collide(level: Level, door_open, pos, vel, dt):
    """Move by ``vel * dt`` with the player's box sliding along walls and
    closed doors (x first, then y). Returns (pos float32[2], vel float32[2])."""
    pos, block_x = slide_axis(level, door_open, pos, vel[0] * dt, 0)
    pos, block_y = slide_axis(level, door_open, pos, vel[1] * dt, 1)
    vel = jnp.stack([jnp.where(block_x, 0.0, vel[0]), jnp.where(block_y, 0.0, vel[1])])
    return pos, vel


def arc(z, vz, dt):
    """One frame of flight under gravity: (z, vz) after ``dt`` seconds (units, units/s). The frame
    moves by the mean of its start and end vertical speeds (Quake III's ``PM_SlideMove`` under
    gravity), so the arc is the exact parabola at frame times."""
    return z + (vz - 0.5 * C.GRAVITY * dt) * dt, vz - C.GRAVITY * dt


def jump(z, vz, jump_pressed, dt):
    """Vertical arc: a jump from the floor starts at JUMP_VELOCITY and gravity
    brings the player back to z = 0 (``arc``: the apex is JUMP_VELOCITY^2 /
    (2 GRAVITY)). Returns (z, vz) in units and units/s."""
    start = (z <= 0.0) & jump_pressed
    vz = jnp.where(start, C.JUMP_VELOCITY, vz)
    z_next, vz_next = arc(z, vz, dt)
    flying = ((z > 0.0) | start) & (z_next > 0.0)
    return jnp.where(flying, z_next, 0.0), jnp.where(flying, vz_next, 0.0)

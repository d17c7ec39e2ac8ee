"""The first-person camera and its per-column / per-row projection geometry.

Conventions (world units, y up): yaw 0 looks along +x, 90 along +y; the
image's right-hand side is the player's right, i.e. direction
``(sin yaw, -cos yaw)``. The horizontal field of view is 90 degrees, so the
focal length in pixels is ``width / 2`` (square pixels: the same focal
length vertically). Pitch is a vertical shear: the horizon row moves by
``focal * tan(pitch)``, upwards when looking down (positive pitch looks down, as Quake III's and DeepMind
Lab's).
"""
from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
from flax import struct

from jaxlab.render.fusion import materialise

MAX_PITCH_DEGREES = 80.0


@struct.dataclass
class Camera:
    """Where the eye is and where it looks.

    pos:   float32[2] (x, y) in world units.
    eye_z: float32[] eye height above the floor in units (50 standing; walls
           are 100 high).
    yaw:   float32[] degrees; 0 looks along +x, 90 along +y.
    pitch: float32[] degrees; positive looks down (DMLab's sign); clamped to +-80 when drawn.
    """

    pos: jnp.ndarray
    eye_z: jnp.ndarray
    yaw: jnp.ndarray
    pitch: jnp.ndarray


class View(NamedTuple):
    """Projection geometry of one frame (all float32).

    focal:   [] focal length in pixels (width / 2).
    horizon: [] image row (continuous, rows grow downwards, pixel r spans
             [r, r+1)) where the eye-level plane projects.
    forward: [2] unit view direction (x, y).
    ray:     [W, 2] per-column ray direction ``forward + right * x / focal``,
             whose component along ``forward`` is 1, so a hit at parameter t
             lies at perpendicular (view-plane) distance t.
    row_up:  [H] ``horizon - (r + 0.5)``: pixel rows above the horizon
             (positive above), at each row's centre.
    """

    focal: jnp.ndarray
    horizon: jnp.ndarray
    forward: jnp.ndarray
    ray: jnp.ndarray
    row_up: jnp.ndarray


def focal_length(width: int) -> float:
    """Focal length in pixels for a 90-degree horizontal field of view."""
    return width / 2.0  # (width / 2) / tan(45 degrees)


def make_view(camera: Camera, width: int, height: int) -> View:
    """Per-frame projection geometry for a ``height x width`` image (static ints)."""
    f32 = jnp.float32
    focal = f32(focal_length(width))
    yaw = jnp.deg2rad(jnp.asarray(camera.yaw, f32))
    pitch = jnp.deg2rad(jnp.clip(jnp.asarray(camera.pitch, f32), -MAX_PITCH_DEGREES, MAX_PITCH_DEGREES))
    # Computed once per frame: XLA would otherwise fuse the trigonometry
    # into every per-column and per-row consumer.
    horizon, c, s = materialise((f32(height / 2.0) - focal * jnp.tan(pitch), jnp.cos(yaw), jnp.sin(yaw)))
    forward = jnp.stack([c, s])
    right = jnp.stack([s, -c])
    x = (jnp.arange(width, dtype=f32) + f32(0.5) - f32(width / 2.0)) / focal  # [W]
    ray = forward[None, :] + x[:, None] * right[None, :]
    row_up = horizon - (jnp.arange(height, dtype=f32) + f32(0.5))
    return View(focal=focal, horizon=horizon, forward=forward, ray=ray, row_up=row_up)

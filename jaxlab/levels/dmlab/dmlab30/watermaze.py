"""rooms_watermaze (DMLab-30): find the hidden platform, then find it again.

A circular arena: the cells of a 17 x 17 grid whose centres lie within
``ARENA_RADIUS`` of the middle are floor, the rest wall. Each episode puts a
platform of radius 64 units at a point uniform in a disc of radius 580 units
around the centre; it stays there for the episode and is never drawn (no
pickup, no wall, no floor mark). Standing on it for ``PLATFORM_SECONDS``
pays ``PLATFORM_REWARD`` (DMLab holds the agent and pays +1 five times) and
restarts the map: the player respawns at one of 8 start points 700 units from
the centre (N, S, E, W and the diagonals), facing the centre. 120 s.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set
from jaxlab.levels.dmlab.dmlab30 import looks
from jaxlab.levels.dmlab.dmlab30.room_maps import wall_variation

EPISODE_SECONDS = 120.0
GRID = 17
ARENA_RADIUS = 760.0          # units: cells whose centre is this close to the middle are floor
PLATFORM_DISC = 580.0         # the platform's centre is uniform in this disc
PLATFORM_RADIUS = 64.0
PLATFORM_SECONDS = 1.0
PLATFORM_REWARD = 5.0
START_RADIUS = 700.0
CENTRE = np.array([GRID * CELL_SIZE / 2] * 2, np.float32)    # (850, 850)


def arena_cells() -> np.ndarray:
    """int8[17, 17] the circular arena: floor inside ARENA_RADIUS, wall outside."""
    c = (np.arange(GRID) + 0.5) * CELL_SIZE
    d = np.hypot(*np.meshgrid(c - CENTRE[0], c - CENTRE[1], indexing="ij"))
    return np.where(d <= ARENA_RADIUS, CELL_FLOOR, CELL_WALL).astype(np.int8)


ARENA = arena_cells()
_ANGLES = np.deg2rad(np.arange(8) * 45.0)
#: float32[8, 2] the start points (E, NE, N, ..., SE) and the yaws that face the centre
STARTS = (CENTRE + START_RADIUS * np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], -1)).astype(np.float32)
START_YAWS = (np.rad2deg(_ANGLES) - 180.0).astype(np.float32)


def platform_centre(key: jax.Array) -> jnp.ndarray:
    """float32[2] world (x, y): uniform over the disc of radius PLATFORM_DISC around the centre."""
    k_r, k_a = jax.random.split(key)
    r = PLATFORM_DISC * jnp.sqrt(jax.random.uniform(k_r, ()))
    a = jax.random.uniform(k_a, (), minval=0.0, maxval=2 * jnp.pi)
    return jnp.asarray(CENTRE) + r * jnp.stack([jnp.cos(a), jnp.sin(a)])


def arena_level(platform_pos) -> Level:
    """The arena with its platform at ``platform_pos`` (float32[2] units)."""
    nothing = pickup_set(jnp.zeros((1, 2)), 0, 0.0, False, takeable=False)   # no pickups (N >= 1)
    theme = looks.WATERMAZE_THEME
    return assemble_level(ARENA, wall_variation(ARENA, looks.variation_code(looks.WATERMAZE_WALL)),
                          jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool), nothing, STARTS,
                          jnp.ones((8,), bool), EPISODE_SECONDS, spawn_yaw=START_YAWS, theme=theme,
                          switch_theme=theme, platform_pos=platform_pos, platform_radius=PLATFORM_RADIUS,
                          platform_seconds=PLATFORM_SECONDS, platform_reward=PLATFORM_REWARD)


class Watermaze(LevelGenerator):
    """rooms_watermaze: the platform is drawn per episode; starts are drawn per map by the kernel."""

    name = "rooms_watermaze"

    def episode(self, key: jax.Array, level_index) -> Level:
        """The arena with a platform position drawn from ``key`` (``level_index`` unused)."""
        return arena_level(platform_centre(key))


GENERATORS = {Watermaze.name: Watermaze()}

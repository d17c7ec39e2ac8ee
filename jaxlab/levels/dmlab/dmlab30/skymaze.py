"""skymaze_irreversible_path_hard and _varied (DMLab-30): walk down a maze of platforms in the sky.

Each episode draws DMLab's platform layout (``skymaze_paths``): difficulty
0.9 for ``_hard`` (a 19 × 19 map, 7 paths), uniform in [0, 1) per episode for
``_varied`` (9 × 9 to 21 × 21). A platform of factory height H stands with
its top at 20 H units (the start at 800) and fills its 100-unit map cell;
a platform is 43.125 units thick and floats in the sky. Every other cell
holds DMLab's invisible glass column, which rises above the start: the
player can neither enter it nor fall off the maze. One height level is 20
units, more than the 18-unit step, and JUMP and CROUCH do nothing here (DMLab
clears them), so every step down is for good: the main path only ever goes
down, and the side paths end one level below the cell they rejoin.

The player starts on the start platform facing a random way. The goal (DMLab's
large goal object) stands on the goal platform and pays +100 (a REWARD, not
a GOAL); taking it ends the episode (DMLab ends it 0.2 s later). 60 s
episodes. The map is padded to the largest size (21 × 21), the layout in its
top-left corner.
"""
from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.dmlab30.skymaze_paths import ASCII, skymaze_layout
from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.heights import GROUND_SLABS, HEIGHT_CELLS_PER_CELL, NO_FLOOR, SKY_INDEX
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set
from jaxlab.levels.dmlab.units import CELL_SIZE

EPISODE_SECONDS = 60.0
GOAL_REWARD = 100.0
HARD_DIFFICULTY = 0.9
#: units of height per factory height unit (DMLab's 0.2 cell per unit)
UNITS_PER_LEVEL = 20.0
#: the goal is DMLab's large goal object
GOAL_SCALE = 1.6


def platform_heights(level_h) -> jnp.ndarray:
    """float32[2 A, 2 A] ground per height cell: a platform's top at 20 H units, NO_FLOOR elsewhere
    (level_h int32[A, A] factory heights, 0: no platform)."""
    z = jnp.where(level_h > 0, UNITS_PER_LEVEL * level_h.astype(jnp.float32), NO_FLOOR)
    return jnp.repeat(jnp.repeat(z, HEIGHT_CELLS_PER_CELL, axis=0), HEIGHT_CELLS_PER_CELL, axis=1)


def _centre(cell) -> jnp.ndarray:
    """float32[2] world (x, y) units of the centre of ascii cell (row, col) of the ASCII-row map."""
    row, col = cell[0].astype(jnp.float32), cell[1].astype(jnp.float32)
    return jnp.stack([(col + 0.5) * CELL_SIZE, (ASCII - 1 - row + 0.5) * CELL_SIZE])


def skymaze_level(key: jax.Array, difficulty) -> Level:
    """The Level of one skymaze episode of ``difficulty`` (float32[] in [0, 1])."""
    layout = skymaze_layout(key, difficulty)
    cells = jnp.where(layout.level_h > 0, CELL_FLOOR, CELL_WALL).astype(jnp.int8)
    goal = pickup_set(_centre(layout.goal)[None], PICKUP_INDEX["goal"], GOAL_REWARD, counts=True,
                      scale=GOAL_SCALE)
    return assemble_level(cells, jnp.zeros_like(cells), jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool),
                          goal, _centre(layout.player)[None], jnp.ones((1,), bool), EPISODE_SECONDS,
                          end_after_pickups=1, floor_z=platform_heights(layout.level_h), sky=SKY_INDEX["sky"],
                          jump_crouch=False)


class Skymaze(LevelGenerator):
    """A skymaze level: ``difficulty`` fixed (``_hard``: 0.9) or None (``_varied``: uniform per episode)."""

    ground = GROUND_SLABS

    def __init__(self, name: str, difficulty: Optional[float]):
        self.name = name
        self.difficulty = difficulty

    def episode(self, key: jax.Array, level_index) -> Level:
        """The Level of a new episode drawn from ``key`` (``level_index`` unused)."""
        k_difficulty, k_layout = jax.random.split(key)
        if self.difficulty is None:
            difficulty = jax.random.uniform(k_difficulty, (), jnp.float32)
        else:
            difficulty = jnp.float32(self.difficulty)
        return skymaze_level(k_layout, difficulty)


GENERATORS = {g.name: g for g in (Skymaze("skymaze_irreversible_path_hard", HARD_DIFFICULTY),
                                  Skymaze("skymaze_irreversible_path_varied", None))}

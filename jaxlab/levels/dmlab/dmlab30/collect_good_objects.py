"""rooms_collect_good_objects_train / _test (DMLab-30): collect the good objects, avoid the bad.

One hand-built room. Each episode draws a config: a pair of objects (A bad,
-1; B good, +1) and one of two "environments" (looks). 10 A, 10 B and the
player's spawn take 21 distinct positions of a 10 x 9 grid with 150-unit
spacing. Nothing respawns; every object counts, and the episode ends
(terminates) once any 10 have been taken (DMLab waits 0.2 s more; here it
ends at once), 60 s otherwise. The room is 15 x 14 cells (1500 x 1400
units) of floor; the 10 x 9 grid (1350 x 1200 units) sits in its middle.

Configs (A/B, look): train draws one of (hat/can, 0), (cake/balloon, 0),
(cake/balloon, 1) uniformly; test is always the held-out (hat/can, 1).
A look is a level theme plus a wall variation letter (``looks.COLLECT_LOOKS``).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.generator import ConfigGenerator
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, concat_pickups, pickup_set
from jaxlab.levels.dmlab.dmlab30 import looks
from jaxlab.levels.dmlab.dmlab30.room_maps import cells_from_rows, wall_variation
from jaxlab.levels.dmlab.procedural.cells import sample_cells

EPISODE_SECONDS = 60.0
NUM_EACH = 10                 # objects of each kind
END_AFTER = 10                # objects taken (of any kind) that end the episode
GRID_COLS, GRID_ROWS, GRID_SPACING = 10, 9, 150.0
GRID_ORIGIN = (175.0, 200.0)  # (x, y) units of grid slot (0, 0): the grid is centred in the room

# 15 x 14 cells of floor inside the walls.
ROOM = cells_from_rows(["*" * 17] + ["*" + " " * 15 + "*"] * 14 + ["*" * 17])

#: (bad object, good object, look index) of each config; the last is the held-out test config
CONFIGS = np.array([[looks.HAT, looks.CAN, 0],
                    [looks.CAKE, looks.BALLOON, 0],
                    [looks.CAKE, looks.BALLOON, 1],
                    [looks.HAT, looks.CAN, 1]], np.int32)
TRAIN_CONFIGS, TEST_CONFIGS = (0, 1, 2), (3,)


def grid_slots() -> np.ndarray:
    """float32[90, 2] world (x, y) units of the object/spawn grid slots, row-major over
    (GRID_ROWS, GRID_COLS): slot (j, i) is GRID_ORIGIN + GRID_SPACING * (i, j)."""
    i, j = np.meshgrid(np.arange(GRID_COLS), np.arange(GRID_ROWS), indexing="xy")
    xy = np.stack([GRID_ORIGIN[0] + GRID_SPACING * i.ravel(), GRID_ORIGIN[1] + GRID_SPACING * j.ravel()], -1)
    return xy.astype(np.float32)


def draw_slots(key: jax.Array, k: int) -> jnp.ndarray:
    """float32[k, 2] world (x, y) of ``k`` distinct grid slots drawn uniformly, in random order."""
    rc, _ = sample_cells(key, jnp.ones((GRID_ROWS, GRID_COLS), bool), k)
    return jnp.asarray(grid_slots())[rc[:, 0] * GRID_COLS + rc[:, 1]]


def config_level(key: jax.Array, config) -> Level:
    """The Level of config ``config`` (int32[], a row of CONFIGS) with positions drawn from ``key``."""
    bad, good, look = (jnp.asarray(CONFIGS)[config, i] for i in range(3))
    themes = jnp.asarray([t for t, _ in looks.COLLECT_LOOKS], jnp.int32)
    walls = jnp.asarray([looks.variation_code(v) for _, v in looks.COLLECT_LOOKS], jnp.int32)
    pos = draw_slots(key, 2 * NUM_EACH + 1)
    objects = concat_pickups(
        pickup_set(pos[:NUM_EACH], looks.collect_object_kind(bad), -1.0, counts=True),
        pickup_set(pos[NUM_EACH:2 * NUM_EACH], looks.collect_object_kind(good), 1.0, counts=True))
    return assemble_level(ROOM, wall_variation(ROOM, walls[look]), jnp.zeros((1, 2), jnp.int32),
                          jnp.zeros((1,), bool), objects, pos[2 * NUM_EACH:], jnp.ones((1,), bool),
                          EPISODE_SECONDS, theme=themes[look], switch_theme=themes[look],
                          end_after_pickups=END_AFTER)


GENERATORS = {
    "rooms_collect_good_objects_train":
        ConfigGenerator("rooms_collect_good_objects_train", TRAIN_CONFIGS, config_level),
    "rooms_collect_good_objects_test":
        ConfigGenerator("rooms_collect_good_objects_test", TEST_CONFIGS, config_level),
}

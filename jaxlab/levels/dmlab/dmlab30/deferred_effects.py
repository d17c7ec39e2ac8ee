"""rooms_exploit_deferred_effects_train / _test (DMLab-30): a costly box that pays later.

Room 1 (5 x 5 cells) holds 10 apples (+1), the spawn and, in some configs,
the box (-3, a switch: taking it brightens the floor, i.e. the level's theme
becomes the bright one, and unlocks a SWITCH_LOCK door). Room 2 (5 x 5 cells,
east of room 1 through a door) holds 10 cakes (+10). The 12 room-1 slots
(apples, box, spawn) and the 10 cakes are distinct random cells of their
rooms, drawn per episode. Every object counts: the episode ends (terminates)
after any 10 pickups, or at 60 s.

Configs (CONFIGS rows): train draws one of three uniformly; test is the
held-out fourth. DMLab spaces its 5 x 5 slots 120 units apart; here a slot is
a cell centre (100 units). Config 1 has no room 2 (its cells are walls).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.dmlab30 import looks
from jaxlab.levels.dmlab.dmlab30.room_maps import cells_from_rows, region_mask, wall_variation
from jaxlab.levels.dmlab.generator import ConfigGenerator
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.object_catalogue import SHUT_LOCK, SWITCH_LOCK
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, concat_pickups, pickup_set
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy, sample_cells

EPISODE_SECONDS = 60.0
NUM_APPLES, NUM_CAKES, END_AFTER = 10, 10, 10
APPLE_REWARD, CAKE_REWARD, BOX_REWARD = 1.0, 10.0, -3.0

TWO_ROOMS = cells_from_rows(["*************",
                             "*     *     *",
                             "*     *     *",
                             "*     I     *",
                             "*     *     *",
                             "*     *     *",
                             "*************"])
ONE_ROOM = cells_from_rows(["*************",
                            "*     *******",
                            "*     *******",
                            "*     *******",
                            "*     *******",
                            "*     *******",
                            "*************"])
DOOR_CELL = (3, 6)
ROOM1 = region_mask(TWO_ROOMS, 1, 6, 1, 6)     # bool[7, 13]: the 25 cells of room 1
ROOM2 = region_mask(TWO_ROOMS, 1, 6, 7, 12)    # bool[7, 13]: the 25 cells of room 2

DARK, BRIGHT = looks.DEFERRED_DARK_THEME, looks.DEFERRED_BRIGHT_THEME
#: config -> (two rooms, box, door lock, theme, theme once the box is taken)
CONFIGS = np.array([[0, 1, 0, DARK, BRIGHT],                 # train 1: one room, the box brightens the floor
                    [1, 0, SHUT_LOCK, DARK, DARK],           # train 2: the door never opens, dark floor
                    [1, 0, 0, BRIGHT, BRIGHT],               # train 3: the door is open, bright floor
                    [1, 1, SWITCH_LOCK, DARK, BRIGHT]],      # test: the box opens the door
                   np.int32)
TRAIN_CONFIGS, TEST_CONFIGS = (0, 1, 2), (3,)


def config_level(key: jax.Array, config) -> Level:
    """The Level of config ``config`` (int32[], a CONFIGS row) with object cells drawn from ``key``."""
    two_rooms, has_box, lock, theme, switch_theme = (jnp.asarray(CONFIGS)[config, i] for i in range(5))
    two_rooms, has_box = two_rooms > 0, has_box > 0
    k1, k2 = jax.random.split(key)
    rows = TWO_ROOMS.shape[0]
    room1 = cell_centre_xy(sample_cells(k1, jnp.asarray(ROOM1), NUM_APPLES + 2)[0], rows)
    room2 = cell_centre_xy(sample_cells(k2, jnp.asarray(ROOM2), NUM_CAKES)[0], rows)
    objects = concat_pickups(
        pickup_set(room1[:NUM_APPLES], looks.APPLE_KIND, APPLE_REWARD, counts=True),
        pickup_set(room1[NUM_APPLES:NUM_APPLES + 1], looks.BOX_KIND, BOX_REWARD, has_box, switch=True,
                   counts=True),
        pickup_set(room2, looks.CAKE_KIND, CAKE_REWARD, two_rooms, counts=True))
    cells = jnp.where(two_rooms, jnp.asarray(TWO_ROOMS), jnp.asarray(ONE_ROOM))
    variation = wall_variation(cells, looks.variation_code(looks.DEFERRED_WALL))
    return assemble_level(cells, variation, jnp.asarray([DOOR_CELL], jnp.int32), two_rooms[None], objects,
                          room1[NUM_APPLES + 1:], jnp.ones((1,), bool), EPISODE_SECONDS,
                          door_lock=lock[None], theme=theme, switch_theme=switch_theme,
                          end_after_pickups=END_AFTER)


GENERATORS = {
    "rooms_exploit_deferred_effects_train":
        ConfigGenerator("rooms_exploit_deferred_effects_train", TRAIN_CONFIGS, config_level),
    "rooms_exploit_deferred_effects_test":
        ConfigGenerator("rooms_exploit_deferred_effects_test", TEST_CONFIGS, config_level),
}

"""natlab_fixed_large_map, natlab_varying_map_regrowth and natlab_varying_map_randomized (DMLab-30).

Mushroom foraging on desert terrain: each episode's layout (terrain, cacti,
rocks, shrubs, mushrooms, spawn points, time of day) comes from
``natlab_terrain``; this module makes it a ``Level``. The playable square
is floor; the far-terrain band around it is drawn but walled off (invisible
solid cells). A mushroom pays +1; in ``_regrowth`` it comes back at the same
place after its delay (about a minute, ``natlab_placement``), in the others
never. Cacti and rocks are solid (``Level.obstacle_pos``/``obstacle_radius``);
shrubs are not. Obstacles are drawn as billboards at their drawn sizes
(``Level.pickup_scale``) and never taken; a billboard faces the camera, so an
obstacle's yaw does not show. The time of day is the sky and its light
(``desert_day``, ``desert_dawn``, ``desert_night``). The player spawns at one
of the layout's 10 spawn points (``_fixed_large_map``: the map's fixed 10),
facing a random way. 120 s episodes; no early end.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.dmlab30 import natlab_placement as placement
from jaxlab.levels.dmlab.dmlab30.natlab_terrain import (VARIANTS, NatlabLayout, NatlabVariant, natlab_layout,
                                                        playable_cells)
from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.heights import GROUND_TERRAIN, SKY_INDEX
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX, PICKUP_TYPES
from jaxlab.levels.dmlab.procedural.assemble import PickupSet, assemble_level, concat_pickups, pickup_set
from jaxlab.levels.dmlab.units import DEFAULT_FPS

MUSHROOM_REWARD = 1.0
#: pickup kind of each obstacle kind (natlab_placement.CACTUS, ROCK, SHRUB)
OBSTACLE_PICKUP = np.asarray([PICKUP_INDEX["cactus"], PICKUP_INDEX["rock"], PICKUP_INDEX["shrub"]], np.int32)
#: the drawn height (units) of each obstacle kind's billboard at scale 1
OBSTACLE_DRAWN_HEIGHT = np.asarray([2.0 * PICKUP_TYPES[k].half_height for k in OBSTACLE_PICKUP], np.float32)
#: the first time-of-day sky (day, dawn, night follow in order)
FIRST_DESERT_SKY = SKY_INDEX["desert_day"]


def natlab_level(key: jax.Array, variant: NatlabVariant, fps: int = DEFAULT_FPS) -> Level:
    """The Level of one episode of natlab ``variant`` drawn from ``key``."""
    lay = natlab_layout(key, variant)
    cells = jnp.asarray(np.where(playable_cells(variant), CELL_FLOOR, CELL_WALL).astype(np.int8))
    respawn = jnp.where(lay.mushroom_respawn_seconds >= 0,
                        jnp.round(lay.mushroom_respawn_seconds * fps).astype(jnp.int32), -1)
    mushrooms = pickup_set(lay.mushroom_pos, PICKUP_INDEX["mushroom"], MUSHROOM_REWARD, lay.mushroom_valid,
                           respawn_frames=respawn)
    return assemble_level(cells, jnp.zeros_like(cells), jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool),
                          concat_pickups(mushrooms, obstacle_billboards(lay)), lay.spawn_pos, lay.spawn_valid,
                          variant.episode_seconds, floor_z=lay.floor_z, sky=FIRST_DESERT_SKY + lay.time_of_day,
                          obstacle_pos=lay.obstacle_pos, obstacle_radius=solid_radius(lay))


def obstacle_billboards(lay: NatlabLayout) -> PickupSet:
    """The billboards of ``lay``'s O obstacles: pickups of their kind and drawn size, never taken, paying
    nothing (invalid where the obstacle slot is unused)."""
    kind = jnp.clip(lay.obstacle_kind, 0, len(OBSTACLE_PICKUP) - 1)
    drawn = lay.obstacle_height / jnp.asarray(OBSTACLE_DRAWN_HEIGHT)[kind]
    return pickup_set(lay.obstacle_pos, jnp.asarray(OBSTACLE_PICKUP)[kind], 0.0, lay.obstacle_valid, takeable=False,
                      scale=drawn)


def solid_radius(lay: NatlabLayout):
    """float32[O] the radius (units) within which each of ``lay``'s obstacles blocks: cacti and rocks; 0 for
    shrubs and unused slots."""
    solid = lay.obstacle_valid & (lay.obstacle_kind != placement.SHRUB)
    return jnp.where(solid, lay.obstacle_radius, 0.0)


class Natlab(LevelGenerator):
    """A natlab level (``variant``: one of ``natlab_terrain.VARIANTS``)."""

    ground = GROUND_TERRAIN

    def __init__(self, variant: NatlabVariant):
        self.variant = variant
        self.name = variant.name

    def episode(self, key: jax.Array, level_index) -> Level:
        """The Level of a new episode drawn from ``key`` (``level_index`` unused)."""
        return natlab_level(key, self.variant)


GENERATORS = {name: Natlab(variant) for name, variant in VARIANTS.items()}

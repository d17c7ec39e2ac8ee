"""DeepMind Lab's natlab maps, which exist only as built BSP files, drawn with jaxlab's natlab terrain.

DMLab-30's natlab scripts name ``natlab_forage_ltm_<day|dawn|night>`` (one large fixed map at a time of day),
``natlab_forage_stm_NNN`` (100 maps whose mushrooms regrow) and ``natlab_forage_variable_NNN`` (100 maps
whose mushrooms do not). Their BSP files cannot be read, so such a name gets the terrain of the matching
jaxlab level (``jaxlab.levels.dmlab.dmlab30.natlab``: ``natlab_fixed_large_map``,
``natlab_varying_map_regrowth``, ``natlab_varying_map_randomized``), drawn from the name: the same name always
gives the same map (terrain, cacti, rocks, shrubs, mushrooms, spawn points, time of day; ``ltm``'s time of day
is its name's). Its spawn points and mushrooms reach the script as DeepMind Lab's entities do
(``info_player_start``; ``frag_mushroom_desert_01a`` with its ``origin`` on the ground and, where it regrows, a
``wait`` of its delay in seconds), so ``updateSpawnVars`` and ``createPickup`` act on them as in DeepMind Lab;
the cacti, rocks and shrubs are drawn and block as in the jaxlab level, outside the script's reach.
"""
from __future__ import annotations

import dataclasses
import re
import zlib
from typing import Dict, Optional

import jax
import numpy as np

from jaxlab.levels.dmlab.dmlab30 import natlab
from jaxlab.levels.dmlab.dmlab30.natlab_terrain import TIME_OF_DAY, VARIANTS, natlab_layout, playable_cells
from jaxlab.levels.dmlab.heights import height_cell_of
from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL, ParsedMap
from jaxlab.levels.dmlab.procedural.assemble import PickupSet
from jaxlab.levels.dmlab.quake_layout import LAYOUT_CELLS, ConvertedMap

MUSHROOM_CLASS = "frag_mushroom_desert_01a"
#: map name pattern -> the jaxlab natlab level whose terrain stands in for it
FAMILIES = {
    re.compile(r"natlab_forage_ltm_(day|dawn|night)"): "natlab_fixed_large_map",
    re.compile(r"natlab_forage_stm_[0-9]{3}"): "natlab_varying_map_regrowth",
    re.compile(r"natlab_forage_variable_[0-9]{3}"): "natlab_varying_map_randomized",
}


@dataclasses.dataclass(frozen=True)
class TerrainMap(ConvertedMap):
    """A ConvertedMap whose level has heights under a desert sky and obstacles the script does not see.

    decor: the Level's ``floor_z``, ``sky``, ``obstacle_pos`` and ``obstacle_radius``, and the obstacles'
    billboards as the Level's ``pickup_*`` fields of a ``PickupSet`` ([O] each), put after the script's.
    """

    decor: Dict[str, np.ndarray] = dataclasses.field(default_factory=dict)


def terrain_map(name: str) -> Optional[TerrainMap]:
    """The TerrainMap standing in for DeepMind Lab's built map ``name``, None when no family names it."""
    level = next((level for pattern, level in FAMILIES.items() if pattern.fullmatch(name)), None)
    if level is None:
        return None
    variant = VARIANTS[level]
    lay = jax.tree.map(np.asarray, natlab_layout(jax.random.PRNGKey(zlib.crc32(name.encode())), variant))
    time_of_day = name.rsplit("_", 1)[-1]
    sky = natlab.FIRST_DESERT_SKY + (TIME_OF_DAY.index(time_of_day) if time_of_day in TIME_OF_DAY
                                     else int(lay.time_of_day))
    playable = playable_cells(variant)
    cells = np.where(playable, CELL_FLOOR, CELL_WALL).astype(np.int8)
    rows = cells.shape[0]
    floor_z = np.asarray(lay.floor_z, np.float32)

    def origin(x, y):   # on the ground; float32 positions written so that they read back exactly
        row, col = height_cell_of(floor_z, rows, float(x), float(y))
        return f"{float(x):.9g} {float(y):.9g} {float(floor_z[int(row), int(col)]):.9g}"
    entities = [{"classname": "info_player_start", "origin": origin(x, y)}
                for (x, y), ok in zip(lay.spawn_pos, lay.spawn_valid) if ok]
    for (x, y), ok, wait in zip(lay.mushroom_pos, lay.mushroom_valid, lay.mushroom_respawn_seconds):
        if ok:
            entities.append({"classname": MUSHROOM_CLASS, "origin": origin(x, y),
                             **({"wait": f"{float(wait):.9g}"} if wait > 0 else {})})
    billboards = natlab.obstacle_billboards(lay)
    decor = {"floor_z": floor_z, "sky": np.int32(sky), "obstacle_pos": np.asarray(lay.obstacle_pos, np.float32),
             "obstacle_radius": np.asarray(natlab.solid_radius(lay), np.float32),
             **{f"pickup_{field}": np.asarray(getattr(billboards, field)) for field in PickupSet.__dataclass_fields__}}
    spawns = tuple((rows - 1 - int(y // CELL_SIZE), int(x // CELL_SIZE)) for x, y in lay.spawn_pos[lay.spawn_valid])
    parsed = ParsedMap(cells=cells, variation=np.zeros_like(cells), spawns=spawns, pickups=(), floor_z=floor_z)
    note = (f"DeepMind Lab has {name!r} only as a built BSP file; jaxlab draws its own terrain of "
            f"{level} for it")
    return TerrainMap(parsed=parsed, spawn_vars=tuple(entities), layout=LAYOUT_CELLS, origin=(0.0, 0.0),
                      notes=(note,), decor=decor)


def decorated(level: Level, terrain: TerrainMap) -> Level:
    """``level`` (built from ``terrain``'s cells and the script's entities) with the terrain's heights, sky,
    obstacles, and the obstacles' billboards after the script's pickups (never taken, paying nothing); a
    pickup field the billboards do not set holds the bank's padding value there (``Level.PAD_VALUES``)."""
    d, n = terrain.decor, len(terrain.decor["pickup_valid"])
    joined = {}
    for field in (f.name for f in dataclasses.fields(Level) if f.name.startswith("pickup_")):
        have = np.asarray(getattr(level, field))
        extra = d[field] if field in d else np.full((n,) + have.shape[1:], Level.PAD_VALUES.get(field, 0), have.dtype)
        joined[field] = np.concatenate([have, extra])
    return level.replace(floor_z=d["floor_z"], sky=d["sky"], obstacle_pos=d["obstacle_pos"],
                         obstacle_radius=d["obstacle_radius"], **joined)

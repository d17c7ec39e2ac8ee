"""The DMLab pickup table: names, rewards, whether a pickup is a goal, and looks.

A REWARD pickup pays its reward and disappears; a GOAL pickup pays its reward
and ends the map (the player respawns, the episode goes on).

The first rows are DMLab's fruit and goals; after them come the procedural
objects, keys and the teleport pad of ``object_catalogue`` (its docstring
gives the index ranges and the jit-safe ``object_kind`` / ``key_kind``),
then natlab's mushroom and desert obstacles (from ``FIRST_DESERT_KIND``), then laser tag's gadget
and item pickups and its players' looks (from ``FIRST_ARENA_KIND``), and last DMLab's language
objects (``language_objects``, from ``FIRST_LANGUAGE_KIND``).
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Tuple

from jaxlab.levels.dmlab import gadgets as _gad
from jaxlab.levels.dmlab import language_objects as _lang
from jaxlab.levels.dmlab import object_catalogue as _cat
from jaxlab.levels.dmlab.units import PLAYER_HEIGHT


class PickupType(NamedTuple):
    """One row of the pickup table (host-side data).

    shape: silhouette (object_catalogue.SHAPE_CODES, or a language object's
    ``language_objects.SHAPE_PREFIX + shape``); pattern: surface pattern
    (object_catalogue.OBJECT_PATTERNS + language_objects.NEW_PATTERNS) drawn in ``color2`` (None:
    derived from ``color``, see ``pattern_color``); radius: half-width of the
    sprite, and its pickup radius; height: half-height (None: ``radius``).
    """

    name: str
    reward: float
    is_goal: bool
    color: Tuple[int, int, int]   # sprite colour, RGB 0..255
    radius: float                 # sprite radius, game units
    shape: str = "ball"
    pattern: str = "plain"
    color2: Optional[Tuple[int, int, int]] = None
    height: Optional[float] = None

    @property
    def pattern_color(self) -> Tuple[int, int, int]:
        """The second (pattern) colour, derived from ``color`` when not given."""
        return self.color2 if self.color2 is not None else _cat.second_colour(self.color)

    @property
    def half_height(self) -> float:
        """Half the sprite's height, units."""
        return self.radius if self.height is None else self.height


_FRUIT_AND_GOALS: Tuple[PickupType, ...] = (
    PickupType("apple_reward", 1.0, False, (200, 30, 35), 14.0),
    PickupType("lemon_reward", -1.0, False, (235, 220, 40), 13.0),
    PickupType("strawberry_reward", 2.0, False, (235, 60, 120), 11.0),
    PickupType("fungi_reward", -10.0, False, (150, 105, 70), 13.0),
    PickupType("goal", 10.0, True, (60, 140, 255), 22.0),
    PickupType("watermelon_goal", 20.0, True, (40, 170, 60), 22.0),
    PickupType("mango_goal", 100.0, True, (255, 150, 30), 20.0),
)
assert len(_FRUIT_AND_GOALS) == _cat.FIRST_OBJECT_KIND

#: natlab's desert: the mushroom it forages (+1) and its obstacles, drawn at a per-pickup scale
#: (``Level.pickup_scale``); obstacles are never taken (``pickup_takeable`` False)
_DESERT: Tuple[PickupType, ...] = (
    PickupType("mushroom", 1.0, False, (225, 215, 190), 10.0, "ball", "spots", (170, 60, 45), 8.0),
    PickupType("cactus", 0.0, False, (60, 140, 70), 22.0, "pillar", "stripes", (40, 105, 50), 150.0),
    PickupType("rock", 0.0, False, (128, 116, 104), 45.0, "ball", "spots", (100, 92, 84), 45.0),
    PickupType("shrub", 0.0, False, (110, 128, 60), 45.0, "ball", "checks", (80, 100, 45), 65.0),
)
#: index of the first desert kind (after the catalogue's)
FIRST_DESERT_KIND = _cat.NUM_CATALOGUE_KINDS

#: laser tag (``gadgets``): its gadget and item pickups (no reward: their effects are the arena's), then one
#: look per player colour (players are drawn as sprites of these kinds, never placed as pickups)
_ARENA: Tuple[PickupType, ...] = (
    PickupType("orb_gadget", 0.0, False, (240, 90, 40), 14.0, "diamond", "belt", (255, 220, 120)),
    PickupType("beam_gadget", 0.0, False, (60, 210, 230), 14.0, "diamond", "stripes", (230, 250, 255)),
    PickupType("disc_gadget", 0.0, False, (150, 80, 230), 14.0, "diamond", "checks", (235, 220, 255)),
    PickupType("shield_boost", 0.0, False, (230, 40, 50), 14.0, "cross", "plain"),
    PickupType("armour", 0.0, False, (235, 200, 40), 15.0, "box", "stripes", (150, 120, 20)),
) + tuple(PickupType(f"player_{i}", 0.0, False, colour, _gad.PLAYER_RADIUS_DRAWN, "pillar", "belt", (40, 40, 45),
                     PLAYER_HEIGHT / 2.0) for i, colour in enumerate(_gad.PLAYER_COLOURS))
#: index of the first laser-tag kind, and of the first player look (player i is drawn as kind FIRST_PLAYER_KIND + i)
FIRST_ARENA_KIND = FIRST_DESERT_KIND + len(_DESERT)
FIRST_PLAYER_KIND = FIRST_ARENA_KIND + len(_gad.ARENA_PICKUPS)

#: index of the first language object (they come last, so every other kind keeps its index)
FIRST_LANGUAGE_KIND = FIRST_ARENA_KIND + len(_ARENA)
assert FIRST_LANGUAGE_KIND == _lang.FIRST_LANGUAGE_KIND, "language_objects.FIRST_LANGUAGE_KIND must follow the table"

PICKUP_TYPES: Tuple[PickupType, ...] = (_FRUIT_AND_GOALS + tuple(PickupType(*row) for row in _cat.catalogue_rows())
                                        + _DESERT + _ARENA + tuple(PickupType(*row) for row in _lang.language_rows()))
assert len(PICKUP_TYPES) == FIRST_LANGUAGE_KIND + _lang.NUM_LANGUAGE_OBJECTS

PICKUP_INDEX = {p.name: i for i, p in enumerate(PICKUP_TYPES)}
assert len(PICKUP_INDEX) == len(PICKUP_TYPES)


def pickup_kind(name: str) -> int:
    """Index of pickup ``name`` in PICKUP_TYPES; ValueError with suggestions if unknown."""
    from jaxlab.errors import unknown_name_error

    if name not in PICKUP_INDEX:
        raise unknown_name_error("pickup", name, PICKUP_INDEX)
    return PICKUP_INDEX[name]

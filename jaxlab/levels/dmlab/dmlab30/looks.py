"""Every look choice of the DMLab-30 rooms_* levels, in one place.

Objects are catalogue objects (``object_catalogue``: shape x colour x
pattern) whose colours echo DMLab's tints; rooms take a level theme
(``LEVEL_THEMES``: floor, ceiling, default walls) and, where DMLab recolours
walls, a wall variation letter. Levels ask this module only, so a look can
change here without touching a level.
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.levels.dmlab.object_catalogue import (OBJECT_COLOUR_NAMES, OBJECT_PATTERNS, OBJECT_SHAPES,
                                                  TELEPORT_PAD_KIND, object_kind)
from jaxlab.levels.dmlab.pickup_types import pickup_kind
from jaxlab.levels.dmlab.themes import LEVEL_THEME_NAMES

__all__ = ["TELEPORT_PAD_KIND"]


def catalogue(shape: str, colour: str, pattern: str = "plain") -> int:
    """The PICKUP_TYPES index (int) of the catalogue object ``colour``/``pattern``/``shape``."""
    return object_kind(OBJECT_SHAPES.index(shape), OBJECT_COLOUR_NAMES.index(colour),
                       OBJECT_PATTERNS.index(pattern))


def theme(name: str) -> int:
    """The ``Level.theme`` id (int) of the level theme called ``name`` (e.g. "sandstone")."""
    return LEVEL_THEME_NAMES.index(name)


def variation_code(letter: str) -> int:
    """The ``Level.variation`` code of wall variation ``letter`` ('A'..'Z' -> 1..26; '' -> 0, the
    theme's own walls)."""
    return ord(letter) - ord("A") + 1 if letter else 0


# -- rooms_collect_good_objects: hat, can, cake, balloon (DMLab tints: blue, yellow, green, pink)
HAT, CAN, CAKE, BALLOON = 0, 1, 2, 3
_COLLECT_KINDS = (catalogue("triangle", "blue"), catalogue("pillar", "yellow"),
                  catalogue("box", "green", "belt"), catalogue("ball", "pink"))


def collect_object_kind(obj) -> jnp.ndarray:
    """int32 (shape of ``obj``): the look of collect-good object ``obj`` (HAT, CAN, CAKE or BALLOON;
    may be traced)."""
    return jnp.asarray(_COLLECT_KINDS, jnp.int32)[obj]


#: the two "environments" of collect-good-objects: (theme id, wall variation letter). Default: a
#: sandy (orange) floor and green walls; "replaceWallAndFloor": a blue floor and red walls.
COLLECT_LOOKS = ((theme("sandstone"), "F"), (theme("ice"), "L"))

# -- rooms_exploit_deferred_effects
APPLE_KIND = pickup_kind("apple_reward")           # DMLab's own apple
CAKE_KIND = catalogue("box", "red", "belt")        # the cake, tinted red
BOX_KIND = catalogue("box", "white", "checks")     # the cube
#: the floor starts dark; the box (or an open door) makes it bright. Walls: the theme's own.
DEFERRED_DARK_THEME, DEFERRED_BRIGHT_THEME = theme("night"), theme("lab")
DEFERRED_WALL = ""

# -- rooms_select_nonmatching_object: 6 shapes x 6 colours = 36 objects (DMLab: 12 shapes x 3 variants)
_CHOICE_SHAPES = ("ball", "box", "diamond", "triangle", "pillar", "cross")
_CHOICE_COLOURS = ("red", "green", "blue", "yellow", "purple", "orange")
_CHOICE_KINDS = tuple(catalogue(s, c) for s in _CHOICE_SHAPES for c in _CHOICE_COLOURS)
#: how many distinct objects the match / non-match objects are drawn from
NUM_CHOICE_OBJECTS = len(_CHOICE_KINDS)


def choice_object_kind(index) -> jnp.ndarray:
    """int32 (shape of ``index``): the look of choice object ``index`` in [0, NUM_CHOICE_OBJECTS)
    (may be traced)."""
    return jnp.asarray(_CHOICE_KINDS, jnp.int32)[index]


NONMATCH_THEME, NONMATCH_WALL = theme("brick"), ""

# -- rooms_watermaze: a plain pool-blue arena
WATERMAZE_THEME, WATERMAZE_WALL = theme("ice"), ""

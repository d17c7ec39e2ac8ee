"""Every look choice of the DMLab-30 rooms_* levels, in one place.

Object looks (``PICKUP_TYPES`` indices) and level themes / wall variation
letters. Until ``jaxlab.levels.dmlab.object_catalogue`` (geometric objects
drawn from shape x colour x pattern, a teleport pad, level themes) is on
main, the objects are stand-ins from the seven built-in pickup looks, chosen
to echo DMLab's tints; everything a level needs to know goes through the
functions below, so switching to the catalogue changes this module only.
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.levels.dmlab.pickup_types import pickup_kind

# -- rooms_collect_good_objects: hat, can, cake, balloon (DMLab tints: blue, yellow, green, pink)
HAT, CAN, CAKE, BALLOON = 0, 1, 2, 3
_COLLECT_KINDS = (pickup_kind("goal"), pickup_kind("lemon_reward"), pickup_kind("watermelon_goal"),
                  pickup_kind("strawberry_reward"))


def collect_object_kind(obj) -> jnp.ndarray:
    """int32: the look of collect-good object ``obj`` (HAT, CAN, CAKE or BALLOON; may be traced)."""
    return jnp.asarray(_COLLECT_KINDS, jnp.int32)[obj]


#: the two "environments" of collect-good-objects: (theme id, wall variation letter)
COLLECT_LOOKS = ((1, "G"), (2, "R"))   # default (green walls), replaced wall and floor (red walls)

# -- rooms_exploit_deferred_effects
APPLE_KIND = pickup_kind("apple_reward")
CAKE_KIND = pickup_kind("mango_goal")      # a cake tinted red in DMLab; a distinct look here
BOX_KIND = pickup_kind("fungi_reward")     # the cube
DEFERRED_DARK_THEME, DEFERRED_BRIGHT_THEME = 3, 4
DEFERRED_WALL = "B"

# -- rooms_select_nonmatching_object
TELEPORT_PAD_KIND = pickup_kind("goal")
_CHOICE_KINDS = tuple(pickup_kind(n) for n in ("apple_reward", "lemon_reward", "strawberry_reward",
                                               "fungi_reward", "watermelon_goal", "mango_goal"))
#: how many distinct objects the match / non-match objects are drawn from
NUM_CHOICE_OBJECTS = len(_CHOICE_KINDS)


def choice_object_kind(index) -> jnp.ndarray:
    """int32: the look of choice object ``index`` in [0, NUM_CHOICE_OBJECTS) (may be traced)."""
    return jnp.asarray(_CHOICE_KINDS, jnp.int32)[index]


NONMATCH_THEME, NONMATCH_WALL = 5, "C"

# -- rooms_watermaze
WATERMAZE_THEME, WATERMAZE_WALL = 0, "W"


def variation_code(letter: str) -> int:
    """The ``Level.variation`` code of wall variation ``letter`` ('A'..'Z' -> 1..26)."""
    return ord(letter) - ord("A") + 1

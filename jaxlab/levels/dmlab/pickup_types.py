"""The DMLab pickup table: names, rewards and whether a pickup is a goal.

A REWARD pickup pays its reward and disappears; a GOAL pickup pays its reward
and ends the map (the player respawns, the episode goes on).
"""
from __future__ import annotations

from typing import NamedTuple, Tuple


class PickupType(NamedTuple):
    """One row of the pickup table (host-side data)."""

    name: str
    reward: float
    is_goal: bool
    color: Tuple[int, int, int]   # sprite colour, RGB 0..255
    radius: float                 # sprite radius, game units


PICKUP_TYPES: Tuple[PickupType, ...] = (
    PickupType("apple_reward", 1.0, False, (200, 30, 35), 14.0),
    PickupType("lemon_reward", -1.0, False, (235, 220, 40), 13.0),
    PickupType("strawberry_reward", 2.0, False, (235, 60, 120), 11.0),
    PickupType("fungi_reward", -10.0, False, (150, 105, 70), 13.0),
    PickupType("goal", 10.0, True, (60, 140, 255), 22.0),
    PickupType("watermelon_goal", 20.0, True, (40, 170, 60), 22.0),
    PickupType("mango_goal", 100.0, True, (255, 150, 30), 20.0),
)

PICKUP_INDEX = {p.name: i for i, p in enumerate(PICKUP_TYPES)}


def pickup_kind(name: str) -> int:
    """Index of pickup ``name`` in PICKUP_TYPES; ValueError with suggestions if unknown."""
    from jaxlab.errors import unknown_name_error

    if name not in PICKUP_INDEX:
        raise unknown_name_error("pickup", name, PICKUP_INDEX)
    return PICKUP_INDEX[name]

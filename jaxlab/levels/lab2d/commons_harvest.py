"""Commons harvest: a common-pool resource game (jaxlab's own, after Melting Pot's; not dmlab2d's).

Apples grow in patches on a meadow. Eating one pays +1. An eaten apple
regrows with a probability that rises with the number of apples still
standing within ``regrowthRadius`` cells, and never once none is left
nearby: a patch harvested bare is gone for the episode. Players can zap
(``fireZap``) whoever stands in front of them; a zapped player freezes for
``freezeFrames`` frames.

Map legend: ``W`` wall, ``' '`` grass, ``A`` apple, ``a`` an apple spot
eaten bare, ``P`` grass with a player spawn point.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from jaxlab.levels.lab2d import checks, multiplayer, sprites
from jaxlab.levels.lab2d.spec import State, Transition, GridSpec
from jaxlab.settings import SettingError

NAME = "jaxlab_commons_harvest"

DEFAULT_SETTINGS: Dict[str, Any] = {
    "numPlayers": 5,
    "episodeLengthFrames": 1000,
    "spriteSize": 8,
    # Regrowth chance per frame of an eaten apple, by the number of apples
    # within regrowthRadius (last entry: that many or more).
    "regrowthProbabilities": (0.0, 0.0025, 0.005, 0.025),
    "regrowthRadius": 2,
    "appleReward": 1.0,
    "zapLength": 3,
    "zapRadius": 1,
    "zapCooldown": 10,
    "freezeFrames": 25,
}

MAP = (
    "WWWWWWWWWWWWWWWWWWWWWWWW",
    "WP    P     P    P    PW",
    "W                      W",
    "W   A        A         W",
    "W  AAA      AAA    A   W",
    "W   AAA    AAAAA  AAA  W",
    "W    A      AAA  AAAAA W",
    "W            A    AAA  W",
    "W     A        W   A   W",
    "W    AAA      WW       W",
    "W   AAAAA    WW    A   W",
    "W    AAA          AAA  W",
    "W     A     A    AAAAA W",
    "W          AAA    AAA  W",
    "W           A      A   W",
    "W                      W",
    "WP    P     P    P    PW",
    "WWWWWWWWWWWWWWWWWWWWWWWW",
)

LAYERS = ("background", "logic", "items", "avatars", "overlay")


def build(settings: Optional[Dict[str, Any]] = None) -> GridSpec:
    """The commons-harvest GridSpec for ``settings`` (merged over ``DEFAULT_SETTINGS``).

    Raises ``UnknownNameError`` for an unknown setting and ``SettingError`` (a
    ValueError) for a value out of its range (``checks.RANGES``), more players
    than spawn points or a regrowth table that is empty.
    """
    s = checks.merge_settings(NAME, DEFAULT_SETTINGS, settings)
    rows = checks.check_map(NAME, MAP)
    num_players = checks.check_players(NAME, "numPlayers", s["numPlayers"], rows, "P")
    if not s["regrowthProbabilities"]:
        raise SettingError("regrowthProbabilities", "a non-empty sequence of numbers in [0, 1]",
                           s["regrowthProbabilities"], NAME)

    avatars = multiplayer.avatar_states(num_players)
    zap_overlay, zap, zap_hits = multiplayer.zap(s, frozen=avatars)
    states = (
        State("grass", "background", sprites.GRASS, char=" "),
        multiplayer.spawn_state("spawn_point"),
        State("apple", "items", sprites.APPLE, char="A", groups=("apple",)),
        State("apple_eaten", "items", sprites.APPLE_STALK, char="."),
        multiplayer.wall_state("avatars"),
    ) + avatars + (zap_overlay,)
    char_map = {
        "W": ("wall",),
        " ": ("grass",),
        "A": ("grass", "apple"),
        "a": ("grass", "apple_eaten"),
        "P": ("grass", "spawn_point"),
    }
    players = multiplayer.players_at(avatars, "spawn_point")
    contacts = multiplayer.eating(avatars, "apple", becomes="apple_eaten", reward=s["appleReward"])
    transitions = (
        Transition("apple_eaten", "apple", probability=tuple(s["regrowthProbabilities"]),
                   neighbour="apple", radius=s["regrowthRadius"]),
    )
    return multiplayer.world(
        NAME, s,
        map=rows,
        char_map=char_map,
        layers=LAYERS,
        states=states,
        players=players,
        contacts=contacts,
        beams=(zap,),
        beam_hits=zap_hits,
        transitions=transitions,
    )

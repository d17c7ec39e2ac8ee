"""Clean up: a public-good game (jaxlab's own, after Melting Pot's; not dmlab2d's).

A river runs down the west of the map and an orchard grows in the east.
Every frame each clean water cell silts up (becomes polluted) with a small
probability. Eaten apples regrow only while the river is clean enough: the
regrowth probability is scaled by max(0, 1 - f / pollutionThreshold), f the
polluted fraction of the river, so once f reaches the threshold no apple
grows. Eating an apple pays +1; cleaning pays nothing. The cleaning beam
(``fireClean``) turns polluted water back to clean water; the zap
(``fireZap``) freezes the players it hits for ``freezeFrames`` frames.

Map legend: ``W`` wall, ``~`` clean water, ``%`` polluted water, ``' '``
sand, ``.`` grass, ``A`` apple, ``a`` an orchard spot without an apple,
``P`` sand with a player spawn point.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from jaxlab.levels.lab2d import checks, multiplayer, sprites
from jaxlab.levels.lab2d.spec import Beam, BeamHit, Depletion, State, Transition, GridSpec

NAME = "jaxlab_clean_up"

DEFAULT_SETTINGS: Dict[str, Any] = {
    "numPlayers": 5,
    "episodeLengthFrames": 1000,
    "spriteSize": 8,
    "pollutionProbability": 0.002,   # per clean water cell per frame
    "appleRespawnProbability": 0.05,  # per orchard spot per frame, river clean
    "pollutionThreshold": 0.4,       # polluted fraction at which apples stop growing
    "appleReward": 1.0,
    "cleanLength": 5,
    "cleanRadius": 1,
    "cleanCooldown": 2,
    "zapLength": 3,
    "zapRadius": 1,
    "zapCooldown": 10,
    "freezeFrames": 25,
}

MAP = (
    "WWWWWWWWWWWWWWWWWWWWWWWW",
    "W~~~~~~   P   ....aAaAaW",
    "W~~%~~~       ....AaAaaW",
    "W~~~~~~~  P   ...aaAaAaW",
    "W ~~~~~~      ....AaaAaW",
    "W  ~~%~~~ P   ...aAaAaaW",
    "W  ~~~~~~     ....aaAaAW",
    "W   ~~~~~ P   ...aAaaAaW",
    "W   ~~%~~     ....AaAaaW",
    "W  ~~~~~~ P   ...aaAaAaW",
    "W ~~~~~~      ....AaAaAW",
    "W~~~~~%~  P   ...aAaAaaW",
    "W~~~~~~       ....aAaaAW",
    "W~%~~~~   P   ...AaaAaAW",
    "W~~~~~~       ....AaAaaW",
    "W~~~~%~~  P   ...aAaAaAW",
    "W~~~~~~~      ....aaAaAW",
    "WWWWWWWWWWWWWWWWWWWWWWWW",
)

LAYERS = ("background", "logic", "items", "avatars", "overlay")


def build(settings: Optional[Dict[str, Any]] = None) -> GridSpec:
    """The clean-up GridSpec for ``settings`` (merged over ``DEFAULT_SETTINGS``).

    Raises ``UnknownNameError`` for an unknown setting and ``SettingError`` (a
    ValueError) for a value out of its range (``checks.RANGES``) or more players
    than spawn points.
    """
    s = checks.merge_settings(NAME, DEFAULT_SETTINGS, settings)
    rows = checks.check_map(NAME, MAP)
    num_players = checks.check_players(NAME, "numPlayers", s["numPlayers"], rows, "P")

    avatars = multiplayer.avatar_states(num_players)
    zap_overlay, zap, zap_hits = multiplayer.zap(s, frozen=avatars)
    states = (
        State("sand", "background", sprites.SAND, char=" "),
        State("grass", "background", sprites.GRASS, char=" "),
        State("water", "background", sprites.WATER, char="~", groups=("river",)),
        State("polluted", "background", sprites.POLLUTED, char="%", groups=("river",)),
        multiplayer.spawn_state("spawn_point"),
        State("apple", "items", sprites.APPLE, char="A", groups=("apple",)),
        State("apple_eaten", "items", sprites.APPLE_STALK, char="."),
        multiplayer.wall_state("avatars"),
    ) + avatars + (
        State("clean_beam", "overlay", sprites.beam(sprites.CLEAN_COLOUR), char="+"),
        zap_overlay,
    )
    char_map = {
        "W": ("wall",),
        "~": ("water",),
        "%": ("polluted",),
        " ": ("sand",),
        ".": ("grass",),
        "A": ("grass", "apple"),
        "a": ("grass", "apple_eaten"),
        "P": ("sand", "spawn_point"),
    }
    players = multiplayer.players_at(avatars, "spawn_point")
    contacts = multiplayer.eating(avatars, "apple", becomes="apple_eaten", reward=s["appleReward"])
    beams = (
        Beam("fireClean", length=s["cleanLength"], radius=s["cleanRadius"], overlay="clean_beam",
             cooldown=s["cleanCooldown"]),
        zap,
    )
    beam_hits = (BeamHit("fireClean", "polluted", becomes="water"),) + zap_hits
    river_health = Depletion(state="polluted", among=("water", "polluted"),
                             zero_at=s["pollutionThreshold"])
    transitions = (
        Transition("water", "polluted", probability=s["pollutionProbability"]),
        Transition("apple_eaten", "apple", probability=s["appleRespawnProbability"],
                   depletion=river_health),
    )
    return multiplayer.world(
        NAME, s,
        map=rows,
        char_map=char_map,
        layers=LAYERS,
        states=states,
        players=players,
        contacts=contacts,
        beams=beams,
        beam_hits=beam_hits,
        transitions=transitions,
    )

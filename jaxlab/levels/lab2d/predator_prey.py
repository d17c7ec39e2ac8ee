"""Predator and prey: predators hunt prey that graze on apples (jaxlab's own game, not dmlab2d's chase_eat).

Players 1..numPredators are predators (spawning along the north wall), the
rest are prey (spawning in the south half). A prey walking onto an apple
eats it (+1); the spot regrows an apple with a constant probability per
frame. A predator moving onto a prey catches it: the predator gets +1, the
prey -1, and the prey leaves the map for ``preyRespawnFrames`` frames
before it returns at a free prey spawn point. Predators do not eat apples.

Map legend: ``W`` wall, ``' '`` grass, ``A`` apple, ``X`` predator spawn
point, ``Y`` prey spawn point.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from jaxlab.levels.lab2d import checks, multiplayer, sprites
from jaxlab.levels.lab2d.spec import Contact, State, Transition, GridSpec

NAME = "jaxlab_predator_prey"

DEFAULT_SETTINGS: Dict[str, Any] = {
    "numPredators": 2,
    "numPrey": 3,
    "episodeLengthFrames": 1000,
    "spriteSize": 8,
    "appleRegrowProbability": 0.02,  # per eaten spot per frame
    "appleReward": 1.0,
    "catchReward": 1.0,     # to the predator
    "caughtReward": -1.0,   # to the prey
    "preyRespawnFrames": 30,
}

MAP = (
    "WWWWWWWWWWWWWWWWWWWW",
    "WX       XX       XW",
    "W                  W",
    "W  AA    WW    AA  W",
    "W  A     WW     A  W",
    "W                  W",
    "W     A      A     W",
    "W WWW    AA    WWW W",
    "W        AA        W",
    "W   A          A   W",
    "W   Y   WWWW   Y   W",
    "W                  W",
    "W  A    A  A    A  W",
    "W WWW          WWW W",
    "W      A    A      W",
    "W   AA        AA   W",
    "W                  W",
    "W  Y    Y  Y    Y  W",
    "WY                YW",
    "WWWWWWWWWWWWWWWWWWWW",
)

LAYERS = ("background", "logic", "items", "avatars")


def build(settings: Optional[Dict[str, Any]] = None) -> GridSpec:
    """The chase-and-eat GridSpec for ``settings`` (merged over ``DEFAULT_SETTINGS``).

    Players are the predators first, then the prey. Raises
    ``UnknownNameError`` for an unknown setting and ``ValueError`` for more
    predators or prey than their spawn points, or no player at all.
    """
    s = checks.merge_settings(NAME, DEFAULT_SETTINGS, settings)
    rows = checks.check_map(NAME, MAP)
    num_predators = checks.check_players(NAME, "numPredators", s["numPredators"], rows, "X", minimum=0)
    num_prey = checks.check_players(NAME, "numPrey", s["numPrey"], rows, "Y", minimum=0)
    if num_predators + num_prey < 1:
        raise ValueError(f"{NAME}: settings 'numPredators' and 'numPrey': expected at least one player in all, "
                         "got 0 and 0")

    predators = multiplayer.avatar_states(num_predators, prefix="predator", art=sprites.predator,
                                          groups=("player", "predator"))
    prey = multiplayer.avatar_states(num_prey, prefix="prey", art=sprites.prey, first_colour=num_predators,
                                     groups=("player", "prey"))
    states = (
        State("grass", "background", sprites.GRASS, char=" "),
        multiplayer.spawn_state("predator_spawn"),
        multiplayer.spawn_state("prey_spawn"),
        State("apple", "items", sprites.APPLE, char="A", groups=("apple",)),
        State("apple_eaten", "items", sprites.APPLE_STALK, char="."),
        multiplayer.wall_state("avatars"),
    ) + predators + prey
    char_map = {
        "W": ("wall",),
        " ": ("grass",),
        "A": ("grass", "apple"),
        "X": ("grass", "predator_spawn"),
        "Y": ("grass", "prey_spawn"),
    }
    players = multiplayer.players_at(predators, "predator_spawn") + multiplayer.players_at(prey, "prey_spawn")
    eating = multiplayer.eating(prey, "apple", becomes="apple_eaten", reward=s["appleReward"])
    catching = tuple(
        Contact(mover=hunter.name, other=victim.name, reward=s["catchReward"],
                other_reward=s["caughtReward"], respawn_frames=s["preyRespawnFrames"])
        for hunter in predators for victim in prey
    )
    transitions = (Transition("apple_eaten", "apple", probability=s["appleRegrowProbability"]),)
    return multiplayer.world(
        NAME, s,
        map=rows,
        char_map=char_map,
        layers=LAYERS,
        states=states,
        players=players,
        contacts=eating + catching,
        transitions=transitions,
    )

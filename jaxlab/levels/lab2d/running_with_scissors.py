"""Running with scissors: rock-paper-scissors in the matrix (jaxlab's own; not dmlab2d's).

Rock, paper and scissors lie about an arena. Walking onto one puts it in
the player's inventory; the spot regrows its item slowly. Every player
starts holding one of each. Zapping another player (``fireZap``) resolves
a rock-paper-scissors matrix game on the two inventories taken as mixed
strategies: the firer gets x·A·y and the zapped player y·A·x, with
A = ((0, -1, 1), (1, 0, -1), (-1, 1, 0)) over (rock, paper, scissors), so
rock beats scissors, scissors beat paper and paper beats rock. Both
inventories then go back to (1, 1, 1) and the zapped player respawns
after ``respawnFrames`` frames.

Map legend: ``W`` wall, ``' '`` ground, ``r``/``p``/``s`` a rock, paper or
scissors item, ``P`` ground with a player spawn point.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from jaxlab.levels.lab2d import checks, multiplayer, sprites
from jaxlab.levels.lab2d.spec import Contact, MatrixGame, State, Transition, GridSpec

NAME = "jaxlab_running_with_scissors"

ITEMS = ("rock", "paper", "scissors")
#: Rows: the firer's item; columns: the zapped player's (order ITEMS).
PAYOFF = ((0.0, -1.0, 1.0), (1.0, 0.0, -1.0), (-1.0, 1.0, 0.0))

DEFAULT_SETTINGS: Dict[str, Any] = {
    "numPlayers": 2,
    "episodeLengthFrames": 1000,
    "spriteSize": 8,
    "itemRegrowProbability": 0.01,  # per empty spot per frame
    "zapLength": 4,
    "zapRadius": 1,
    "zapCooldown": 5,
    "respawnFrames": 25,
    "minItems": 1,
}

MAP = (
    "WWWWWWWWWWWWWWWWWWWWW",
    "WP        r        PW",
    "W  rrr         sss  W",
    "W  rr     W     ss  W",
    "W         W         W",
    "W    s    W    r    W",
    "W                   W",
    "W  WWW    p    WWW  W",
    "W      r     s      W",
    "W   p           p   W",
    "WP    WW  P  WW    PW",
    "W   s           r   W",
    "W      p     s      W",
    "W  WWW         WWW  W",
    "W         p         W",
    "W    p    W    s    W",
    "W         W         W",
    "W  pp     W     rs  W",
    "W  ppp         psr  W",
    "WP        r        PW",
    "WWWWWWWWWWWWWWWWWWWWW",
)

LAYERS = ("background", "logic", "items", "avatars", "overlay")

_ITEM_ART = {"rock": sprites.ROCK_ITEM, "paper": sprites.PAPER_ITEM, "scissors": sprites.SCISSORS_ITEM}
_EMPTY_TINT = {"rock": (120, 116, 110), "paper": (226, 224, 210), "scissors": (170, 60, 76)}


def build(settings: Optional[Dict[str, Any]] = None) -> GridSpec:
    """The running-with-scissors GridSpec for ``settings`` (merged over ``DEFAULT_SETTINGS``).

    Raises ``UnknownNameError`` for an unknown setting and ``ValueError`` for
    more players than spawn points.
    """
    s = checks.merge_settings(NAME, DEFAULT_SETTINGS, settings)
    rows = checks.check_map(NAME, MAP)
    num_players = checks.check_players(NAME, "numPlayers", s["numPlayers"], rows, "P")

    avatars = multiplayer.avatar_states(num_players)
    zap_overlay, zap, _ = multiplayer.zap(s)  # a zap plays the matrix game instead of freezing
    item_states = tuple(State(item, "items", _ITEM_ART[item], char=item[0], groups=("item",))
                        for item in ITEMS)
    empty_states = tuple(State(f"{item}_empty", "items", sprites.empty_source(_EMPTY_TINT[item]), char=".")
                         for item in ITEMS)
    states = (
        State("ground", "background", sprites.DIRT, char=" "),
        multiplayer.spawn_state("spawn_point"),
    ) + item_states + empty_states + (
        multiplayer.wall_state("avatars"),
    ) + avatars + (zap_overlay,)
    char_map = {
        "W": ("wall",),
        " ": ("ground",),
        "r": ("ground", "rock"),
        "p": ("ground", "paper"),
        "s": ("ground", "scissors"),
        "P": ("ground", "spawn_point"),
    }
    players = multiplayer.players_at(avatars, "spawn_point")
    contacts = tuple(
        Contact(mover=a.name, other=item, becomes=f"{item}_empty", collect=index)
        for a in avatars for index, item in enumerate(ITEMS)
    )
    transitions = tuple(
        Transition(f"{item}_empty", item, probability=s["itemRegrowProbability"]) for item in ITEMS
    )
    game = MatrixGame(zap.action, payoff=PAYOFF, respawn_frames=s["respawnFrames"],
                      min_items=s["minItems"])
    return multiplayer.world(
        NAME, s,
        map=rows,
        char_map=char_map,
        layers=LAYERS,
        states=states,
        players=players,
        contacts=contacts,
        beams=(zap,),
        transitions=transitions,
        matrix_game=game,
        items=ITEMS,
        initial_inventory=(1, 1, 1),
    )

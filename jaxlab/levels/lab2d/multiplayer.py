"""The pieces every multi-player grid level repeats.

A wall state, invisible spawn states, one avatar state per player (distinct
colours, ``WORLD.TEXT`` characters '1'..), players at their spawn points
(``players_at``), apple eating (``eating``), the freezing zap (``zap``) and
the shared world conventions (``world``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence, Tuple

from jaxlab.levels.lab2d.spec import Beam, BeamHit, Contact, Player, State, View, GridSpec
from jaxlab.levels.lab2d.sprites import WALL, ZAP_COLOUR, Colour, avatar, beam, shade

#: One colour per player slot (players 1, 2, ...), far apart in hue.
PLAYER_COLOURS: Tuple[Colour, ...] = (
    (52, 101, 214),   # blue
    (214, 64, 54),    # red
    (236, 196, 40),   # yellow
    (146, 78, 202),   # violet
    (238, 128, 36),   # orange
    (36, 184, 176),   # teal
    (224, 96, 172),   # pink
    (128, 128, 128),  # grey
    (150, 206, 62),   # lime
    (118, 72, 40),    # brown
)


def player_colour(index: int) -> Colour:
    """Player ``index`` (0-based)'s colour; past the table, colours repeat darker."""
    base = PLAYER_COLOURS[index % len(PLAYER_COLOURS)]
    return shade(base, 0.7 ** (index // len(PLAYER_COLOURS)))


def player_char(index: int) -> str:
    """Player ``index`` (0-based)'s ``WORLD.TEXT`` character: '1'..'9', then 'a'.."""
    return "123456789abcdefghijklmnopqrstuvwxyz"[index % 35]


# -- states every level repeats ------------------------------------------------------------------


def wall_state(layer: str = "avatars") -> State:
    """An impassable wall on ``layer`` (the avatars' layer, so it blocks moves) that stops beams."""
    return State("wall", layer, WALL, char="#", groups=("wall",), blocks_beams=True)


def spawn_state(name: str, layer: str = "logic") -> State:
    """An invisible spawn point on ``layer``."""
    return State(name, layer, None, char=" ", groups=("spawn",))


def avatar_states(count: int, prefix: str = "player", art=avatar, layer: str = "avatars",
                  first_colour: int = 0, groups: Tuple[str, ...] = ("player",)) -> Tuple[State, ...]:
    """``count`` avatar states ``<prefix>1``.. on ``layer``, each drawn by
    ``art(colour)`` in its own colour (colours from ``first_colour`` on)."""
    return tuple(
        State(f"{prefix}{i + 1}", layer, art(player_colour(first_colour + i)),
              char=player_char(first_colour + i), groups=groups)
        for i in range(count)
    )


def players_at(avatars: Sequence[State], spawn: str) -> Tuple[Player, ...]:
    """One player per avatar state, in order, each spawning at a ``spawn`` state."""
    return tuple(Player(state=a.name, spawn=spawn) for a in avatars)


def eating(avatars: Sequence[State], other: str, becomes: str, reward: float) -> Tuple[Contact, ...]:
    """Contacts by which each of ``avatars`` walking onto ``other`` (an apple)
    turns it into ``becomes`` and gets ``reward``."""
    return tuple(Contact(mover=a.name, other=other, becomes=becomes, reward=reward) for a in avatars)


def zap(settings: Mapping[str, Any],
        frozen: Sequence[State] = ()) -> Tuple[State, Beam, Tuple[BeamHit, ...]]:
    """The zap: its overlay state ``zap_beam``, the ``fireZap`` beam drawn with
    it (settings ``zapLength``, ``zapRadius``, ``zapCooldown``) and one BeamHit
    per state of ``frozen`` that freezes it for ``settings["freezeFrames"]``
    frames (none when ``frozen`` is empty, e.g. a zap that plays a matrix game)."""
    overlay = State("zap_beam", "overlay", beam(ZAP_COLOUR), char="*")
    fire = Beam("fireZap", length=settings["zapLength"], radius=settings["zapRadius"],
                overlay=overlay.name, cooldown=settings["zapCooldown"])
    hits = tuple(BeamHit(fire.action, a.name, freeze_frames=settings["freezeFrames"]) for a in frozen)
    return overlay, fire, hits


#: What each player sees: 5 cells to either side, 9 ahead and 1 behind.
PLAYER_VIEW = View(left=5, right=5, forward=9, backward=1)


def world(name: str, settings: Mapping[str, Any], **fields: Any) -> GridSpec:
    """The GridSpec ``name`` with the conventions every multi-player level
    shares: relative movement, ``PLAYER_VIEW``, ``spriteSize`` and
    ``episodeLengthFrames`` from the merged ``settings`` (kept as the spec's
    settings); ``fields`` are the level's own (map, states, contacts, ...)."""
    return GridSpec(
        name=name,
        movement="relative",
        sprite_size=settings["spriteSize"],
        view=PLAYER_VIEW,
        episode_frames=settings["episodeLengthFrames"],
        settings=settings,
        **fields,
    )

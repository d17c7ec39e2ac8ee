"""Sprite art shared by the built-in grid levels (jaxlab's own).

8×8 ASCII pictures, one character per pixel, each character a key of the
sprite's palette ('.' is transparent); the kernel scales art to the world's
``sprite_size`` (8 or 16). Terrain (``WALL``, ``GRASS``, ``SAND``, ``DIRT``,
``WATER``, ``POLLUTED``), food (``APPLE``, ``APPLE_STALK``), rock-paper-scissors
items, and art drawn in a given colour (``empty_source``, ``beam``,
``avatar``, ``predator``, ``prey``); ``shade`` darkens or lightens a colour.
"""
from __future__ import annotations

from typing import Sequence, Tuple

from jaxlab.levels.lab2d.spec import Sprite

Colour = Tuple[int, int, int]

CLEAR = (0, 0, 0, 0)


def shade(colour: Sequence[int], factor: float) -> Colour:
    """``colour`` scaled by ``factor`` (<1 darker, >1 lighter), clipped to 0..255."""
    return tuple(max(0, min(255, int(round(c * factor)))) for c in colour[:3])


def _sprite(rows: Sequence[str], **palette) -> Sprite:
    """A Sprite from rows and keyword palette entries; '.' is always transparent."""
    colours = {".": CLEAR}
    colours.update(palette)
    return Sprite(rows=tuple(rows), palette=colours)


# -- terrain -------------------------------------------------------------------------------------

WALL = _sprite(
    (
        "oooxoooo",
        "oooxoooo",
        "xxxxxxxx",
        "oxoooooo",
        "oxoooooo",
        "xxxxxxxx",
        "ooooxooo",
        "ooooxooo",
    ),
    o=(112, 106, 120), x=(70, 66, 78),
)

GRASS = _sprite(
    (
        "gggggggg",
        "ggGggggg",
        "gggggGgg",
        "gggggggg",
        "gGgggggg",
        "ggggggGg",
        "gggGgggg",
        "gggggggg",
    ),
    g=(78, 148, 66), G=(96, 170, 80),
)

SAND = _sprite(
    (
        "ssssssss",
        "sssSssss",
        "ssssssSs",
        "sSssssss",
        "sssssSss",
        "ssSsssss",
        "ssssssss",
        "sssssSss",
    ),
    s=(214, 194, 140), S=(190, 170, 118),
)

DIRT = _sprite(
    (
        "dddddddd",
        "ddDddddd",
        "dddddDdd",
        "dDdddddd",
        "ddddDddd",
        "dddddddD",
        "ddDddddd",
        "dddddddd",
    ),
    d=(124, 96, 66), D=(104, 78, 52),
)

WATER = _sprite(
    (
        "wwwwwwww",
        "wwllwwww",
        "wlwwlwww",
        "wwwwwwww",
        "wwwwwllw",
        "wwwwlwwl",
        "wwwwwwww",
        "wwwwwwww",
    ),
    w=(40, 112, 196), l=(110, 170, 232),
)

POLLUTED = _sprite(
    (
        "pppppppp",
        "ppmmpppp",
        "pmmmmppp",
        "ppmmpppp",
        "pppppmmp",
        "ppppmmmm",
        "pppppmmp",
        "pppppppp",
    ),
    p=(72, 104, 84), m=(54, 66, 40),
)

# -- food ----------------------------------------------------------------------------------------

APPLE = _sprite(
    (
        "....b...",
        "....bll.",
        "..rrbr..",
        ".rrrrrr.",
        ".rwrrrr.",
        ".rrrrrr.",
        "..rrrr..",
        "........",
    ),
    r=(206, 30, 42), w=(248, 178, 178), b=(96, 62, 30), l=(72, 168, 58),
)

#: A bare stalk where an apple was eaten (drawn small so the ground shows).
APPLE_STALK = _sprite(
    (
        "........",
        "........",
        "........",
        "....l...",
        "...lb...",
        "....b...",
        "........",
        "........",
    ),
    b=(96, 62, 30), l=(72, 168, 58),
)

# -- rock, paper, scissors -----------------------------------------------------------------------

ROCK_ITEM = _sprite(
    (
        "........",
        "...kk...",
        "..kKkk..",
        ".kKkkkk.",
        ".kkkkkD.",
        "..kkkDD.",
        "...DD...",
        "........",
    ),
    k=(150, 146, 140), K=(200, 196, 190), D=(96, 92, 88),
)

PAPER_ITEM = _sprite(
    (
        "........",
        ".pppppf.",
        ".pqqqpff",
        ".pppppp.",
        ".pqqqqp.",
        ".pppppp.",
        ".pqqqpp.",
        "........",
    ),
    p=(246, 244, 230), q=(150, 160, 190), f=(206, 204, 188),
)

SCISSORS_ITEM = _sprite(
    (
        "........",
        ".h....h.",
        "..h..h..",
        "...hh...",
        "...tt...",
        "..t..t..",
        ".tt..tt.",
        "........",
    ),
    h=(200, 206, 214), t=(196, 40, 60),
)

def empty_source(colour: Sequence[int]) -> Sprite:
    """An exhausted resource cell (its item taken): four faint dots of ``colour``."""
    return _sprite(
        (
            "........",
            "........",
            "..e..e..",
            "........",
            "........",
            "..e..e..",
            "........",
            "........",
        ),
        e=tuple(colour[:3]),
    )


# -- beams ---------------------------------------------------------------------------------------


def beam(colour: Sequence[int], alpha: int = 150) -> Sprite:
    """A translucent beam overlay of ``colour`` with a brighter streak."""
    body = tuple(colour[:3]) + (alpha,)
    streak = shade(colour, 1.3) + (min(255, alpha + 60),)
    return _sprite(
        (
            "bbbbbbbb",
            "bbbsbbbb",
            "bbsbbbbb",
            "bbbbbsbb",
            "bbbbsbbb",
            "bsbbbbbb",
            "sbbbbbbb",
            "bbbbbbbb",
        ),
        b=body, s=streak,
    )


ZAP_COLOUR: Colour = (252, 236, 80)
CLEAN_COLOUR: Colour = (120, 236, 236)

# -- avatars -------------------------------------------------------------------------------------


def avatar(colour: Sequence[int]) -> Sprite:
    """A walker: head with eyes, body in ``colour``, darker outline and feet."""
    return _sprite(
        (
            "..oooo..",
            ".obbbbo.",
            ".oebbeo.",
            "..obbo..",
            ".obbbbo.",
            "o.obbo.o",
            "..o..o..",
            ".oo..oo.",
        ),
        b=tuple(colour[:3]), o=shade(colour, 0.55), e=(250, 250, 250),
    )


def predator(colour: Sequence[int]) -> Sprite:
    """A hunter: pointed ears, bared teeth, body in ``colour``."""
    return _sprite(
        (
            "o......o",
            "oo....oo",
            "obbbbbbo",
            "bebbbbeb",
            "bbbbbbbb",
            ".bwbwbb.",
            ".bbbbbb.",
            "..o..o..",
        ),
        b=tuple(colour[:3]), o=shade(colour, 0.5), e=(255, 236, 80), w=(250, 250, 250),
    )


def prey(colour: Sequence[int]) -> Sprite:
    """A small round grazer with long ears, body in ``colour``."""
    return _sprite(
        (
            "..o..o..",
            "..o..o..",
            "..bbbb..",
            ".bebbeb.",
            ".bbbbbb.",
            ".bbnnbb.",
            "..bbbb..",
            "...oo...",
        ),
        b=tuple(colour[:3]), o=shade(colour, 0.6), e=(20, 20, 20), n=(236, 140, 150),
    )

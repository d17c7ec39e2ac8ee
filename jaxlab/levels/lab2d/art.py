"""Sprite art and small building blocks shared by the built-in grid levels.

All art here is jaxlab's own: 8×8 ASCII pictures, one character per pixel,
each character a key of the sprite's palette ('.' is transparent). The
kernel scales art to the world's ``sprite_size`` (8 or 16).

Besides the art, this module holds the pieces every multi-player level
repeats: a wall state, invisible spawn states, one avatar state per player
(distinct colours), beam overlays, the freezing zap (``zap``), apple eating
(``eating``), players at their spawn points (``players_at``), the shared
world conventions (``multiplayer_world``), the spawn-count check
(``check_players``) and the settings merge (``merge_settings``) with
Lab2D-style camelCase names.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.grid.spec import Beam, BeamHit, Contact, Player, Sprite, State, View, GridSpec

Colour = Tuple[int, int, int]

CLEAR = (0, 0, 0, 0)

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


def multiplayer_world(name: str, settings: Mapping[str, Any], **fields: Any) -> GridSpec:
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


# -- settings ------------------------------------------------------------------------------------


def _coerce(key: str, default: Any, value: Any) -> Any:
    """``value`` converted to the type of ``default`` (strings as Lab2D passes them are parsed)."""
    if isinstance(default, bool):
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in ("true", "1", "yes"):
                return True
            if lowered in ("false", "0", "no"):
                return False
            raise ValueError(f"setting {key!r} expects a boolean, got {value!r}")
        return bool(value)
    if isinstance(default, int):
        if isinstance(value, str):
            value = float(value.strip())
        if float(value) != int(value):
            raise ValueError(f"setting {key!r} expects an integer, got {value!r}")
        return int(value)
    if isinstance(default, float):
        return float(value)
    if isinstance(default, tuple):
        if isinstance(value, str):
            value = [part for part in value.replace("(", "").replace(")", "").split(",") if part.strip()]
        items = tuple(value)
        if default and all(isinstance(d, float) for d in default):
            return tuple(float(v) for v in items)
        return items
    return value


def merge_settings(level: str, defaults: Mapping[str, Any],
                   settings: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """``defaults`` updated by ``settings``, each value coerced to its default's
    type; an unknown key raises ``UnknownNameError`` naming the close ones."""
    merged = dict(defaults)
    for key, value in dict(settings or {}).items():
        if key not in defaults:
            raise unknown_name_error(f"setting of {level}", key, defaults)
        merged[key] = _coerce(key, defaults[key], value)
    if merged.get("spriteSize", 8) not in (8, 16):
        raise ValueError(f"{level}: spriteSize must be 8 or 16, got {merged['spriteSize']}")
    if int(merged.get("episodeLengthFrames", 1)) < 1:
        raise ValueError(f"{level}: episodeLengthFrames must be positive")
    return merged


def check_map(level: str, rows: Sequence[str]) -> Tuple[str, ...]:
    """The map rows as a tuple, after checking they are non-empty and rectangular."""
    rows = tuple(rows)
    if not rows or any(len(row) != len(rows[0]) for row in rows):
        raise ValueError(f"{level}: map rows must all have the same length")
    return rows


def count_char(rows: Sequence[str], chars: str) -> int:
    """How many cells of ``rows`` hold one of ``chars``."""
    return sum(row.count(c) for row in rows for c in chars)


def check_players(level: str, label: str, count: int, rows: Sequence[str], spawn_chars: str,
                  minimum: int = 1) -> int:
    """``count`` (setting ``label``), after checking it lies between ``minimum``
    and the number of spawn cells (``spawn_chars``) in ``rows``."""
    spawns = count_char(rows, spawn_chars)
    if not minimum <= count <= spawns:
        raise ValueError(f"{level}: {label} must be {minimum}..{spawns}, got {count}")
    return count

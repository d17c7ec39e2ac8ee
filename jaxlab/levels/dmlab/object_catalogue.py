"""Procedural object looks appended to the pickup table (PICKUP_TYPES).

DMLab-30 levels such as the object-recognition, key-door and exploration
tasks need many distinguishable objects. They are made here from three
independent parts: a silhouette (OBJECT_SHAPES), a colour (OBJECT_COLOURS)
and a surface pattern in a second colour (OBJECT_PATTERNS). Every
combination is one pickup type named ``f"{colour}_{pattern}_{shape}"`` with
reward 0 and no goal: the level decides what taking it means.

Layout of PICKUP_TYPES (indices):

- ``0 .. FIRST_OBJECT_KIND - 1``: the original fruit and goal rows;
- ``FIRST_OBJECT_KIND + (shape * NUM_OBJECT_COLOURS + colour) * NUM_OBJECT_PATTERNS + pattern``:
  the objects (``object_kind``; shape, colour and pattern 0-based);
- ``FIRST_KEY_KIND + colour - 1``: the keys ``key_<colour>``, colour
  1..NUM_KEY_COLOURS (0 means "no key"; ``key_kind``);
- ``TELEPORT_PAD_KIND``: the teleport pad, the last row.

This module is plain data plus jit-friendly index helpers; it imports nothing
from the pickup table (which imports it), so there is no import cycle.
"""
from __future__ import annotations

from typing import Iterator, Optional, Tuple

import jax.numpy as jnp

RGB = Tuple[int, int, int]

# Silhouettes; the renderer and the top-down map know each by its code
# (its position in SHAPE_CODES). "key" and "pad" are used only by keys and
# the teleport pad.
OBJECT_SHAPES: Tuple[str, ...] = ("ball", "box", "diamond", "triangle", "pillar", "ring", "cross")
SHAPE_CODES: Tuple[str, ...] = OBJECT_SHAPES + ("key", "pad")

# Well-separated colours (hue, and lightness for white / black).
OBJECT_COLOURS: Tuple[Tuple[str, RGB], ...] = (
    ("red", (220, 40, 40)),
    ("green", (40, 190, 60)),
    ("blue", (45, 90, 235)),
    ("yellow", (240, 215, 40)),
    ("purple", (150, 60, 205)),
    ("orange", (250, 135, 20)),
    ("cyan", (40, 210, 215)),
    ("pink", (250, 130, 190)),
    ("white", (235, 235, 235)),
    ("black", (40, 40, 45)),
)
OBJECT_COLOUR_NAMES: Tuple[str, ...] = tuple(n for n, _ in OBJECT_COLOURS)
OBJECT_COLOUR_RGB = dict(OBJECT_COLOURS)

# Surface patterns: the second colour (see second_colour) covers horizontal
# bands (stripes), a checkerboard (checks), a grid of dots (spots) or one
# wide band around the middle (belt).
OBJECT_PATTERNS: Tuple[str, ...] = ("plain", "stripes", "checks", "spots", "belt")

# Keys and locked doors share these colours; a key or lock colour k is
# 1-based (KEY_COLOURS[k - 1]); 0 means no key / an ordinary door.
KEY_COLOURS: Tuple[str, ...] = ("red", "green", "blue", "yellow", "purple", "orange")
KEY_RGB: Tuple[RGB, ...] = tuple(OBJECT_COLOUR_RGB[c] for c in KEY_COLOURS)

NUM_OBJECT_SHAPES = len(OBJECT_SHAPES)
NUM_OBJECT_COLOURS = len(OBJECT_COLOURS)
NUM_OBJECT_PATTERNS = len(OBJECT_PATTERNS)
NUM_OBJECTS = NUM_OBJECT_SHAPES * NUM_OBJECT_COLOURS * NUM_OBJECT_PATTERNS
NUM_KEY_COLOURS = len(KEY_COLOURS)
#: ``Level.door_lock`` of a door that stays shut, and of one that opens when a switch is taken (a
#: lock 1..NUM_KEY_COLOURS opens with that key colour; 0: no lock)
SHUT_LOCK, SWITCH_LOCK = -1, -2

FIRST_OBJECT_KIND = 7                          # the fruit and goal rows come first
FIRST_KEY_KIND = FIRST_OBJECT_KIND + NUM_OBJECTS
TELEPORT_PAD_KIND = FIRST_KEY_KIND + NUM_KEY_COLOURS
NUM_CATALOGUE_KINDS = TELEPORT_PAD_KIND + 1    # the catalogue's kinds (PICKUP_TYPES continues with the desert's)

TELEPORT_PAD_RGB: RGB = (90, 255, 230)

# Sizes in game units: (half-width, half-height). A pillar is narrow and
# tall, a key wide and low, the pad wide and flat.
OBJECT_RADIUS = 16.0
_SIZE = {"pillar": (8.0, 26.0), "key": (18.0, 9.6), "pad": (26.0, 5.0)}


def second_colour(rgb: RGB) -> RGB:
    """The pattern colour of an object colour: dark on light colours, light on dark ones."""
    luma = 0.3 * rgb[0] + 0.55 * rgb[1] + 0.15 * rgb[2]
    if luma > 140:
        return tuple(int(round(0.25 * c)) for c in rgb)
    return tuple(int(round(c + 0.75 * (255 - c))) for c in rgb)


def object_name(shape: str, colour: str, pattern: str = "plain") -> str:
    """The pickup name of an object, e.g. ``red_stripes_box``."""
    return f"{colour}_{pattern}_{shape}"


def key_name(colour: str) -> str:
    """The pickup name of a key, e.g. ``key_red``."""
    return f"key_{colour}"


def catalogue_rows() -> Iterator[tuple]:
    """(name, reward, is_goal, color, radius, shape, pattern, color2, height) per
    catalogue row, in PICKUP_TYPES order from FIRST_OBJECT_KIND on."""
    for shape in OBJECT_SHAPES:
        radius, height = _SIZE.get(shape, (OBJECT_RADIUS, OBJECT_RADIUS))
        for colour, rgb in OBJECT_COLOURS:
            for pattern in OBJECT_PATTERNS:
                yield (object_name(shape, colour, pattern), 0.0, False, rgb, radius,
                       shape, pattern, second_colour(rgb), height)
    radius, height = _SIZE["key"]
    for colour, rgb in zip(KEY_COLOURS, KEY_RGB):
        yield (key_name(colour), 0.0, False, rgb, radius, "key", "plain", second_colour(rgb), height)
    radius, height = _SIZE["pad"]
    yield ("teleport_pad", 0.0, False, TELEPORT_PAD_RGB, radius, "pad", "plain", (255, 255, 255), height)


def object_kind(shape, colour, pattern=0):
    """PICKUP_TYPES index of an object; shape, colour and pattern are 0-based
    indices into OBJECT_SHAPES / OBJECT_COLOURS / OBJECT_PATTERNS (Python
    ints or int arrays of any matching shapes; jit/vmap-safe). Out-of-range
    values are clipped."""
    if all(isinstance(v, int) for v in (shape, colour, pattern)):
        s = min(max(shape, 0), NUM_OBJECT_SHAPES - 1)
        c = min(max(colour, 0), NUM_OBJECT_COLOURS - 1)
        p = min(max(pattern, 0), NUM_OBJECT_PATTERNS - 1)
        return FIRST_OBJECT_KIND + (s * NUM_OBJECT_COLOURS + c) * NUM_OBJECT_PATTERNS + p
    s = jnp.clip(jnp.asarray(shape, jnp.int32), 0, NUM_OBJECT_SHAPES - 1)
    c = jnp.clip(jnp.asarray(colour, jnp.int32), 0, NUM_OBJECT_COLOURS - 1)
    p = jnp.clip(jnp.asarray(pattern, jnp.int32), 0, NUM_OBJECT_PATTERNS - 1)
    return jnp.int32(FIRST_OBJECT_KIND) + (s * NUM_OBJECT_COLOURS + c) * NUM_OBJECT_PATTERNS + p


def key_kind(colour):
    """PICKUP_TYPES index of the key of 1-based key colour ``colour``
    (1..NUM_KEY_COLOURS; Python int or int array, jit-safe; clipped)."""
    if isinstance(colour, int):
        return FIRST_KEY_KIND + min(max(colour, 1), NUM_KEY_COLOURS) - 1
    return jnp.int32(FIRST_KEY_KIND - 1) + jnp.clip(jnp.asarray(colour, jnp.int32), 1, NUM_KEY_COLOURS)


def key_colour_of_kind(kind):
    """Inverse of key_kind: the 1-based key colour of a pickup kind, 0 if it is not a key (jit-safe)."""
    k = jnp.asarray(kind, jnp.int32)
    is_key = (k >= FIRST_KEY_KIND) & (k < FIRST_KEY_KIND + NUM_KEY_COLOURS)
    return jnp.where(is_key, k - (FIRST_KEY_KIND - 1), 0)


def key_colour_index(name: str) -> int:
    """The 1-based key colour of a colour name (ValueError with suggestions if unknown)."""
    from jaxlab.errors import unknown_name_error

    if name not in KEY_COLOURS:
        raise unknown_name_error("key colour", name, KEY_COLOURS)
    return KEY_COLOURS.index(name) + 1


def shape_code(shape: Optional[str]) -> int:
    """Renderer code of a shape name (None -> ball)."""
    return SHAPE_CODES.index(shape or "ball")


def pattern_code(pattern: Optional[str]) -> int:
    """Renderer code of a pattern name (None -> plain)."""
    return OBJECT_PATTERNS.index(pattern or "plain")

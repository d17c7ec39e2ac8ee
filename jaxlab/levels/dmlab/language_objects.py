"""DMLab's language objects as pickup kinds: shape x colour x pattern, and their sizes.

DMLab's language levels (language_select_described_object and friends) name
objects by shape, colour, pattern and size. Every shape, colour and pattern
combination is one pickup type named ``lang_<colour>_<pattern>_<shape>`` with
reward 0 and no goal (the level decides what taking it means). Size is not a
kind: a level puts ``size_scale`` into ``Level.pickup_scale``.

Layout: the language objects come after every other row of PICKUP_TYPES,
``FIRST_LANGUAGE_KIND + (shape * NUM_LANGUAGE_COLOURS + colour) *
NUM_LANGUAGE_PATTERNS + pattern`` (``language_object_kind``; indices 0-based
into the three tables). ``pickup_types`` checks that FIRST_LANGUAGE_KIND is
where the rows start.

A row's ``shape`` is ``SHAPE_PREFIX + shape`` (the renderer draws it from its
silhouette mask) and its ``pattern`` the surface pattern that draws the
language pattern (``DRAWN_PATTERN``), in the catalogue's second colour.
"""
from __future__ import annotations

import colorsys
from typing import Iterator, Tuple

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab import object_catalogue as _cat

LANGUAGE_SHAPES: Tuple[str, ...] = (
    "apple2", "ball", "balloon", "banana", "bottle", "cake", "can", "car", "cassette", "chair",
    "cherries", "cow", "flower", "fork", "fridge", "guitar", "hair_brush", "hammer", "hat", "ice_lolly",
    "jug", "key", "knife", "ladder", "mug", "pencil", "pig", "pincer", "plant", "saxophone",
    "shoe", "spoon", "suitcase", "tennis_racket", "tomato", "toothbrush", "tree", "tv", "wine_glass", "zebra")

#: DMLab's colours as (hue 0..360, saturation 0..100, lightness 0..100)
_HSL = (("black", (0, 0, 0)), ("gray", (0, 0, 50)), ("white", (0, 0, 100)), ("red", (0, 100, 50)),
        ("orange", (30, 100, 50)), ("brown", (30, 51, 40)), ("yellow", (60, 100, 50)), ("green", (120, 100, 50)),
        ("cyan", (180, 100, 50)), ("blue", (240, 100, 50)), ("purple", (270, 100, 50)),
        ("magenta", (300, 100, 50)), ("pink", (330, 100, 50)))


def _hsl_rgb(h: float, s: float, l: float) -> Tuple[int, int, int]:
    """RGB 0..255 of an HSL colour (h degrees, s and l percent), the standard conversion."""
    rgb = colorsys.hls_to_rgb(h / 360.0, l / 100.0, s / 100.0)
    return tuple(int(np.floor(v * 255.0 + 0.5 + 1e-9)) for v in rgb)   # halves round up, float error aside


LANGUAGE_COLOURS: Tuple[Tuple[str, Tuple[int, int, int]], ...] = tuple((n, _hsl_rgb(*hsl)) for n, hsl in _HSL)

LANGUAGE_PATTERNS: Tuple[str, ...] = (
    "chequered", "crosses", "diagonal_stripe", "discs", "hex", "pinstripe", "solid", "spots", "swirls")
SOLID = LANGUAGE_PATTERNS.index("solid")

#: the surface pattern (object_catalogue.OBJECT_PATTERNS + NEW_PATTERNS) that draws each language pattern
NEW_PATTERNS: Tuple[str, ...] = ("crosses", "diagonal_stripe", "discs", "hex", "pinstripe", "swirls")
DRAWN_PATTERN = {**{p: p for p in NEW_PATTERNS}, "chequered": "checks", "solid": "plain", "spots": "spots"}
SHAPE_PREFIX = "language_"

LANGUAGE_SIZES: Tuple[str, ...] = ("small", "medium", "large")
_SCALE = {"small": 0.62, "medium": 1.0, "large": 1.62}
_SCALE_OVERRIDES = {("banana", "large"): 1.58, ("car", "large"): 1.02, ("car", "medium"): 0.8,
                    ("cassette", "large"): 1.45, ("cassette", "medium"): 0.95, ("chair", "large"): 1.15,
                    ("chair", "medium"): 0.84, ("cow", "large"): 1.06, ("cow", "medium"): 0.81,
                    ("hat", "large"): 1.55, ("pig", "large"): 1.52}

NUM_LANGUAGE_SHAPES = len(LANGUAGE_SHAPES)
NUM_LANGUAGE_COLOURS = len(LANGUAGE_COLOURS)
NUM_LANGUAGE_PATTERNS = len(LANGUAGE_PATTERNS)
NUM_LANGUAGE_OBJECTS = NUM_LANGUAGE_SHAPES * NUM_LANGUAGE_COLOURS * NUM_LANGUAGE_PATTERNS
#: PICKUP_TYPES index of the first language object: every earlier row keeps its index
FIRST_LANGUAGE_KIND = 381

#: (half-width, half-height) in units of each shape at medium size: a car is wider than tall, a ladder taller
EXTENTS = {
    "apple2": (14, 15), "ball": (14, 14), "balloon": (13, 22), "banana": (20, 12), "bottle": (8, 22),
    "cake": (18, 14), "can": (10, 15), "car": (28, 14), "cassette": (20, 13), "chair": (14, 22),
    "cherries": (15, 16), "cow": (26, 18), "flower": (12, 22), "fork": (7, 22), "fridge": (14, 26),
    "guitar": (12, 28), "hair_brush": (8, 22), "hammer": (14, 22), "hat": (20, 13), "ice_lolly": (9, 20),
    "jug": (15, 17), "key": (20, 10), "knife": (6, 22), "ladder": (12, 28), "mug": (16, 14),
    "pencil": (5, 24), "pig": (22, 15), "pincer": (12, 20), "plant": (15, 22), "saxophone": (13, 25),
    "shoe": (20, 11), "spoon": (7, 22), "suitcase": (20, 16), "tennis_racket": (12, 25), "tomato": (15, 13),
    "toothbrush": (5, 22), "tree": (18, 28), "tv": (20, 20), "wine_glass": (10, 20), "zebra": (26, 20)}
assert tuple(EXTENTS) == LANGUAGE_SHAPES


def size_scale(shape, size) -> float:
    """Drawn-size factor (for ``Level.pickup_scale``) of a shape (name or index into LANGUAGE_SHAPES)
    at a size (name or index into LANGUAGE_SIZES): small 0.62, medium 1, large 1.62, but for DMLab's
    per-shape overrides."""
    shape = LANGUAGE_SHAPES[shape] if isinstance(shape, (int, np.integer)) else shape
    size = LANGUAGE_SIZES[size] if isinstance(size, (int, np.integer)) else size
    if shape not in LANGUAGE_SHAPES or size not in LANGUAGE_SIZES:
        from jaxlab.errors import unknown_name_error
        raise (unknown_name_error("language shape", shape, LANGUAGE_SHAPES) if shape not in LANGUAGE_SHAPES
               else unknown_name_error("language size", size, LANGUAGE_SIZES))
    return _SCALE_OVERRIDES.get((shape, size), _SCALE[size])


#: float32[NUM_LANGUAGE_SHAPES, 3]: ``size_scale`` of each shape (row) and size (column), for jit code
SIZE_SCALES = np.asarray([[size_scale(s, z) for z in LANGUAGE_SIZES] for s in LANGUAGE_SHAPES], np.float32)


def language_object_name(shape, colour, pattern) -> str:
    """The pickup name of a language object from 0-based indices (Python ints) into LANGUAGE_SHAPES,
    LANGUAGE_COLOURS and LANGUAGE_PATTERNS, e.g. ``lang_red_solid_hat``."""
    return f"lang_{LANGUAGE_COLOURS[colour][0]}_{LANGUAGE_PATTERNS[pattern]}_{LANGUAGE_SHAPES[shape]}"


def language_object_kind(shape, colour, pattern):
    """PICKUP_TYPES index of a language object; shape, colour and pattern are 0-based indices into
    LANGUAGE_SHAPES / LANGUAGE_COLOURS / LANGUAGE_PATTERNS (Python ints -> int, or int arrays of
    broadcasting shapes -> int32 array; jit/vmap-safe). Out-of-range values are clipped."""
    if all(isinstance(v, (int, np.integer)) for v in (shape, colour, pattern)):
        s = min(max(int(shape), 0), NUM_LANGUAGE_SHAPES - 1)
        c = min(max(int(colour), 0), NUM_LANGUAGE_COLOURS - 1)
        p = min(max(int(pattern), 0), NUM_LANGUAGE_PATTERNS - 1)
        return FIRST_LANGUAGE_KIND + (s * NUM_LANGUAGE_COLOURS + c) * NUM_LANGUAGE_PATTERNS + p
    s = jnp.clip(jnp.asarray(shape, jnp.int32), 0, NUM_LANGUAGE_SHAPES - 1)
    c = jnp.clip(jnp.asarray(colour, jnp.int32), 0, NUM_LANGUAGE_COLOURS - 1)
    p = jnp.clip(jnp.asarray(pattern, jnp.int32), 0, NUM_LANGUAGE_PATTERNS - 1)
    return jnp.int32(FIRST_LANGUAGE_KIND) + (s * NUM_LANGUAGE_COLOURS + c) * NUM_LANGUAGE_PATTERNS + p


def language_rows() -> Iterator[tuple]:
    """(name, reward, is_goal, color, radius, shape, pattern, color2, height) per language object, in
    PICKUP_TYPES order from FIRST_LANGUAGE_KIND on (radius, height: half-width, half-height in units)."""
    for s, shape in enumerate(LANGUAGE_SHAPES):
        half_w, half_h = EXTENTS[shape]
        for c, (_, rgb) in enumerate(LANGUAGE_COLOURS):
            for p, pattern in enumerate(LANGUAGE_PATTERNS):
                yield (language_object_name(s, c, p), 0.0, False, rgb, float(half_w), SHAPE_PREFIX + shape,
                       DRAWN_PATTERN[pattern], _cat.second_colour(rgb), float(half_h))

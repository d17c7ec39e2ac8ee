"""The looks of a level with heights (``Level.sky``, ``heights.SKY_NAMES``): sky, far ground, light.

Each sky names the colours of its zenith, its horizon and what lies below
the horizon past the drawn ground (far terrain in the desert, more sky
under skymaze's floating platforms), a haze distance, the light that
multiplies the ground (the time of day), and how the ground is drawn:
``sky`` draws each height cell as a floating platform slab
(``PLATFORM_THICKNESS`` units under its top, blue-brick risers, a floor
colour per height level, as skymaze's platforms), the desert
skies draw solid sand lit by its slope. Tables are numpy, indexed by the sky.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.heights import NUM_SKIES, SKY_NAMES

#: units of platform under a skymaze platform's top (a 3.125-unit floor layer over a 40-unit body)
PLATFORM_THICKNESS = 43.125
SOLID_THICKNESS = 1.0e5

#: per sky: zenith RGB, horizon RGB, below-horizon RGB, haze distance (units), light RGB factors
_LOOKS = {
    "ceiling": ((92, 94, 108), (92, 94, 108), (118, 108, 92), 1.0e9, (1.0, 1.0, 1.0)),
    "sky": ((40, 90, 190), (170, 200, 235), (120, 150, 205), 6000.0, (1.0, 1.0, 1.0)),
    "desert_day": ((70, 130, 215), (200, 215, 230), (205, 185, 150), 5000.0, (1.0, 1.0, 1.0)),
    "desert_dawn": ((95, 80, 140), (240, 160, 110), (190, 140, 110), 3500.0, (1.0, 0.78, 0.62)),
    "desert_night": ((8, 10, 30), (30, 35, 70), (30, 32, 48), 2500.0, (0.32, 0.36, 0.55)),
}
assert tuple(_LOOKS) == SKY_NAMES

ZENITH_RGB = np.asarray([_LOOKS[n][0] for n in SKY_NAMES], np.float32)      # [NUM_SKIES, 3]
HORIZON_RGB = np.asarray([_LOOKS[n][1] for n in SKY_NAMES], np.float32)     # [NUM_SKIES, 3]
BELOW_RGB = np.asarray([_LOOKS[n][2] for n in SKY_NAMES], np.float32)       # [NUM_SKIES, 3]
HAZE_UNITS = np.asarray([_LOOKS[n][3] for n in SKY_NAMES], np.float32)      # [NUM_SKIES]
LIGHT_RGB = np.asarray([_LOOKS[n][4] for n in SKY_NAMES], np.float32)       # [NUM_SKIES, 3]
#: per sky: the ground is a floating platform slab (True) or solid terrain
SLABS = np.asarray([n == "sky" for n in SKY_NAMES], bool)
THICKNESS = np.where(SLABS, PLATFORM_THICKNESS, SOLID_THICKNESS).astype(np.float32)

#: skymaze: a floor colour per height level (20 units): hues a golden-ratio turn apart
PLATFORM_HUE_STEP = 0.6180339887
PLATFORM_LEVEL_UNITS = 20.0
RISER_RGB = np.asarray((52, 78, 170), np.float32)   # blue brick
#: the desert's sand, and how much its slope darkens it (light from the sun's side)
SAND_RGB = np.asarray((214, 182, 128), np.float32)
SUN = np.asarray((0.45, 0.3, 0.84), np.float32)     # unit-ish direction towards the sun (x, y, z)
assert len(ZENITH_RGB) == NUM_SKIES


def platform_floor_rgb(level):
    """float32[..., 3] RGB 0..255 of the platform floor at height level ``level`` (float32[...],
    height / PLATFORM_LEVEL_UNITS): pastel hues, neighbouring levels far apart on the colour wheel
    (DMLab gives each height its own floor texture)."""
    hue = (level * PLATFORM_HUE_STEP)[..., None] + np.asarray([0.0, 1.0 / 3.0, 2.0 / 3.0], np.float32)
    wave = jnp.abs(hue - jnp.floor(hue) - 0.5)          # a triangle wave over the colour wheel, 0..1/2
    return 90.0 + 280.0 * wave

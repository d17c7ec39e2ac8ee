"""Laser tag's players and shots drawn over a top-down map (host side, numpy only; ``topdown.top_down``).

Each player in play is a disc in its colour (``gadgets.PLAYER_COLOURS``) with
a tick toward where it looks; a tagged player waiting to come back is a ring.
The last frame's shots are lines from the shooter to where each stopped, in
the gadget's colour; a player tagged in that frame gets a red ring.
"""
from __future__ import annotations

import numpy as np

from jaxlab.levels.dmlab import gadgets as G
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX, PICKUP_TYPES
from jaxlab.render.first_person.topdown import _disc, world_to_pixel

TAG_RING = np.array([255, 30, 30], np.uint8)
#: colour of each gadget's shots (the Impulse and Rapid gadgets have no pickup look)
SHOT_RGB = np.array([(255, 255, 255), (255, 250, 140)] + [PICKUP_TYPES[PICKUP_INDEX[n]].color
                                                          for n in ("orb_gadget", "beam_gadget", "disc_gadget")],
                    np.uint8)
assert len(SHOT_RGB) == G.NUM_GADGETS


def _line(img: np.ndarray, a, b, colour) -> None:
    """A 2-pixel line between pixel points a and b."""
    n = int(np.ceil(np.hypot(*(np.asarray(b) - np.asarray(a))) * 2)) + 1
    t = np.linspace(0.0, 1.0, n)[:, None]
    p = np.asarray(a)[None] * (1 - t) + np.asarray(b)[None] * t
    h, w = img.shape[:2]
    for dx, dy in ((0, 0), (-1, 0), (0, -1), (-1, -1)):
        img[np.clip(np.floor(p[:, 1] + 0.5).astype(int) + dy, 0, h - 1),
            np.clip(np.floor(p[:, 0] + 0.5).astype(int) + dx, 0, w - 1)] = colour


def draw_players(img: np.ndarray, rows: int, cell_px: int, pos, yaw, look, up, playing=None, shot_from=None,
                 shot_to=None, fired=None, shot_gadget=None, tagged_by=None) -> np.ndarray:
    """``img`` (uint8[H, W, 3], from ``top_down`` at ``cell_px`` of a map of ``rows`` rows) with P players drawn.

    pos float[P, 2] units, yaw float[P] degrees, look int[P] colour index, up bool[P] (in play), playing bool[P]
    (default all); the optional shot arrays are ``ArenaState``'s (shot_from/shot_to float[P, 2], fired bool[P],
    shot_gadget int[P], tagged_by int[P]). Returns the image (drawn in place).
    """
    pos, yaw, look, up = (np.asarray(v) for v in (pos, yaw, look, up))
    playing = np.ones(len(pos), bool) if playing is None else np.asarray(playing, bool)
    radius = max(0.3 * cell_px, 2.5)
    if fired is not None:
        for i in np.flatnonzero(np.asarray(fired) & playing):
            _line(img, world_to_pixel(np.asarray(shot_from)[i], rows, cell_px),
                  world_to_pixel(np.asarray(shot_to)[i], rows, cell_px), SHOT_RGB[int(np.asarray(shot_gadget)[i])])
    for i in np.flatnonzero(playing):
        centre = world_to_pixel(pos[i], rows, cell_px)
        colour = np.asarray(G.PLAYER_COLOURS[int(look[i]) % G.MAX_PLAYERS], np.uint8)
        if not up[i]:
            _disc(img, centre, radius, colour, ring=True)
            continue
        _disc(img, centre, radius, colour)
        rad = np.deg2rad(float(yaw[i]))
        _line(img, centre, centre + 1.8 * radius * np.array([np.cos(rad), -np.sin(rad)]), np.array([20, 20, 20]))
    if tagged_by is not None:
        for i in np.flatnonzero((np.asarray(tagged_by) >= 0) & playing):
            _disc(img, world_to_pixel(pos[i], rows, cell_px), radius + 2.5, TAG_RING, ring=True)
    return img

"""A contact sheet of DMLab's language objects: each of the 40 shapes in a first-person frame.

Each tile is one frame of a small room with one language object 70 units in
front of the camera (colours and patterns cycle through the tables), its
name printed below. ``python -m jaxlab.demo.language_sheet --out FILE.png``.
"""
from __future__ import annotations

import argparse

import imageio.v3 as iio
import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.demo.contact_sheet import _fit, contact_sheet
from jaxlab.demo.lasertag_match import caption
from jaxlab.levels.dmlab import language_objects as lang
from jaxlab.levels.dmlab.level import build_level
from jaxlab.levels.dmlab.map_parser import parse_text_map
from jaxlab.render import Camera, render_first_person

ROOM = """
*******
*A    *
*     *
*     *
*  P  *
*******
"""
CAMERA_XY = (350.0, 150.0)      # the P cell, looking north (+y)
AHEAD = 70.0                    # units from the camera to the object


def language_frames(kinds, width: int = 96, height: int = 72) -> np.ndarray:
    """uint8[len(kinds), height, width, 3]: one frame per PICKUP_TYPES index in ``kinds`` (int[K]), the
    object ``AHEAD`` units in front of a camera at eye height in a small room."""
    level = jax.tree_util.tree_map(jnp.asarray, build_level(parse_text_map(ROOM), episode_seconds=60))
    f32 = jnp.float32
    camera = Camera(pos=jnp.asarray(CAMERA_XY, f32), eye_z=f32(26.0), yaw=f32(90.0), pitch=f32(0.0))
    pos = level.pickup_pos.at[0].set(jnp.asarray((CAMERA_XY[0], CAMERA_XY[1] + AHEAD), f32))
    present = jnp.zeros_like(level.pickup_valid).at[0].set(True)

    def one(kind):
        lv = level.replace(pickup_kind=level.pickup_kind.at[0].set(kind))
        return render_first_person(lv, camera, jnp.ones_like(level.door_valid), pos, present,
                                   width=width, height=height, with_depth=False)
    return np.asarray(jax.jit(jax.vmap(one))(jnp.asarray(kinds, jnp.int32)))


def language_sheet(tile_width: int = 192) -> np.ndarray:
    """uint8[H, W, 3]: every language shape (colours and patterns cycling), named under its frame."""
    shapes = range(lang.NUM_LANGUAGE_SHAPES)
    colours = [(3 + 2 * s) % lang.NUM_LANGUAGE_COLOURS for s in shapes]
    patterns = [s % lang.NUM_LANGUAGE_PATTERNS for s in shapes]
    frames = language_frames([lang.language_object_kind(s, c, p) for s, c, p in zip(shapes, colours, patterns)])
    tiles = [np.concatenate([_fit(f, tile_width), caption(lang.language_object_name(s, c, p), tile_width)])
             for f, s, c, p in zip(frames, shapes, colours, patterns)]
    return contact_sheet(tiles, columns=8)


def main(argv=None) -> None:
    """Write the language objects' contact sheet (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m jaxlab.demo.language_sheet", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="language_objects.png", help="PNG file to write")
    iio.imwrite(ap.parse_args(argv).out, language_sheet())


if __name__ == "__main__":
    main()

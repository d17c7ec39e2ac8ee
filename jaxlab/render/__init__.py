"""Every renderer, one sub-package per kind: ``render.first_person`` (raycaster, sprites, textures,
screen text, top-down maps) and ``render.grid`` (Lab2D-style sprite compositing, world and player views).

The first-person entry points are re-exported here.
"""
from jaxlab.render.first_person import (DEPTH_UNITS, WALL_HEIGHT, Camera, focal_length, make_view,
                                        render_first_person, render_top_down_camera, top_down)

__all__ = ["Camera", "DEPTH_UNITS", "WALL_HEIGHT", "focal_length", "make_view", "render_first_person",
           "render_top_down_camera", "top_down"]

"""First-person rendering of jaxlab levels: DDA walls, floor casting, sprites, screen text, top-down maps.

``render_first_person(level, camera, door_closed, pickup_pos, pickup_present,
width=, height=, with_depth=)`` is a pure, jit- and vmap-safe function that
returns a uint8 frame.
"""
from jaxlab.render.first_person.camera import Camera, focal_length, make_view
from jaxlab.render.first_person.renderer import DEPTH_UNITS, WALL_HEIGHT, render_first_person
from jaxlab.render.first_person.topdown import top_down
from jaxlab.render.first_person.topdown_camera import render_top_down_camera

__all__ = ["Camera", "DEPTH_UNITS", "WALL_HEIGHT", "focal_length", "make_view", "render_first_person",
           "render_top_down_camera", "top_down"]

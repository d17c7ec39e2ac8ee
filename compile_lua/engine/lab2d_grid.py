"""The Python side of Lab2D's ``system.grid_world`` and ``system.tile`` on the host (the jaxlab Lua
library's ``system/grid_world.lua`` and ``system/tile.lua``): a world's config checked and numbered as
Lab2D numbers it (``jaxlab.levels.lab2d.grid_world``), a layout text's size, a view's sprite map, and
a tile set's images read into RGBA bytes by sprite id.

Each host function takes the sandbox and the Lua arguments as Python data, and raises
``compile_lua.errors.HostError`` to refuse them.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping

import numpy as np

from compile_lua.errors import HostError
from compile_lua.lua_values import show_lua
from jaxlab.levels.lab2d.grid_world import GridWorldError, world_from_config


def sprite_names(sprites) -> List[str]:
    """Lab2D's ``world:spriteNames()``: '' then ``name.N``, ``name.E``, ``name.S``, ``name.W`` per sprite."""
    return [""] + [f"{name}.{o}" for name in sprites for o in "NESW"]


def _world(sandbox: Any, config: Any) -> list:
    """grid_world.World(config): [sprite names, number of render layers]; HostError for a bad config."""
    if not isinstance(config, Mapping):
        raise HostError(f"grid_world.World expects a table, got {show_lua(config)}")
    try:
        world = world_from_config(config)
    except GridWorldError as e:
        raise HostError(str(e)) from None
    return [sprite_names(world.sprite_names), world.num_render_layers]


def text_size(text: str) -> tuple:
    """(width, height) of a layout text, as Lab2D measures it: its longest line and its lines, leading and
    trailing newlines dropped."""
    lines = text.strip("\n").split("\n")
    return max(len(line) for line in lines), len(lines)


def _text_size(sandbox: Any, text: Any) -> list:
    if not isinstance(text, str):
        raise HostError(f"a layout must be a string, got {show_lua(text)}")
    return list(text_size(text))


def _sprite_map(sandbox: Any, args: Mapping[str, Any]) -> Dict[str, str]:
    """A view's ``spriteMap`` checked against the world's sprites (names without the facing suffix)."""
    names = {n.rsplit(".", 1)[0] for n in args.get("sprites") or [] if n}
    mapping = args.get("map") or {}
    if not isinstance(mapping, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in mapping.items()):
        raise HostError("world:createView: 'spriteMap' must map sprite names to sprite names")
    for key, value in mapping.items():
        for name, what in ((key, "source"), (value, "target")):
            if name not in names:
                raise HostError(f"Invalid {what} sprite in `spriteMap`: '{name}'")
    return dict(mapping)


def _set_sprite(sandbox: Any, args: Mapping[str, Any]) -> list:
    """set:setSprite{name, image}: [sprite id, RGBA hex, ...] for every sprite named ``name`` or
    ``name.<suffix>`` (ids 0-based, as Lab2D's), each the image's pixels (3 channels get alpha 255)
    or, for a {count, h, w, C} image, its next frame."""
    names, name, image = args.get("names") or [], args.get("name"), args.get("image")
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (3, 4) \
            or image.shape[-1] not in (3, 4):
        raise HostError("'image' - Must supply ByteTensor(h, w, 3 or 4) or ByteTensor(count, h, w, 3 or 4)!")
    height, width = int(args["height"]), int(args["width"])
    if image.shape[-3:-1] != (height, width):
        raise HostError(f"set:setSprite: the image is {image.shape[-3]} x {image.shape[-2]} pixels, the set's "
                        f"sprites {height} x {width}")
    out, count = [], 0
    for sprite_id, full in enumerate(names):
        if full.startswith(name) and (len(full) == len(name) or full[len(name)] == "."):
            frame = image[count] if image.ndim == 4 else image
            if image.ndim == 4 and count >= image.shape[0]:
                raise HostError(f"Mismatch count of sprites with prefix '{name}'; Required: {image.shape[0]}, "
                                f"Actual: more.")
            rgba = np.concatenate([frame, np.full(frame.shape[:2] + (1,), 255, np.uint8)], -1) \
                if frame.shape[-1] == 3 else frame
            out += [sprite_id, rgba.tobytes().hex()]
            count += 1
    if image.ndim == 4 and count != image.shape[0]:
        raise HostError(f"Mismatch count of sprites with prefix '{name}'; Required: {image.shape[0]}, "
                        f"Actual: {count}.")
    return out


FUNCTIONS = {"lab2d_world": _world, "lab2d_text_size": _text_size, "lab2d_sprite_map": _sprite_map,
             "lab2d_set_sprite": _set_sprite}

"""``game:updateTexture(name, tensor)`` in translated Lua: a live texture kept in play-time state.

DMLab's engine copies the pixels of a ByteTensor shaped H x W x 4 (RGBA) into the texture ``name`` (the one its
``api:loadTexture(name)`` answered when the map loaded); jaxlab keeps them as play-time state ``texture.<name>``
(a Byte tensor of that shape, a copy: later writes to the script's tensor do not show until the next call), which
the level's screens show (``jaxlab.render.first_person.screens``). The name must be known when the callback is
translated (a string constant). The state's start value is the episode's ``loadTexture`` answer
(``compile_lua.dmlab.screens``; zeros where there is none).
"""
from __future__ import annotations

from typing import Any, List

from compile_lua.device.tensors import current
from compile_lua.device.values import TensorVal, lua_type
from jaxlab.kernels.lab2d_tensor import Tensor

#: the play-time state key of a live texture is this prefix and its name
TEXTURE = "texture."
CHANNELS = 4   # DMLab's textures are RGBA


def texture_kind(shape) -> tuple:
    """The layout entry of a live texture of ``shape`` (H, W, 4)."""
    return ("tensor", "Byte", tuple(int(d) for d in shape))


def update_texture(it: Any, args: List[Any], node: Any) -> List[Any]:
    """``game:updateTexture(name, tensor)`` on the live path: the tensor's pixels become state ``texture.<name>``."""
    name, value = (list(args) + [None, None])[:2]
    if not isinstance(name, str):
        it.fail(f"game:updateTexture of a {lua_type(name)} name", "the texture's name must be a string known when "
                "the callback is translated (a constant)", node)
    value = current(it.env, value)
    if not isinstance(value, TensorVal) or value.t.kind != "Byte" or len(value.t.shape) != 3 \
            or value.t.shape[2] != CHANNELS:
        got = f"a {value.t.kind} tensor of shape {list(value.t.shape)}" if isinstance(value, TensorVal) \
            else f"a {lua_type(value)}"
        it.fail(f"game:updateTexture('{name}', {got})", "DMLab takes a ByteTensor shaped H x W x 4 (RGBA)", node)
    env, key, kind = it.env, TEXTURE + name, texture_kind(value.t.shape)
    if key not in env.tr.layout:
        env.tr.define(key, kind)
    elif env.tr.layout[key] != kind:
        it.fail(f"game:updateTexture('{name}', a tensor of shape {list(value.t.shape)})", "the texture is "
                f"{list(env.tr.layout[key][2])} (api:loadTexture's answer, or another call's tensor)", node)
    if key not in env.state:
        env.fresh(key)
    copy = TensorVal(Tensor.fresh("Byte", value.t.array()), key)
    env.state[key] = it.predicated(copy, env.state[key])
    env.storages[key] = env.state[key].t.storage
    return []

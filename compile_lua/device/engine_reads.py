"""The first-person game's calls in translated Lua (:func:`game`): ``game:addScore``, ``game:finishMap``,
``game:episodeTimeSeconds()``, ``game:updateTexture`` (``compile_lua.device.live_textures``), and what it reads of the game as it plays: ``game:playerInfo()``, ``game:inFov``
and ``game:raycast``, from the callback's ``inputs`` (``kernels.first_person.script.script_inputs``).

- ``game:playerInfo()``: a record of ``pos``, ``vel``, ``angles`` (pitch, yaw, roll), ``anglesVel`` (degrees/s),
  ``eyePos`` (tables of 3 numbers: units, units/s, degrees), ``height`` (the eye over ``pos``, units),
  ``teleported`` (a boolean: a teleport moved the player this frame) and ``score``.
- ``game:inFov(start, end, angles, fov)``: DMLab's test, whether the direction from ``start`` to ``end``
  (3 numbers each, units), turned into the frame of ``angles`` (pitch, yaw, roll degrees; positive pitch
  looks down), lies within ``fov`` / 2 degrees of straight ahead both across and up.
- ``game:raycast(start, end)``: the fraction (0..1) of the way from ``start`` to ``end`` that is clear of
  the level's walls and closed doors (1: ``end`` is visible), walked over the level's grid in the ground
  plane (jaxlab's walls stand from the floor to the ceiling).
- ``game:renderCustomView{width =, height =, pos =, look =, renderPlayer =}``: a ByteTensor [height, width, 3]
  (sizes known when the script has loaded, at most the screen's :data:`SCREEN`), the level drawn from the eye
  at ``pos`` looking along ``look`` (``inputs["view"]``, ``kernels.first_person.observations.custom_view``;
  black where the callback is traced without a game, as when it is compiled). jaxlab draws no player
  model, so ``renderPlayer`` changes nothing.
"""
from __future__ import annotations

from typing import Any, List

import jax.numpy as jnp

from compile_lua.device import ops, tensors
from compile_lua.device.live_textures import update_texture
from compile_lua.device.values import Arr, Num, TensorVal, as_num, lua_type
from jaxlab.kernels.lab2d_tensor import Tensor
from jaxlab.render.first_person.raycast import cast_walls

#: the game's play-time reads this module translates
NAMES = ("playerInfo", "inFov", "raycast", "renderCustomView")
#: the screen's buffer (width, height) in pixels, as ``game:screenShape()`` gives it: the largest custom view
SCREEN = (320, 240)
_VECTORS = ("pos", "vel", "angles", "anglesVel", "eyePos")


def call(it: Any, name: str, args: List[Any], node: Any) -> List[Any]:
    """``game:<name>(args)`` (``name`` one of :data:`NAMES`) as translator values."""
    p = it.env.inputs["player"]
    if name == "playerInfo":
        return [{k: Arr(p[k]) for k in _VECTORS} | {"height": Num(p["height"]), "score": Num(p["score"]),
                                                    "teleported": p["teleported"]}]
    if name == "inFov":
        if len(args) != 4 or lua_type(args[3]) != "number":
            it.fail("game:inFov without (start, end, angles, fov)", "it takes two positions, the view's angles "
                    "(tables of 3 numbers) and the field of view in degrees", node)
        start, end, angles = (vector(it, a, "game:inFov", node) for a in args[:3])
        return [in_fov(start, end, angles, as_num(args[3]).x)]
    if name == "renderCustomView":
        return [custom_view(it, args, node)]
    if len(args) != 2:
        it.fail("game:raycast without (start, end)", "it takes two positions (tables of 3 numbers)", node)
    solid, rows = it.env.inputs["walls"]
    start, end = (vector(it, a, "game:raycast", node) for a in args)
    return [Num(raycast(solid, rows, start, end), 0.0, 1.0)]


def vector(it: Any, v: Any, what: str, node: Any) -> jnp.ndarray:
    """float32[3]: a table of 3 numbers (a fixed table, or a list of numbers) as an array."""
    if isinstance(v, Arr) and v.x.shape == (3,):
        return jnp.asarray(v.x, jnp.float32)
    if isinstance(v, list) and len(v) == 3 and all(lua_type(x) == "number" for x in v):
        return jnp.stack([jnp.asarray(as_num(x).x, jnp.float32) for x in v])
    it.fail(f"{what} of a {lua_type(v)} that is not 3 numbers", "positions and angles are tables of 3 numbers",
            node)


def in_fov(start, end, angles, fov) -> jnp.ndarray:
    """bool[]: whether ``end - start`` (float32[3] units), in the view frame of ``angles`` (float32[3] pitch,
    yaw, roll degrees), is less than ``fov`` / 2 degrees off straight ahead in yaw and in pitch."""
    pitch, yaw, roll = jnp.deg2rad(angles[0]), jnp.deg2rad(angles[1]), jnp.deg2rad(angles[2])
    sp, cp, sy, cy, sr, cr = jnp.sin(pitch), jnp.cos(pitch), jnp.sin(yaw), jnp.cos(yaw), jnp.sin(roll), jnp.cos(roll)
    forward = jnp.stack([cp * cy, cp * sy, -sp])
    left = jnp.stack([sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, sr * cp])
    up = jnp.stack([cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp])
    d = end - start
    x, y, z = jnp.dot(d, forward), jnp.dot(d, left), jnp.dot(d, up)
    across = jnp.rad2deg(jnp.arctan2(y, x))
    upward = jnp.rad2deg(jnp.arctan2(z, jnp.sqrt(x * x + y * y)))
    half = jnp.asarray(fov, jnp.float32) * 0.5
    return (jnp.abs(across) < half) & (jnp.abs(upward) < half)


def raycast(solid, rows, start, end) -> jnp.ndarray:
    """float32[]: the clear fraction (0..1) of the segment ``start`` -> ``end`` (float32[3] units) through the
    grid ``solid`` (bool[Hm, Wm], ``rows`` int32[] text rows), measured in the ground plane."""
    d = end[:2] - start[:2]
    length = jnp.sqrt(jnp.sum(d * d))
    unit = d / jnp.where(length > 0, length, 1.0)
    dist = cast_walls(solid, rows, start[:2], unit[None, :]).dist[0]
    return jnp.where(length > 0, jnp.clip(dist / jnp.where(length > 0, length, 1.0), 0.0, 1.0), 1.0).astype(
        jnp.float32)


def custom_view(it: Any, args: List[Any], node: Any) -> TensorVal:
    """``game:renderCustomView(kwargs)`` as a ByteTensor [height, width, 3] of storage of its own."""
    kwargs = args[0] if len(args) == 1 and isinstance(args[0], dict) else None
    if kwargs is None or any(k not in kwargs for k in ("width", "height", "pos", "look")):
        it.fail("game:renderCustomView without a table of width, height, pos and look", "it takes one table: "
                "the view's size in pixels, the eye's position and its angles (tables of 3 numbers)", node)
    sizes = [kwargs[k] for k in ("width", "height")]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in sizes):
        it.fail("game:renderCustomView of a size not known when the script has loaded", "the view's width and "
                "height fix its tensor's shape: whole numbers the script has when it has loaded", node)
    width, height = (min(v, most) for v, most in zip(sizes, SCREEN))
    pos, look = (vector(it, kwargs[k], "game:renderCustomView", node) for k in ("pos", "look"))
    view = it.env.inputs.get("view")
    image = jnp.zeros((height, width, 3), jnp.uint8) if view is None else view(pos, look, width, height)
    return tensors.own(it.env, Tensor.fresh("Byte", image))


def game(it: Any, name: str, args: List[Any], node: Any) -> List[Any]:
    """``game:<name>(args)`` at play time: ``addScore`` and ``finishMap`` (the call's effects, on the live path),
    ``episodeTimeSeconds`` and the reads of :data:`NAMES`."""
    env = it.env
    if name == "addScore":
        score = args[-1] if args else None
        if lua_type(score) != "number":
            it.fail("game:addScore without a number", "the score must be a number", node)
        new = ops.arith("+", env.effects["score"], score, it.failer("game:addScore"))
        env.effects["score"] = it.predicated(new, env.effects["score"])
        return []
    if name == "finishMap":
        env.effects["finish"] = it.predicated(True, env.effects["finish"])
        return []
    if name == "episodeTimeSeconds":
        return [Num(env.inputs["episode_time"], 0.0)]
    if name == "updateTexture":
        return update_texture(it, args, node)
    if name in NAMES:
        return call(it, name, args, node)
    it.fail(f"game:{name}", "jaxlab's kernels give play-time scripts addScore, finishMap, episodeTimeSeconds, "
            f"updateTexture, {', '.join(NAMES)}", node)

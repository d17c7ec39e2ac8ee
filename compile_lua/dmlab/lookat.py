"""DMLab's ``api:lookat(entityId, lookedAt, position, playerId)``, compiled onto the device.

A converted ``.map``'s ``trigger_lookat`` volumes (``jaxlab.levels.dmlab.quake_triggers.LookatZone``) are
boxes the player's gaze may rest on. Every frame, after the player has moved (DeepMind Lab's
``ClientLookAtTriggers`` at the end of the player's think), a ray leaves the muzzle point (the eye,
:data:`MUZZLE_FORWARD` units forward) along the view direction; the nearest zone it enters before a wall
is looked at. When the zone looked at last frame is not the one looked at now, ``lookat(its id, false,
{0, 0, 0}, 1)`` is called first; then, for the zone looked at, ``lookat(id, true, position, 1)`` with
``position`` the hit point relative to the zone's box (0..1 along x, y and z; 0 along an axis where the box
is flat). Walls stop the ray as jaxlab's renderer draws them (full height); floors and ceilings do not.

:func:`zone_rows` writes each episode's zones at compile time; :class:`LookatHook` is the kernel side,
mixed into ``dmlab.hooks.EventHooks``.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping

import jax.numpy as jnp
import numpy as np

from jaxlab.env import select_tree
from jaxlab.levels.dmlab.quake_layout import ConvertedMap
from jaxlab.render.first_person.raycast import cast_walls

HOOK = "lookat"
#: Quake III's muzzle point: this many units in front of the eye
MUZZLE_FORWARD = 14.0
#: the length of Quake III's gaze trace, units
REACH = 131072.0
PLAYER_ID = 1
#: the arguments lookat is first traced with
EXAMPLE = (0, True, [0.0, 0.0, 0.0], PLAYER_ID)


def zone_rows(loaded: Any) -> List[List[float]]:
    """Each lookat zone of an episode's map as [id, x0, y0, z0, x1, y1, z1] (level units; none for a map
    that is not a converted ``.map``)."""
    if not isinstance(loaded, ConvertedMap):
        return []
    return [[float(zone.id), *loaded.level_zone(zone)] for zone in loaded.lookat_zones]


def gaze(boxes, valid, eye, angles, walls):
    """The zone the gaze rests on: (index int32[] into ``boxes`` (-1: none), position float32[3] relative to
    its box).

    ``boxes``: float32[K, 6] (x0, y0, z0, x1, y1, z1) level units; ``valid`` bool[K]; ``eye`` float32[3]
    units; ``angles`` float32[3] (pitch, yaw, roll) degrees as ``game:playerInfo()`` gives them (positive pitch looks
    down, as in DMLab), yaw counter-clockwise from +x;
    ``walls``: ``(solid bool[Hm, Wm], rows int32[])``."""
    pitch, yaw = jnp.deg2rad(angles[0]), jnp.deg2rad(angles[1])
    ahead = jnp.stack([jnp.cos(pitch) * jnp.cos(yaw), jnp.cos(pitch) * jnp.sin(yaw), -jnp.sin(pitch)])
    start = eye + MUZZLE_FORWARD * ahead
    lo, hi = boxes[:, :3], boxes[:, 3:]
    moving = jnp.abs(ahead) > 1e-9
    step = jnp.where(moving, ahead, 1.0)
    t0, t1 = (lo - start) / step, (hi - start) / step
    inside = (lo <= start) & (start <= hi)   # an axis the ray does not move along: inside its slab or never
    near = jnp.where(moving, jnp.minimum(t0, t1), jnp.where(inside, -jnp.inf, jnp.inf))
    far = jnp.where(moving, jnp.maximum(t0, t1), jnp.where(inside, jnp.inf, -jnp.inf))
    enter, leave = jnp.max(near, axis=1), jnp.min(far, axis=1)
    t = jnp.maximum(enter, 0.0)
    flat = jnp.stack([jnp.cos(yaw), jnp.sin(yaw)])
    wall = cast_walls(walls[0], walls[1], start[:2], flat[None, :]).dist[0]
    hit = valid & (leave >= t) & (t <= REACH) & (t * jnp.cos(pitch) <= wall)
    index = jnp.argmin(jnp.where(hit, t, jnp.inf))
    point = start + t[index] * ahead
    size = hi[index] - lo[index]
    position = jnp.where(size > 0, (point - lo[index]) / jnp.where(size > 0, size, 1.0), 0.0)
    return jnp.where(jnp.any(hit), index, -1).astype(jnp.int32), position.astype(jnp.float32)


class LookatHook:
    """The lookat hook's kernel side: needs ``run(name, play, inputs, *args)`` (``EventHooks.run``) and
    :meth:`init_lookat` with ``meta["device"]``."""

    def init_lookat(self, device: Mapping[str, Any]) -> None:
        """Whether ``lookat`` is compiled, and each episode's zones (:attr:`lookat_ids` int32[E, K],
        :attr:`lookat_boxes` float32[E, K, 6], :attr:`lookat_valid` bool[E, K]; K at least 1)."""
        self.has_lookat = HOOK in device["callbacks"]
        rows = device.get("lookat_zones") or [[] for _ in device["door_targets"]]
        width = max([1] + [len(r) for r in rows])
        table = np.zeros((len(rows), width, 7), np.float32)
        valid = np.zeros((len(rows), width), bool)
        for e, zones in enumerate(rows):
            if zones:
                table[e, :len(zones)] = zones
                valid[e, :len(zones)] = True
        self.lookat_ids = jnp.asarray(table[..., 0].astype(np.int32))
        self.lookat_boxes, self.lookat_valid = jnp.asarray(table[..., 1:]), jnp.asarray(valid)

    def lookat_start(self) -> Dict[str, Any]:
        """The hook's part of an episode's play state: the zone looked at last frame (int32[], -1: none)."""
        return {"looked": jnp.int32(-1)} if self.has_lookat else {}

    def look(self, play, inputs, level_index):
        """A frame's lookat calls on bank level ``level_index``'s zones, at the player of ``inputs``: (play,
        score float32[], finish bool[])."""
        player = inputs["player"]
        now, position = gaze(self.lookat_boxes[level_index], self.lookat_valid[level_index], player["eyePos"],
                             player["angles"], inputs["walls"])
        ids, last = self.lookat_ids[level_index], play["looked"]
        away, score, finish = (last >= 0) & (last != now), jnp.float32(0.0), jnp.bool_(False)
        for on, args in ((away, (ids[jnp.maximum(last, 0)], jnp.bool_(False), jnp.zeros(3, jnp.float32))),
                         (now >= 0, (ids[jnp.maximum(now, 0)], jnp.bool_(True), position))):
            new, _, effects = self.run(HOOK, play, inputs, *args, PLAYER_ID)
            play = select_tree(on, new, play)
            score = score + jnp.where(on, effects["score"], 0.0)
            finish = finish | (on & effects["finish"])
        return dict(play, looked=now), score, finish

"""The parts of a Quake III ``.map`` that are neither walls nor floor: see-through brushes and teleporters.

Read for :mod:`jaxlab.levels.dmlab.quake_layout`, as DeepMind Lab's shaders
and game code define them:

* A brush all of whose faces are :data:`NONSOLID_TEXTURES` (``map/ghost``:
  ``surfaceparm nonsolid``, a translucent look the player walks through, such
  as a teleport pad's glow; ``map/nodrop``, an invisible non-solid volume
  where items are not dropped) is left out.
* A brush all of whose faces are :data:`CLIP_TEXTURES` (``map/poltergeist``:
  ``surfaceparm playerclip`` and ``nodraw``: invisible, it stops the player)
  is not a wall: touching groups of them must each close a box around a point
  entity (how DeepMind Lab shows an object out of reach), and the box is kept
  (:func:`enclosures`) so that the object inside is never taken. jaxlab draws
  no glass and does not stop the player at the box's sides: only the object
  is out of reach. Clip brushes that close around nothing are refused.
* A ``trigger_teleport`` brush entity becomes a point entity at the centre of
  its volume (``origin`` on the volume's floor), keeping its key-values; its
  ``target`` must name a :data:`DESTINATION_CLASSES` point entity. Touching
  it asks the script's ``canTrigger``/``trigger`` (``id``, ``target``) as
  DeepMind Lab's engine does and moves the player to the destination (Quake's
  ``TeleportPlayer``; jaxlab's player arrives at rest, not pushed 400 units/s
  forward). A spectator-only teleporter (``spawnflags`` bit 1) never moves the
  player and is left out.
* A ``trigger_lookat`` brush entity is a :class:`LookatZone`: the box of its
  brushes and curved patches (the box of a patch's control points; a flat
  screen is a box of no thickness along one axis), which the player's gaze ray
  may hit (DeepMind Lab then calls the script's ``api:lookat``).
"""
from __future__ import annotations

import dataclasses
from typing import List, Sequence, Tuple

import numpy as np

from jaxlab.levels.dmlab.quake_map import Brush, Entity, UnconvertibleMap

NONSOLID_TEXTURES = ("map/ghost", "map/nodrop")
CLIP_TEXTURES = ("map/poltergeist",)
TELEPORT_CLASS = "trigger_teleport"
DESTINATION_CLASSES = ("misc_teleporter_dest", "target_position")
SPECTATOR_ONLY = 1
LOOKAT_CLASS = "trigger_lookat"
#: (x0, y0, x1, y1) units: the box of one group of clip brushes
Box = Tuple[float, float, float, float]


def split_world(world: Sequence[Brush]) -> Tuple[List[Brush], List[Brush], int]:
    """(solid brushes, clip brushes, how many non-solid brushes were left out) of the world brushes."""
    solid, clip, skipped = [], [], 0
    for brush in world:
        if all(t in NONSOLID_TEXTURES for t in brush.textures):
            skipped += 1
        elif all(t in CLIP_TEXTURES for t in brush.textures):
            clip.append(brush)
        else:
            solid.append(brush)
    return solid, clip, skipped


def _groups(brushes: Sequence[Brush]) -> List[List[Brush]]:
    """The brushes in groups whose x-y boxes touch or overlap, transitively."""
    groups: List[List[Brush]] = []
    for brush in brushes:
        touching = [g for g in groups if any((b.lo[:2] <= brush.hi[:2]).all() and (brush.lo[:2] <= b.hi[:2]).all()
                                             for b in g)]
        merged = [brush] + [b for g in touching for b in g]
        groups = [g for g in groups if not any(g is t for t in touching)] + [merged]
    return groups


def _closed_around(group: Sequence[Brush], x: float, y: float) -> bool:
    """Whether the brushes of ``group`` stand on all four sides of (x, y), the point itself in none."""
    lo, hi = np.asarray([b.lo[:2] for b in group]), np.asarray([b.hi[:2] for b in group])
    if ((lo[:, 0] <= x) & (x <= hi[:, 0]) & (lo[:, 1] <= y) & (y <= hi[:, 1])).any():
        return False
    spans_x, spans_y = (lo[:, 0] <= x) & (x <= hi[:, 0]), (lo[:, 1] <= y) & (y <= hi[:, 1])
    return bool((spans_x & (lo[:, 1] > y)).any() and (spans_x & (hi[:, 1] < y)).any()
                and (spans_y & (lo[:, 0] > x)).any() and (spans_y & (hi[:, 0] < x)).any())


def enclosures(clip: Sequence[Brush], points: Sequence[Tuple[float, float]], source: str) -> Tuple[Box, ...]:
    """The boxes (x0, y0, x1, y1 units) of the groups of ``clip`` brushes, each closed around one of
    ``points`` ((x, y) of the point entities); UnconvertibleMap naming a group closed around none."""
    boxes = []
    for group in _groups(clip):
        if not any(_closed_around(group, x, y) for x, y in points):
            lines = ", ".join(str(b.line) for b in sorted(group, key=lambda b: b.line)[:4])
            raise UnconvertibleMap(source, f"the invisible player-clip brushes at lines {lines} close around no "
                                           "entity: invisible walls are not converted")
        lo, hi = np.min([b.lo[:2] for b in group], axis=0), np.max([b.hi[:2] for b in group], axis=0)
        boxes.append((float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])))
    return tuple(boxes)


def teleporter(entity: Entity, destinations: Sequence[str], source: str) -> Entity:
    """A ``trigger_teleport`` brush entity as a point entity at the centre of its brushes' box (``origin``
    "x y z", z its floor); UnconvertibleMap when its ``target`` names no
    entity in ``destinations`` (the ``targetname`` of each DESTINATION_CLASSES entity)."""
    target = entity.fields.get("target", "")
    if target not in destinations:
        raise UnconvertibleMap(source, f"the trigger_teleport at line {entity.line} has target {target[:40]!r}, "
                                       f"which names no {' or '.join(DESTINATION_CLASSES)} entity")
    lo = np.min([b.lo for b in entity.brushes], axis=0)
    hi = np.max([b.hi for b in entity.brushes], axis=0)
    origin = f"{(lo[0] + hi[0]) / 2:g} {(lo[1] + hi[1]) / 2:g} {lo[2]:g}"
    return dataclasses.replace(entity, fields={**entity.fields, "origin": origin}, brushes=())


def spectator_only(entity: Entity) -> bool:
    """Whether a teleporter has Quake's SPECTATOR flag (``spawnflags`` bit 1): it never moves a player.
    A ``spawnflags`` that is not a number counts as 0."""
    try:
        return bool(int(float(entity.fields.get("spawnflags") or 0)) & SPECTATOR_ONLY)
    except ValueError:
        return False


@dataclasses.dataclass(frozen=True)
class LookatZone:
    """A ``trigger_lookat`` volume: DeepMind Lab's entity ``id`` (its ``id`` key; 0 without one, as Quake's
    spawn fields default) and the corners ``lo``, ``hi`` (x, y, z DeepMind Lab units) of its brushes' box."""

    id: int
    lo: Tuple[float, float, float]
    hi: Tuple[float, float, float]


def lookat_zone(entity: Entity, source: str) -> LookatZone:
    """The :class:`LookatZone` of a ``trigger_lookat`` entity (the box of its brushes and patches);
    UnconvertibleMap when it has neither or an ``id`` that is not a whole number."""
    parts = entity.brushes + entity.patches
    if not parts:
        raise UnconvertibleMap(source, f"the trigger_lookat at line {entity.line} has no brush or patch")
    text = entity.fields.get("id") or "0"
    try:
        ident = int(text)
    except ValueError:
        raise UnconvertibleMap(source, f"the trigger_lookat at line {entity.line} has id {text[:40]!r}, not a "
                                       "whole number") from None
    lo = np.min([b.lo for b in parts], axis=0)
    hi = np.max([b.hi for b in parts], axis=0)
    return LookatZone(ident, tuple(float(v) for v in lo), tuple(float(v) for v in hi))


def level_height(z: float, ground: float) -> float:
    """A DeepMind Lab height ``z`` (units) in a level whose floor is at 0, where DeepMind Lab's floor is at
    ``ground`` (the player's eye stands as high over the floor in both: ``units.EYE_HEIGHT``)."""
    return z - ground

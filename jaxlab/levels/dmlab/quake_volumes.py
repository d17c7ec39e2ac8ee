"""A Quake III ``.map``'s hurt zones and jump pads: trigger volumes that act on the player's body.

Read for :mod:`jaxlab.levels.dmlab.quake_layout`, as DeepMind Lab's engine (Quake III's ``g_trigger.c``)
plays them:

* A ``trigger_hurt`` damages a player touching it by ``dmg`` points (default 5) every server frame (0.1 s),
  or once a second with its SLOW flag (``spawnflags`` 16). One that starts off (START_OFF, 1) is left out
  with a note: nothing in jaxlab switches it on. DeepMind Lab's ``lt_chasm`` kills with 1000 points in
  the lava at the bottom of its chasm.
* A ``trigger_multiple`` whose ``target`` names a ``target_kill`` kills the player touching it (the
  target does 100000 points of damage that nothing stops): a kill zone, such as the one under the
  floating platforms of DeepMind Lab's space maps. Touching it asks the script's ``canTrigger`` and
  ``trigger`` (the trigger's ``id``, 0 without one, and its ``target``), as ``G_UseTargets`` does; the
  ``target_kill`` is left out. A team-only one (``spawnflags`` 1 or 2) is refused.
* A ``func_button`` all of whose brushes are non-solid (``map/ghost``) and whose ``target`` names a
  ``target_kill`` is a kill zone too, as ``trigger_multiple``'s: the player never stands on it, but its
  brush model's contents (-1) let ``G_TouchTriggers`` touch it wherever the player's box overlaps it;
  ``Touch_Button`` then moves it and, arrived (its travel less ``lip`` at ``speed``, 40 by default, after
  50 ms), ``G_UseTargets`` kills the player who pressed it. jaxlab kills at the touch, not that long after,
  and every time (a button of ``wait`` -1, as DeepMind Lab's ``big_screen`` has under the platform the
  player stands on, fires once a map). A solid one is a mover and is refused.
* A ``trigger_push`` (a jump pad) gives a player touching it the velocity whose arc under gravity (800
  units/s^2) peaks at its ``target``: with h the target's height over the centre of the pad's volume,
  the flight to the apex takes t = sqrt(2 h / g); the horizontal velocity is the horizontal distance to
  the target over t and the upward one g t (Quake III's ``AimAtTarget``). A target that is not above that
  centre is refused; the target itself (an apex in the air, a ``target_position``) is left out unless a
  teleporter leads there too.

Each volume is the boxes of its brushes (x0, y0, z0, x1, y1, z1 in DeepMind Lab's units; a sloped brush
is its bounding box): the player touches it when its box overlaps one. A ``func_rotating`` all of whose
brushes are non-solid (a ghostly decoration spinning in a sky, as in DeepMind Lab's space maps) is left
out with a note.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from jaxlab.levels.dmlab.quake_map import Entity, UnconvertibleMap
from jaxlab.levels.dmlab.quake_movers import number_field
from jaxlab.levels.dmlab.quake_triggers import NONSOLID_TEXTURES, TELEPORT_CLASS
from jaxlab.levels.dmlab.units import GRAVITY

HURT_CLASS, PUSH_CLASS, MULTIPLE_CLASS, KILL_CLASS = "trigger_hurt", "trigger_push", "trigger_multiple", "target_kill"
BUTTON_CLASS = "func_button"
SPINNER_CLASS = "func_rotating"
HURT_DAMAGE = 5.0           # trigger_hurt's default dmg, points a server frame
KILL_DAMAGE = 100000.0      # target_kill's damage, points
SERVER_FRAME = 0.1          # seconds between two hurts (Quake III's FRAMETIME)
START_OFF, SLOW, TEAM_ONLY = 1, 16, 3
#: (x0, y0, z0, x1, y1, z1) units
Box3 = Tuple[float, float, float, float, float, float]


@dataclasses.dataclass(frozen=True)
class HurtZone:
    """boxes: the volume, DeepMind Lab's units; hit: points of damage of one hurt; seconds: between two hurts
    while touched; trigger: (id, target) a kill zone's ``trigger_multiple`` asks the script's
    canTrigger/trigger about (None for a ``trigger_hurt``); line: the entity's line in the file."""

    boxes: Tuple[Box3, ...]
    hit: float
    seconds: float
    line: int
    trigger: Optional[Tuple[int, str]] = None

    @property
    def damage_per_second(self) -> float:
        """Points of damage a second to a player that stays in the zone."""
        return self.hit / self.seconds


@dataclasses.dataclass(frozen=True)
class JumpPad:
    """boxes: the volume, DeepMind Lab's units; velocity: (x, y, z) units/s given to a player touching it;
    line: the entity's line in the file."""

    boxes: Tuple[Box3, ...]
    velocity: Tuple[float, float, float]
    line: int


def _boxes(entity: Entity) -> Tuple[Box3, ...]:
    return tuple(tuple(float(v) for v in (*b.lo, *b.hi)) for b in entity.brushes)


def _nonsolid(entity: Entity) -> bool:
    """Whether every face of the entity's brushes is non-solid (``NONSOLID_TEXTURES``)."""
    return all(t in NONSOLID_TEXTURES for b in entity.brushes for t in b.textures)


def _flags(entity: Entity, source: str) -> int:
    return int(number_field(entity, "spawnflags", 0.0, source))


def _launch(pad: Entity, target: Tuple[float, float, float], source: str) -> Tuple[float, float, float]:
    """The velocity (units/s) Quake III's AimAtTarget gives the pad ``pad`` aimed at the point ``target``."""
    lo = np.min([b.lo for b in pad.brushes], axis=0)
    hi = np.max([b.hi for b in pad.brushes], axis=0)
    centre = (lo + hi) / 2
    height = target[2] - centre[2]
    if height <= 0:
        raise UnconvertibleMap(source, f"the trigger_push at line {pad.line} aims at {pad.fields.get('target')!r}, "
                                       f"which is not above the pad ({height:g} units): no arc peaks there")
    time = math.sqrt(height / (0.5 * GRAVITY))
    dx, dy = target[0] - centre[0], target[1] - centre[1]
    return float(dx / time), float(dy / time), time * GRAVITY


def _origin_of(entity: Entity) -> Optional[Tuple[float, float, float]]:
    try:
        x, y, z = (float(v) for v in entity.fields.get("origin", "").split())
    except ValueError:
        return None
    return (x, y, z) if all(map(math.isfinite, (x, y, z))) else None


def trigger_volumes(entities: Sequence[Entity], source: str) -> Tuple[List[Entity], Tuple[HurtZone, ...],
                                                                          Tuple[JumpPad, ...], List[str]]:
    """(the entities without the volumes, the kill zones' ``target_kill``\\ s, the pads' targets and the
    non-solid spinners; the hurt and kill zones; the jump pads; notes). UnconvertibleMap for a pad without a
    target above it or a team-only kill zone."""
    kills = {e.fields.get("targetname") for e in entities if e.classname == KILL_CLASS} - {None, ""}
    teleported = {e.fields.get("target") for e in entities if e.classname == TELEPORT_CLASS}
    named = {e.fields["targetname"]: e for e in entities if e.fields.get("targetname")}
    zones: List[HurtZone] = []
    pads: List[JumpPad] = []
    notes: List[str] = []
    dropped = set()
    for e in entities:
        if e.classname == HURT_CLASS and e.brushes:
            flags = _flags(e, source)
            if flags & START_OFF:
                notes.append(f"{source}:{e.line}: the trigger_hurt starts off and is left out")
            else:
                zones.append(HurtZone(_boxes(e), number_field(e, "dmg", 0.0, source) or HURT_DAMAGE,
                                      1.0 if flags & SLOW else SERVER_FRAME, e.line))
        elif e.fields.get("target") in kills and e.brushes and (e.classname == MULTIPLE_CLASS or (
                e.classname == BUTTON_CLASS and _nonsolid(e))):
            if e.classname == MULTIPLE_CLASS and _flags(e, source) & TEAM_ONLY:
                raise UnconvertibleMap(source, f"the trigger_multiple at line {e.line} fires for one team only")
            trigger = (int(number_field(e, "id", 0.0, source)), e.fields["target"])
            zones.append(HurtZone(_boxes(e), KILL_DAMAGE, SERVER_FRAME, e.line, trigger))
            dropped.add(id(named[e.fields["target"]]))
        elif e.classname == PUSH_CLASS and e.brushes:
            target = named.get(e.fields.get("target", ""))
            origin = _origin_of(target) if target is not None else None
            if origin is None:
                raise UnconvertibleMap(source, f"the trigger_push at line {e.line} has target "
                                               f"{e.fields.get('target', '')[:40]!r}, which names no entity with an origin")
            pads.append(JumpPad(_boxes(e), _launch(e, origin, source), e.line))
            if target.fields["targetname"] not in teleported:
                dropped.add(id(target))
        elif e.classname == SPINNER_CLASS and e.brushes and _nonsolid(e):
            notes.append(f"{source}:{e.line}: the func_rotating of non-solid brushes is left out")
        else:
            continue
        dropped.add(id(e))
    if zones or pads:
        notes.append(f"{source}: {len(zones)} hurt or kill zones and {len(pads)} jump pads act on the player")
    return [e for e in entities if id(e) not in dropped], tuple(zones), tuple(pads), notes


def volume_fields(zones: Sequence[HurtZone], pads: Sequence[JumpPad],
                  level_xy: Callable[[float, float], Tuple[float, float]]) -> Dict[str, Any]:
    """The Level's ``hurt_box`` float32[K, 6] and ``hurt_damage`` float32[K] (points a second), ``pad_box``
    float32[J, 6] and ``pad_velocity`` float32[J, 3] (units/s) of ``zones`` and ``pads``, a row per box,
    in the level's units (``level_xy`` takes DeepMind Lab's (x, y) there; z is kept)."""
    def rows(volumes):
        out = []
        for volume in volumes:
            for x0, y0, z0, x1, y1, z1 in volume.boxes:
                out.append((*level_xy(x0, y0), z0, *level_xy(x1, y1), z1))
        return np.asarray(out, np.float32).reshape(-1, 6)
    return {"hurt_box": rows(zones),
            "hurt_damage": np.asarray([z.damage_per_second for z in zones for _ in z.boxes], np.float32),
            "pad_box": rows(pads),
            "pad_velocity": np.asarray([p.velocity for p in pads for _ in p.boxes], np.float32).reshape(-1, 3)}

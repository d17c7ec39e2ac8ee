"""A Quake III ``.map``'s hidden platform: a ``func_plat`` raised by ``func_button``s on it, and a
``func_timer`` whose firings reach the level script.

Read for :mod:`jaxlab.levels.dmlab.quake_layout`, as DeepMind Lab's engine (Quake III's movers) plays it:
a ``func_plat`` with a ``targetname`` rests ``height`` units (default: its brushes' height less ``lip``,
8) below where it is drawn, out of sight under the floor. A ``func_button`` standing on it (its brushes
inside the platform's x-y box) is pressed when the player steps there: the one that targets the platform
raises it (``height / speed`` seconds, speed 200 by default), the one that targets the ``func_timer``
travels its length along its ``angle`` less ``lip`` (default 4) at its ``speed`` (default 40) and then
switches the timer on, whose firing calls the script's ``canTrigger``/``trigger`` with the timer's
``id`` (0 without one) and its ``target`` (DeepMind Lab's ``G_UseTargets``; the ``target_callback``
entity of that name is no engine entity and is left out). DeepMind Lab's ``rooms_watermaze`` pays and
ends the map from that call.

jaxlab keeps this as its hidden platform (``Level.platform_*``): the ``func_plat`` becomes a point
entity at its brushes' x-y centre moved by its ``origin`` (an ``origin`` updateSpawnVars gives is read as
that centre, which it is for a platform drawn around (0, 0), as DeepMind Lab's random platforms are),
of radius half its brushes' width; standing on it for :attr:`HiddenPlatform.seconds` (the platform's
rise and the button's press) fires the timer's target, and again after as long while the player stays
(DeepMind Lab's button and timer fire it about that often; its ``playerMover`` callback, which holds the
player on the platform, is not compiled). Other mover layouts (more platforms or timers, a button
elsewhere, a button or timer that reaches no script call) are refused, naming the line.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from jaxlab.levels.dmlab.quake_map import Entity, UnconvertibleMap

PLAT_CLASS, BUTTON_CLASS, TIMER_CLASS, CALLBACK_CLASS = "func_plat", "func_button", "func_timer", "target_callback"
MOVER_CLASSES = (PLAT_CLASS, BUTTON_CLASS, TIMER_CLASS)
PLAT_SPEED, PLAT_LIP = 200.0, 8.0         # Quake III's func_plat defaults: units/s, units
BUTTON_SPEED, BUTTON_LIP = 40.0, 4.0      # func_button's
ANGLE_UP, ANGLE_DOWN = -1.0, -2.0         # Quake's ``angle`` for straight up and down
INSIDE = 1.0                              # units a button may stick out of the platform's box


@dataclasses.dataclass(frozen=True)
class HiddenPlatform:
    """radius: units (half the platform's width); seconds: on it this long fires ``target`` (the timer's
    ``target`` name) with ``spawn_id`` (the timer's ``id``, int) to the script's canTrigger/trigger."""

    radius: float
    seconds: float
    target: str
    spawn_id: int


def number_field(entity: Entity, key: str, default: float, source: str) -> float:
    """The finite number of ``key`` in ``entity``'s fields (``default`` when absent); UnconvertibleMap if not."""
    raw = entity.fields.get(key)
    try:
        value = default if raw is None else float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise UnconvertibleMap(source, f"the {entity.classname} at line {entity.line} has {key} {raw!r}, not a number")
    return value


def _box(entity: Entity) -> Tuple[np.ndarray, np.ndarray]:
    """(lo, hi) float64[3] of an entity's brushes."""
    return np.min([b.lo for b in entity.brushes], axis=0), np.max([b.hi for b in entity.brushes], axis=0)


def _press_seconds(button: Entity, source: str) -> float:
    """Seconds a ``func_button`` takes to travel to its pressed place (Quake III's distance and speed)."""
    lo, hi = _box(button)
    size = hi - lo
    angle = number_field(button, "angle", 0.0, source)
    if angle in (ANGLE_UP, ANGLE_DOWN):
        along = size[2]
    else:
        along = abs(math.cos(math.radians(angle))) * size[0] + abs(math.sin(math.radians(angle))) * size[1]
    speed = number_field(button, "speed", 0.0, source) or BUTTON_SPEED
    return max(along - number_field(button, "lip", BUTTON_LIP, source), 0.0) / speed


def hidden_platform(entities: Sequence[Entity], source: str) -> Tuple[List[Entity], Optional[HiddenPlatform],
                                                                       List[str]]:
    """(the entities with the platform as a point entity and its buttons and timer left out, the
    HiddenPlatform or None when the map has no movers, notes). UnconvertibleMap for another layout."""
    movers = [e for e in entities if e.classname in MOVER_CLASSES]
    if not movers:
        return list(entities), None, []
    plats = [e for e in movers if e.classname == PLAT_CLASS]
    timers = [e for e in movers if e.classname == TIMER_CLASS]
    buttons = [e for e in movers if e.classname == BUTTON_CLASS]
    first = (plats[1:] or timers[1:] or [None])[0]
    if first is not None or len(plats) != 1 or len(timers) != 1 or not plats[0].brushes:
        where = first or (plats or timers or buttons)[0]
        raise UnconvertibleMap(source, f"the {where.classname} at line {where.line}: only one func_plat (of "
                                       "brushes) with one func_timer converts (a hidden platform)")
    plat, timer = plats[0], timers[0]
    lo, hi = _box(plat)
    raises = presses = None
    for button in buttons:
        blo, bhi = _box(button) if button.brushes else (lo - 2 * INSIDE, hi)   # a button of no brushes: nowhere
        target = button.fields.get("target", "")
        if (blo[:2] < lo[:2] - INSIDE).any() or (bhi[:2] > hi[:2] + INSIDE).any():
            raise UnconvertibleMap(source, f"the func_button at line {button.line} does not stand on the func_plat "
                                           f"of line {plat.line}: only buttons on a hidden platform convert")
        if target and target == plat.fields.get("targetname"):
            raises = button
        elif target and target == timer.fields.get("targetname"):
            presses = button
        else:
            raise UnconvertibleMap(source, f"the func_button at line {button.line} has target {target[:40]!r}, "
                                           "which names neither the func_plat nor the func_timer")
    if raises is None or presses is None or not timer.fields.get("target"):
        raise UnconvertibleMap(source, f"the func_plat at line {plat.line} needs a func_button on it that raises it, "
                               "one that switches the func_timer on, and a timer with a target")
    height = number_field(plat, "height", (hi[2] - lo[2]) - number_field(plat, "lip", PLAT_LIP, source), source)
    seconds = abs(height) / (number_field(plat, "speed", 0.0, source) or PLAT_SPEED) + _press_seconds(presses, source)
    try:
        spawn_id = int(float(timer.fields.get("id") or 0))
    except ValueError:
        spawn_id = 0
    found = HiddenPlatform(float(hi[0] - lo[0]) / 2, float(seconds), timer.fields["target"], spawn_id)
    offset = [float(v) for v in (plat.fields.get("origin") or "0 0 0").split()[:2]]
    if len(offset) != 2 or not all(map(math.isfinite, offset)):
        raise UnconvertibleMap(source, f"the func_plat at line {plat.line} has origin {plat.fields['origin'][:40]!r}")
    centre = f"{(lo[0] + hi[0]) / 2 + offset[0]:g} {(lo[1] + hi[1]) / 2 + offset[1]:g} {lo[2] + 0.0:g}"
    point = dataclasses.replace(plat, fields={**plat.fields, "origin": centre}, brushes=())
    kept = [point if e is plat else e for e in entities
            if e.classname not in (BUTTON_CLASS, TIMER_CLASS)
            and not (e.classname == CALLBACK_CLASS and e.fields.get("targetname") == found.target)]
    note = (f"{source}:{plat.line}: the func_plat is a hidden platform of radius {found.radius:g} units: standing "
            f"on it {seconds:.3g} s fires {found.target!r} to the script (the player is not held there)")
    return kept, found, [note]


def platform_fields(platform: Optional[HiddenPlatform], centre: Optional[Tuple[float, float]]) -> Dict[str, object]:
    """The Level's ``platform_pos`` (float32[2] units), ``platform_radius`` and ``platform_seconds`` of a
    converted map's ``platform`` at the level's ``centre`` (x, y units); {} when either is None. It pays
    nothing itself (``platform_reward`` 0): what it fires decides."""
    if platform is None or centre is None:
        return {}
    return {"platform_pos": np.asarray(centre, np.float32), "platform_radius": np.float32(platform.radius),
            "platform_seconds": np.float32(platform.seconds), "platform_reward": np.float32(0.0)}

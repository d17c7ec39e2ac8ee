"""A converted ``.map``'s teleporters and out-of-reach objects in one episode's pickups, and its hidden platform.

A ``trigger_teleport`` (:mod:`jaxlab.levels.dmlab.quake_triggers`: a point entity at its volume's centre
after conversion) becomes a pickup row that looks like a teleport pad (``TELEPORT_PAD_KIND``), is taken
by touch (``units.PICKUP_DISTANCE``, where DeepMind Lab's volume is touched up to its half-width plus the
player's) and is back the next frame, as jaxlab's own teleport pads are. As DeepMind Lab's engine does on
touch, the script's ``canTrigger(id, target)`` (false: the pad does nothing) and ``trigger(id, target)``
(its ``game:addScore`` pays, its ``game:finishMap`` ends the map, true keeps the player where it is) are
asked, once per episode on the host (their answers must not depend on play); otherwise the pad moves the
player to its target, the ``misc_teleporter_dest`` or ``target_position`` of that ``targetname``, facing
its ``angle``. Pickups inside a box closed by invisible player-clip brushes
(``ConvertedMap.enclosures``) cannot be taken. A hidden platform (:mod:`jaxlab.levels.dmlab.quake_movers`)
stands where updateSpawnVars leaves its ``func_plat`` and fires its trigger to the compiled
``canTrigger``/``trigger`` (``compile_lua.dmlab.hooks``); a script with neither has none (nothing it
fires reaches the script). Its hurt zones and jump pads (:mod:`jaxlab.levels.dmlab.quake_volumes`) are the
Level's ``hurt_*`` and ``pad_*`` fields; a kill zone asks ``canTrigger``/``trigger`` once per episode on the
host as a teleporter does (false, or true from trigger: it kills no one), and must not pay or end the map.
Without laser tag's shields a player has no health in jaxlab, so every zone must kill at its first hurt
(at least ``LETHAL`` points).
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from compile_lua.dmlab.entities import PickupClass, entity_id
from compile_lua.dmlab.hooks import PLAYER_ID
from jaxlab.levels.dmlab.object_catalogue import TELEPORT_PAD_KIND
from jaxlab.levels.dmlab.quake_layout import ConvertedMap
from jaxlab.levels.dmlab.quake_movers import PLAT_CLASS, platform_fields
from jaxlab.levels.dmlab.quake_triggers import DESTINATION_CLASSES, TELEPORT_CLASS
from jaxlab.levels.dmlab.quake_volumes import volume_fields

PAD_CLASS = PickupClass(TELEPORT_CLASS, 0.0, False, TELEPORT_PAD_KIND, False)
LETHAL = 100.0   # points: a player's health in DeepMind Lab


class TeleportSteps:
    """Mixed into the DMLab compiler beside ``EpisodeSteps`` (uses its ``tab``, ``error``, ``compiled``,
    ``spawn_number`` and ``pickups``)."""

    def map_pickups(self, items, loaded: ConvertedMap, fps: int) -> List[Dict[str, Any]]:
        """The pickup rows of a converted map's ``items`` ((class, level xy, spawn vars) after
        updateSpawnVars): its pickups (``EpisodeSteps.pickups``; those in an enclosure never taken),
        then a row per teleporter (``teleport_to``: (x, y, yaw) of its destination, or None)."""
        places = {str(v.get("targetname", "")): (*xy, self.spawn_number(v, "angle"))
                  for cls, xy, v in items if cls in DESTINATION_CLASSES}
        pads = [(xy, v) for cls, xy, v in items if cls == TELEPORT_CLASS]
        rows = self.pickups([i for i in items if i[0] not in (TELEPORT_CLASS, PLAT_CLASS) + DESTINATION_CLASSES],
                            loaded.level_xy)
        for row in rows:
            row["takeable"] = row["takeable"] and not loaded.enclosed(*row["pos"])
        if pads and (self.compiled("pickup") or self.compiled("canPickup")):
            raise self.error("the map's teleporters are pickups in jaxlab, and api:pickup / api:canPickup are "
                             "compiled onto the device, which would be asked about them", "nextMap")
        keys = [(entity_id(v), str(v.get("target", ""))) for _, v in pads]
        answers = self.tab.stateless("trigger", keys, self.teleport_answer) if keys else []
        for (xy, _), (spawn_id, target), (can, moves, score, finished) in zip(pads, keys, answers):
            if target not in places:
                raise self.error(f"updateSpawnVars: the trigger_teleport {spawn_id!r} has target {target!r}, which "
                                 "names no teleport destination", "updateSpawnVars")
            rows.append({"class": PAD_CLASS, "pos": xy, "id": spawn_id, "target": "", "wait": 0.0,
                         "spawned_by": -1, "takeable": can, "respawn": 1.0 / fps, "reward": score,
                         "ends_map": finished, "teleport_to": places[target] if moves else None})
        return rows

    def hidden_platform(self, loaded, xy) -> Tuple[Dict[str, Any], List[list]]:
        """(Level fields (``quake_movers.platform_fields``), triggers [[spawn id, target]]) of a converted map's
        hidden platform at the level's ``xy`` (None: updateSpawnVars removed it); ({}, []) without one."""
        found = loaded.platform if isinstance(loaded, ConvertedMap) else None
        if found is None or xy is None or not (self.compiled("canTrigger") or self.compiled("trigger")):
            return {}, []
        return platform_fields(found, xy), [[found.spawn_id, found.target]]

    def body_volumes(self, loaded, shields: bool) -> Dict[str, np.ndarray]:
        """The Level's ``hurt_*`` and ``pad_*`` fields (``quake_volumes.volume_fields``) of a converted map's
        hurt zones and jump pads, the kill zones the script's triggers allow; {} without any. ``shields``: the
        level plays laser tag (bots), whose shields take the damage."""
        if not isinstance(loaded, ConvertedMap) or not (loaded.hurt_zones or loaded.jump_pads):
            return {}
        zones = []
        for zone in loaded.hurt_zones:
            if zone.trigger is not None:
                can, moves, score, finished = self.teleport_answer(zone.trigger)
                if score or finished:
                    raise self.error(f"the kill zone {zone.trigger!r} (line {zone.line} of the map) pays or ends the "
                                     "map from canTrigger/trigger, which jaxlab does not compile for it", "trigger")
                if not (can and moves):
                    continue
            if not shields and zone.hit < LETHAL:
                raise self.error(f"the map's trigger_hurt at line {zone.line} does {zone.hit:g} points a hurt, which "
                                 f"does not kill (under {LETHAL:g}): without laser tag's shields jaxlab's player "
                                 "has no health to lose", "nextMap")
            zones.append(zone)
        return volume_fields(zones, loaded.jump_pads, loaded.level_xy)

    def teleport_answer(self, key: Tuple[Any, str]) -> Tuple[bool, bool, float, bool]:
        """(canTrigger's answer, whether the player is moved (trigger did not answer true), score added,
        whether the map finished) of touching the teleporter ``key`` (id, target)."""
        can, score, finished = True, 0.0, False
        if self.tab.has("canTrigger"):
            can, score, finished, _ = self.tab.call_recorded("canTrigger", *key, PLAYER_ID)
            if not isinstance(can, bool):
                raise self.tab.wrong_answer("canTrigger", "a boolean (true or false)", can)
        handled = False
        if can and self.tab.has("trigger"):
            handled, more, ends, _ = self.tab.call_recorded("trigger", *key, PLAYER_ID)
            if handled is not None and not isinstance(handled, bool):
                raise self.tab.wrong_answer("trigger", "a boolean or nil", handled)
            score, finished = score + more, finished or ends
        return can, not handled, score, finished


def teleport_fields(rows: Sequence[Dict[str, Any]], slots: int) -> Dict[str, np.ndarray]:
    """The Level's ``pickup_teleport`` (int32[slots]), ``teleport_pos`` (float32[T, 2]) and ``teleport_yaw``
    (float32[T]) of pickup ``rows`` with ``teleport_to`` (each distinct destination once); {} when none."""
    places = sorted({row["teleport_to"] for row in rows if row.get("teleport_to") is not None})
    if not places:
        return {}
    index = [places.index(row["teleport_to"]) if row.get("teleport_to") is not None else -1 for row in rows]
    return {"pickup_teleport": np.asarray(index + [-1] * (slots - len(index)), np.int32),
            "teleport_pos": np.asarray([p[:2] for p in places], np.float32),
            "teleport_yaw": np.asarray([p[2] for p in places], np.float32)}

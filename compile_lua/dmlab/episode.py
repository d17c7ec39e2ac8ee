"""One episode of a DMLab script: ``nextMap``, its entities and the per-episode callbacks as one Level.

:class:`EpisodeSteps` is a part of the DMLab compiler (``compile_lua.dmlab.compiler``):
after ``start(episode, seed)`` it calls ``nextMap()``, ``updateSpawnVars`` per
entity, ``createPickup``/``canPickup``/``pickup`` per pickup,
``hasEpisodeFinished`` (the episode length), ``customObservation`` and
``screenMessages``, and builds the episode's Level from their answers.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Dict, List, Tuple, Union

import numpy as np

from compile_lua.dmlab.entities import (entity_id, extra_entities, is_spawn, map_entities, open_removed_doors,
                                        pickup_class, pickup_fields, position, quake_doors, source_entities,
                                        type_name)
from compile_lua.dmlab.hooks import PLAYER_ID, door_targets, pickup_events
from compile_lua.dmlab.lookat import zone_rows
from compile_lua.dmlab.maps import parse_map
from compile_lua.dmlab.tabulate import decorator_seconds, episode_seconds
from compile_lua.dmlab.teleports import teleport_fields
from compile_lua.dmlab.terrain_maps import TerrainMap, decorated
from jaxlab.levels.dmlab.heights import SKY_INDEX
from jaxlab.levels.dmlab.level import Level, build_level
from jaxlab.levels.dmlab.level_fields import custom_obs_array, no_mechanics, screen_text
from jaxlab.levels.dmlab.map_parser import MapError, ParsedMap
from jaxlab.levels.dmlab.quake_layout import DOOR_CLASS, ConvertedMap
from jaxlab.levels.dmlab.quake_movers import PLAT_CLASS
from jaxlab.levels.dmlab.units import CELL_SIZE

COMPILE_FPS = 60                 # frames per second used to tabulate hasEpisodeFinished
DEFAULT_EPISODE_SECONDS = 300.0  # DMLab's default without hasEpisodeFinished
MAX_EPISODE_SECONDS = 3600
SCREEN = {"width": 640, "height": 480, "line_height": 20, "max_string_length": 79}


class EpisodeSteps:
    """The per-episode steps of the DMLab compiler, mixed into it.

    Uses the compiler's ``sandbox`` (the script's Sandbox), ``tab`` (its
    Tabulator), ``source`` (the script path, for messages), ``error(message,
    callback)``, ``warn(message, line)``, ``defined_at(callback)``, ``play`` (its
    ``dmlab.playtime.PlayTime``, or None when no callback is compiled onto the device) and
    ``last_map`` (the map name ``nextMap`` gave last, which a ``''`` keeps; the episodes set it).
    """

    def episode(self, obs_spec, bots) -> Tuple[Level, str]:
        """(Level, map name) of the current episode: positions in DMLab units, times in seconds."""
        name = self.tab.call("nextMap")
        name = self.last_map if name == "" and isinstance(self.last_map, str) and self.last_map else name
        if not isinstance(name, str) or not name:
            raise self.error(f"api:nextMap must return a map name (string; '' keeps the map of the episode "
                             f"before), got {name!r}", "nextMap")
        self.last_map = name
        loaded = self.load_map(name)
        spawns, pickups, doors, kept_doors, plat = self.entities(loaded)
        parsed = loaded.parsed if isinstance(loaded, ConvertedMap) else open_removed_doors(loaded, kept_doors)
        try:
            parsed, locks, opened = quake_doors(parsed, doors, {row["target"] for row in pickups if row["target"]})
        except ValueError as err:
            raise self.error(f"updateSpawnVars: {err}", "updateSpawnVars") from None
        if self.tab.has("mapLoaded"):   # DMLab calls it once the map's entities are in place
            self.tab.call("mapLoaded")
        seconds = DEFAULT_EPISODE_SECONDS
        if self.compiled("hasEpisodeFinished"):
            seconds = float(MAX_EPISODE_SECONDS)   # the compiled callback ends the episode as it plays
            if self.play.decorated("hasEpisodeFinished"):
                seconds = self.decorated_time_limit(spawns)
        elif self.tab.has("hasEpisodeFinished"):
            seconds, capped = episode_seconds(self.tab, COMPILE_FPS, MAX_EPISODE_SECONDS)
            if capped:
                self.warn(f"hasEpisodeFinished never returned true within {MAX_EPISODE_SECONDS} s; "
                          f"episodes last {MAX_EPISODE_SECONDS} s", self.defined_at("hasEpisodeFinished"))
        base = build_level(dataclasses.replace(parsed, pickups=()), seconds)
        plat, plat_triggers = self.hidden_platform(loaded, plat)
        shown, textures = self.screens(loaded)
        if self.play is not None:
            self.record_play(pickups, base, plat_triggers, zone_rows(loaded), textures)
        columns = pickup_fields(pickups, COMPILE_FPS)
        plain = no_mechanics(len(base.door_lock), len(columns["pickup_valid"]), len(spawns))
        level = base.replace(
            spawn_pos=np.asarray([p[:2] for p in spawns], np.float32).reshape(-1, 2),
            spawn_allowed=np.ones((1, len(spawns)), bool),
            spawn_yaw=np.asarray([p[2][0] for p in spawns], np.float32),
            spawn_yaw_range=np.asarray([p[2][1] for p in spawns], np.float32),
            **{name: plain[name]
               for name in ("pickup_key", "pickup_switch", "pickup_teleport", "pickup_counts", "pickup_scale")},
            **columns,
            custom_obs=self.custom_observations(obs_spec),
            **self.screen_messages(),
            bot_skill=np.asarray([b["skill"] for b in bots], np.float32),
            bot_valid=np.ones(len(bots), bool), cleared_restarts=np.bool_(False),   # the script's callbacks decide
        )
        level = level.replace(**teleport_fields(pickups, len(columns["pickup_valid"])), **plat,
                              **self.body_volumes(loaded, bool(bots)), **shown)
        if locks:
            cell_index = {tuple(rc): i for i, rc in enumerate(np.asarray(level.door_cell).tolist())}
            lock = np.asarray(level.door_lock).copy()
            for rc, value in locks.items():
                lock[cell_index[rc]] = value
            level = level.replace(door_lock=lock, pickup_switch=np.asarray(
                [row["target"] in opened for row in pickups] or [False], bool))
        if parsed.floor_z is not None:   # a text level's platforms: heights under the open sky
            level = level.replace(floor_z=parsed.floor_z, sky=np.int32(SKY_INDEX["sky"]))
        if isinstance(loaded, TerrainMap):
            level = decorated(level, loaded)
        return level, name

    def load_map(self, name: str) -> Union[ParsedMap, ConvertedMap]:
        """The map ``name`` (``maps.parse_map``); a converted ``.map``'s notes become warnings."""
        maps = self.sandbox.require("dmlab.system.map_maker")["_maps"]
        made = maps[name]
        try:
            loaded = parse_map(name, self.source, self.sandbox.to_python(made) if made is not None else None,
                               self.sandbox, made_names=_keys(maps))
        except (MapError, ValueError) as err:
            raise self.error(f"in api:nextMap: {err}", "nextMap") from None
        for note in loaded.notes if isinstance(loaded, ConvertedMap) else ():
            self.warn(f"map {name!r}: {note}", self.defined_at("nextMap"))
        return loaded

    def entities(self, loaded: Union[ParsedMap, ConvertedMap]):
        """Spawn points [(x, y, (yaw, range))] (:meth:`spawn_yaw`), pickup rows (dicts), a converted map's doors, the
        (row, col) of a text map's doors updateSpawnVars kept and the level (x, y) of a converted map's hidden
        platform (None without one), after updateSpawnVars and the pickup callbacks.
        A converted ``.map``'s entities carry DeepMind Lab's coordinates, taken into the level after
        updateSpawnVars (``ConvertedMap.level_xy``)."""
        converted = isinstance(loaded, ConvertedMap)
        updated, kept_doors = [], set()
        for door, spawn_vars in [(None, e) for e in source_entities(loaded)] if converted else map_entities(loaded):
            if self.tab.has("updateSpawnVars"):
                result = self.table_answer("updateSpawnVars", "a table of spawn vars or nil (to remove the entity)",
                                           self.tab.call("updateSpawnVars", self.sandbox.table(spawn_vars)))
                if result is None:
                    continue
                spawn_vars = {str(k): v for k, v in result.items()}
            if door is not None:   # a text map's door: its cell is the door, whatever the script wrote
                kept_doors.add(door)
                continue
            updated.append(spawn_vars)
        if self.tab.has("extraEntities"):   # DMLab: added after updateSpawnVars, which they skip
            try:
                updated += extra_entities(self.sandbox.to_python(self.tab.call("extraEntities")))
            except ValueError as err:
                raise self.error(f"extraEntities: {err}", "extraEntities") from None
        spawns, items, doors = [], [], []
        for spawn_vars in updated:
            try:
                xy = position(spawn_vars)
            except ValueError as err:
                raise self.error(f"updateSpawnVars: {err}", "updateSpawnVars") from None
            if converted:
                xy = loaded.level_xy(*xy)
            cls = str(spawn_vars.get("classname", ""))
            if is_spawn(spawn_vars):
                spawns.append((*xy, self.spawn_yaw(spawn_vars)))
            elif converted and cls == DOOR_CLASS:
                row = loaded.parsed.shape[0] - 1 - math.floor(xy[1] / CELL_SIZE)
                doors.append((row, math.floor(xy[0] / CELL_SIZE), spawn_vars))
            else:
                items.append((cls, xy, spawn_vars))
        if not spawns:
            raise self.error("the map has no spawn point left ('P' / info_player_start)", "nextMap")
        rows = self.map_pickups(items, loaded, COMPILE_FPS) if converted else self.pickups(items)
        plats = [xy for cls, xy, _ in items if cls == PLAT_CLASS] if converted else []
        return spawns, rows, doors, kept_doors, plats[0] if plats else None

    def spawn_yaw(self, spawn_vars) -> Tuple[float, float]:
        """(yaw, range) in degrees of a spawn point, as DMLab reads ``angle`` and ``randomAngleRange``
        (default 360): a range of 360 faces any way (yaw NaN), another faces ``angle`` turned by a uniform
        amount within half the range either way (``Level.spawn_yaw_range``)."""
        try:
            angle = float(spawn_vars.get("angle", 0.0))
            spread = float(spawn_vars.get("randomAngleRange", 360.0))
        except (TypeError, ValueError):
            raise self.error(f"updateSpawnVars: spawn point angle {spawn_vars.get('angle')!r} or randomAngleRange "
                             f"{spawn_vars.get('randomAngleRange')!r} is not a number", "updateSpawnVars") from None
        if not (math.isfinite(angle) and 0.0 <= spread <= 360.0):
            raise self.error(f"updateSpawnVars: spawn point angle {angle:g} and randomAngleRange {spread:g}: a "
                             "finite angle and a range of 0 to 360 degrees", "updateSpawnVars")
        return (float("nan"), 0.0) if spread == 360.0 else (angle, spread)

    def pickup_definition(self, cls: str, cache: Dict[str, Any]):
        if cls in cache:
            return cache[cls]
        definition = None
        if self.tab.has("createPickup"):
            definition = self.table_answer("createPickup", "a table (name, classname, model, quantity, "
                                           "type) or nil", self.tab.call("createPickup", cls))
        if definition is None:
            defaults = self.sandbox.to_python(self.sandbox.require("common.pickups")["defaults"])
            definition = defaults.get(cls)
        if definition is None:
            self.warn(f"entity class {cls!r} is neither a default pickup nor made by api:createPickup; "
                      "it is left out")
            cache[cls] = None
            return None
        definition = dict(definition, class_name=cls)
        try:
            made = pickup_class(definition)
        except ValueError as err:
            raise self.error(f"createPickup: {err}", "createPickup") from None
        if not made.modelled:
            self.warn(f"pickup {cls!r} has type {type_name(definition.get('type'))}; only REWARD and GOAL "
                      "pickups are modelled, so it pays nothing", self.defined_at("createPickup"))
        cache[cls] = made
        return made

    def pickups(self, items, to_level=None, parents=None, offset: int = 0) -> List[Dict[str, Any]]:
        """The pickup rows of ``items`` ((class, xy, spawn vars)), then those their ``api:pickup`` spawns
        (``spawned.SpawnedPickups``; ``parents``: each item's spawner, ``offset``: the first row's index)."""
        classes: Dict[str, Any] = {}
        rows = []
        for k, (cls, xy, spawn_vars) in enumerate(items):
            made = self.pickup_definition(cls, classes)
            if made is not None:
                count = self.entity_count(spawn_vars)
                if count and made.modelled:   # DMLab: a REWARD or GOAL entity's count pays instead of quantity
                    made = dataclasses.replace(made, reward=float(count))
                rows.append({"class": made, "pos": xy, "id": entity_id(spawn_vars),
                             "target": str(spawn_vars.get("target") or ""), "wait": self.wait_seconds(spawn_vars),
                             "spawned_by": -1 if parents is None else parents[k]})
        ids = [r["id"] for r in rows]
        if self.tab.has("canPickup") and not self.compiled("canPickup"):   # compiled: asked as it plays
            takeable = self.tab.stateless("canPickup", ids, self.can_pickup)
        else:
            takeable = [True] * len(rows)
        if self.tab.has("pickup") and not self.compiled("pickup"):   # compiled: respawn, score, end as it plays
            results = self.tab.stateless("pickup", ids, self.pickup_result)
        else:
            results = [(-1.0, 0.0, False, ())] * len(rows)
        for row, can, (respawn, score, finished, _) in zip(rows, takeable, results):
            if row["wait"]:   # DMLab: an entity's wait -1 never respawns, another non-zero wait is the delay
                respawn = -1.0 if row["wait"] == -1 else row["wait"]
            row.update(takeable=can, respawn=respawn, reward=row["class"].reward + score,
                       ends_map=row["class"].ends_map or finished)
        return rows + self.spawned_pickups(rows, [r[3] for r in results], to_level, offset)

    def spawn_number(self, spawn_vars, key: str) -> float:
        """A pickup entity's numeric spawn var ``key`` (0 when absent or empty); an error naming
        updateSpawnVars for one that is not a finite number."""
        raw = spawn_vars.get(key, 0) or 0
        try:
            value = float(raw)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            raise self.error(f"updateSpawnVars: pickup {spawn_vars.get('classname')!r} has {key} {raw!r}, not a "
                             "finite number", "updateSpawnVars")
        return value

    def entity_count(self, spawn_vars) -> int:
        """A pickup entity's ``count`` spawn var (0 when absent): DMLab's engine reads it as an integer
        (``atoi``) and pays it instead of the class's quantity where it is not 0."""
        value = self.spawn_number(spawn_vars, "count")
        if abs(value) >= 2 ** 31:
            raise self.error(f"updateSpawnVars: pickup {spawn_vars.get('classname')!r} has count {value:g}: an "
                             "integer score", "updateSpawnVars")
        return int(value)

    def wait_seconds(self, spawn_vars) -> float:
        """A pickup entity's ``wait`` spawn var (seconds; 0 when absent): as in DMLab, -1 keeps it from ever
        respawning and another non-zero value is its respawn delay, whatever ``api:pickup`` answers. A
        ``random`` spread of the delay is taken as 0 (warned)."""
        wait, spread = self.spawn_number(spawn_vars, "wait"), self.spawn_number(spawn_vars, "random")
        if wait < 0 and wait != -1:
            raise self.error(f"updateSpawnVars: pickup {spawn_vars.get('classname')!r} has wait {wait:g}: "
                             "seconds >= 0, or -1 for never", "updateSpawnVars")
        if spread:
            self.warn(f"pickup {spawn_vars.get('classname')!r} has random {spread:g}: jaxlab respawns after "
                      "its wait exactly", self.defined_at("updateSpawnVars"))
        return wait

    def decorated_time_limit(self, spawns) -> float:
        """The time limit a decorator adds around the compiled ``hasEpisodeFinished`` (DMLab's
        ``decorators.timeout``), asked on the host (``tabulate.decorator_seconds``, the player standing at
        the first of ``spawns``). Episodes then end at that limit, or earlier when the compiled callback says so."""
        seconds, capped = decorator_seconds(self.tab, self.play.source.path, spawns[0] if spawns else None,
                                            COMPILE_FPS, MAX_EPISODE_SECONDS)
        if capped:
            self.warn(f"hasEpisodeFinished never returned true within {MAX_EPISODE_SECONDS} s; "
                      f"episodes last {MAX_EPISODE_SECONDS} s", self.defined_at("hasEpisodeFinished"))
        return seconds

    def compiled(self, callback: str) -> bool:
        """Whether ``callback`` depends on play and is compiled onto the device (``dmlab.playtime``)."""
        return self.play is not None and callback in self.play.names

    def record_play(self, pickups, base: Level, platform: List[list], zones: List[list], textures) -> None:
        """The episode's play-time start values (its live ``textures`` too: ``screens``), pickup ids and reward events,
        the targets of the doors of ``base``, the hidden platform's trigger and lookat ``zones``, for the device."""
        ids = [row["id"] for row in pickups]
        bad = [i for i in ids if isinstance(i, bool) or not isinstance(i, int) or not -2 ** 31 <= i < 2 ** 31]
        if bad and self.compiled("pickup"):
            raise self.error(f"api:pickup is compiled onto the device, which needs integer pickup ids; "
                             f"got id {bad[0]!r}", "pickup")
        scores, reasons = pickup_events(pickups)
        odd = [row["class"] for row in pickups if row["class"].modelled and not float(row["class"].reward).is_integer()]
        if odd and self.compiled("rewardOverride"):
            raise self.error(f"api:rewardOverride is compiled onto the device and gets DMLab's integer score; "
                             f"pickup {odd[0].class_name!r} has quantity {odd[0].reward}", "rewardOverride")
        self.play.record_episode({"pickup_ids": [0 if i in bad else i for i in ids], "pickup_scores": scores,
                                  "pickup_reasons": reasons, "door_targets": door_targets(base),
                                  "platform_triggers": platform, "lookat_zones": zones}, textures)

    def table_answer(self, callback: str, expected: str, answer: Any):
        """The table a callback answered, as a dict (an empty table too), or None for nil; LuaScriptError
        naming ``callback`` and ``expected`` for any other answer (a string, a number, a list)."""
        value = self.sandbox.to_python(answer)
        if value is None or isinstance(value, dict):
            return value
        if value == []:
            return {}
        raise self.tab.wrong_answer(callback, expected, value)

    def can_pickup(self, spawn_id) -> bool:
        """``api:canPickup(spawn_id)``: a boolean, or nil for DMLab's default (true)."""
        answer = self.tab.call("canPickup", spawn_id, PLAYER_ID)   # DMLab passes the player (1: the agent)
        if answer is None:
            return True
        if not isinstance(answer, bool):
            raise self.tab.wrong_answer("canPickup", "a boolean (true or false) or nil", answer)
        return answer

    def pickup_result(self, spawn_id):
        """(respawn seconds, -1 for never; score added; whether it finished the map; the entities it spawned with
        ``pickups_spawn:spawn``, each as sorted (key, value) pairs) of ``api:pickup(spawn_id)``, whose answer is
        a finite number of seconds or nil."""
        spawner = self.sandbox.require("dmlab.system.pickups_spawn")
        spawner["_record"](True)
        result, score, finished, console = self.tab.call_recorded("pickup", spawn_id, PLAYER_ID)
        spawned = tuple(tuple(sorted(e.items())) for e in self.sandbox.to_python(spawner["_record"](False)) or [])
        number = isinstance(result, (int, float)) and not isinstance(result, bool)
        if result is not None and not (number and math.isfinite(result)):
            raise self.tab.wrong_answer("pickup", "a respawn time in seconds (a finite number) or nil", result)
        for command in console:
            self.warn(f"game:console({command!r}) is not modelled and is ignored", self.defined_at("pickup"))
        respawn = float(result) if result is not None and result > 0 else -1.0
        return respawn, score, finished, spawned

    def custom_observations(self, specs) -> Dict[str, np.ndarray]:
        out = {}
        for spec in specs:
            if self.play is not None and self.play.observes(spec["name"]):   # its value at the start, on the device
                value = np.asarray(self.play.start_value("customObservation", spec["name"]))
                shape = tuple(spec["shape"])
                if value.size == int(np.prod(shape)) and 0 not in shape:
                    value = value.reshape(shape)
                out[spec["name"]] = self.check_observation(
                    spec, np.clip(value, 0, 255).astype(np.uint8) if spec["type"] == "bytes" else value)
                continue

            def evaluate(name, spec=spec):
                value = self.sandbox.to_python(self.tab.call("customObservation", name))
                if isinstance(value, str):   # a 'string' observation: its UTF-8 bytes
                    value = value.encode("utf-8")
                if isinstance(value, bytes):
                    return np.frombuffer(value, np.uint8).copy()
                return np.asarray(value) if value is not None else None
            value = self.tab.stateless("customObservation", [spec["name"]], evaluate)[0]
            out[spec["name"]] = self.check_observation(spec, value)
        return out

    def check_observation(self, spec, value) -> np.ndarray:
        name, kind, shape = spec["name"], spec["type"], spec["shape"]
        if value is None or value.dtype.kind not in "uif":
            raise self.error(f"customObservation({name!r}) must return a tensor, got {value!r}", "customObservation")
        if kind == "string" and value.ndim != 1:
            raise self.error(f"customObservation({name!r}) must return a string (spec type 'string')",
                             "customObservation")
        if kind == "string":   # any length: the spec's shape of a string is DMLab's {0} or {}
            shape = [0]
        if kind in ("bytes", "string") and value.dtype != np.uint8:
            raise self.error(f"customObservation({name!r}) must return a ByteTensor (spec type '{kind}'), "
                             f"got {value.dtype}", "customObservation")
        if value.ndim != len(shape) or any(s and s != v for s, v in zip(shape, value.shape)):
            raise self.error(f"customObservation({name!r}) returned shape {list(value.shape)}, "
                             f"the spec says {shape} (0 = any size)", "customObservation")
        return custom_obs_array(name, value.astype(np.float64) if kind == "doubles" else value)

    def screen_messages(self) -> Dict[str, np.ndarray]:
        messages = []
        if self.tab.has("screenMessages") and not self.compiled("screenMessages"):   # compiled: drawn as it plays
            def evaluate(_):
                return self.sandbox.to_python(self.tab.call("screenMessages", self.sandbox.table(SCREEN))) or []
            raw = self.tab.stateless("screenMessages", [0], evaluate)[0]
            for entry in raw if isinstance(raw, list) else [raw]:
                if not isinstance(entry, dict) or not isinstance(entry.get("message"), str):
                    raise self.error(f"screenMessages must return a list of {{message, x, y, alignment}}; "
                                     f"got {entry!r}", "screenMessages")
                messages.append(entry)
        return screen_text([(m["message"][:SCREEN["max_string_length"]], float(m.get("x", 0)),
                             float(m.get("y", 0)), int(m.get("alignment", 0))) for m in messages])


def _keys(table) -> List[Any]:
    return list(table.keys()) if hasattr(table, "keys") else []

"""Compile a DMLab Lua level script into a jaxlab level bank.

The script runs once, on the host, in a sandbox. Its callbacks are called in
DMLab's order and their answers become arrays:

- once: ``commandLine(old)``, ``init(settings)``, ``customObservationSpec()``,
  ``addBots()``;
- per episode ``e`` (seed drawn from the compile seed): ``start(e, seed)``,
  ``nextMap()`` (a map made with ``common.make_map`` or a built-in map name),
  ``updateSpawnVars`` per entity, ``createPickup`` per unknown class,
  ``canPickup(id)``/``pickup(id)`` per pickup (the respawn time, the score
  added with ``game:addScore`` and ``game:finishMap`` become that pickup's
  respawn timer, reward and map end), ``hasEpisodeFinished(t)`` (the episode
  length), ``customObservation(name)`` and ``screenMessages(args)``.

Each episode is one Level; the bank stacks them (``env.reset`` samples one,
``Lab.reset(episode=k)`` picks one).
"""
from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import numpy as np
from lupa.lua54 import lua_type

from compile_lua.dmlab.entities import (SPAWN_CLASS, entity_id, map_entities, pickup_class, pickup_fields,
                                  position, type_name)
from compile_lua.errors import CompileWarning, LuaScriptError
from compile_lua.dmlab.maps import parse_map
from compile_lua.sandbox import Sandbox
from compile_lua.dmlab.tabulate import Tabulator, as_dict, episode_seconds
from jaxlab.bank import Bank
from jaxlab.levels.dmlab.level import build_level, custom_obs_array, screen_text
from jaxlab.levels.dmlab.map_parser import MapError, ParsedMap

FORMAT_VERSION = 1
COMPILE_FPS = 60                 # frames per second used to tabulate hasEpisodeFinished
DEFAULT_EPISODE_SECONDS = 300.0  # DMLab's default without hasEpisodeFinished
MAX_EPISODE_SECONDS = 3600
TIME_LIMIT_S = 10.0              # per callback call, before a script is called runaway
SCREEN = {"width": 640, "height": 480, "line_height": 20, "max_string_length": 79}
CALLBACKS = ("commandLine", "init", "customObservationSpec", "addBots", "start", "nextMap",
             "updateSpawnVars", "createPickup", "canPickup", "pickup", "hasEpisodeFinished",
             "customObservation", "screenMessages")

# DMLab callbacks whose answers depend on play as it happens: a script that
# defines one is rejected rather than compiled into something else.
UNSUPPORTED_CALLBACKS = ("think", "rewardOverride", "modifyControl", "onReachedGoal", "canTrigger",
                         "trigger", "lookat", "gameEvent", "mapLoaded", "spawnInventory", "updateInventory",
                         "playerModel", "teamSelect", "newClientInfo", "customDiscreteActionSpec",
                         "customDiscreteActions", "extraEntities", "replaceModelName", "replaceTextureName",
                         "loadTexture", "modifyTexture")


@dataclasses.dataclass
class CompiledLevel:
    """A compiled script: ``bank`` (a ``Bank`` of first-person Levels, one per episode) and
    ``meta`` (JSON-able: source, seed, settings, maps, callbacks, observation
    specs, bots, files read, warnings)."""

    bank: Bank
    meta: Dict[str, Any]

    def summary(self) -> str:
        """A few lines for the CLI: map size, entities, episodes, callbacks."""
        m = self.meta
        lines = [f"compiled {m['source']}: {m['episodes']} episode(s), seed {m['seed']}",
                 f"  maps: {_few(m['maps'])} (largest {m['map_size'][0]}x{m['map_size'][1]} cells)",
                 f"  entities per episode: {m['spawn_points']} spawn point(s), {m['pickups']} pickup(s)",
                 f"  callbacks tabulated: {', '.join(m['callbacks']) or 'none'}"]
        if m["custom_observations"]:
            lines.append("  custom observations: " + ", ".join(
                f"{o['name']} {o['type']}{tuple(o['shape'])}" for o in m["custom_observations"]))
        if m["bots"]:
            lines.append(f"  bots (carried, not simulated): {', '.join(b['name'] for b in m['bots'])}")
        return "\n".join(lines)


def _few(names: List[str], most: int = 4) -> str:
    """Up to ``most`` distinct names in episode order, then how many there are."""
    distinct = list(dict.fromkeys(names))
    if len(distinct) <= most:
        return ", ".join(distinct)
    return f"{', '.join(distinct[:most])}, … ({len(distinct)} distinct)"


def episode_seeds(seed: int, episodes: int) -> List[int]:
    """The ``seed`` argument of ``start`` for each episode: non-negative int32s
    drawn from ``seed`` (numpy SeedSequence)."""
    state = np.random.SeedSequence(int(seed)).generate_state(max(episodes, 1), np.uint32)
    return [int(s) & 0x7FFFFFFF for s in state[:episodes]]


def compile_level(path, settings: Optional[Mapping[str, Any]] = None, episodes: int = 1, seed: int = 0,
                  levels_dir=None) -> Bank:
    """Compile the Lua level script at ``path`` into a level bank.

    Args:
      path: the ``.lua`` script.
      settings: passed to ``api:init`` (values become strings, as in DMLab).
      episodes: how many episodes to compile (the bank's leading axis).
      seed: seeds every episode's ``start(episode, seed)``.
      levels_dir: an extra folder ``require`` searches after the script's own.

    Returns a ``Bank`` of ``episodes`` Levels (``bank.levels`` arrays have a
    leading axis of ``episodes``). Raises
    LuaScriptError (``file:line: message``) on any error in the script.
    """
    return compile_script(path, settings, episodes, seed, levels_dir).bank


def compile_script(path, settings: Optional[Mapping[str, Any]] = None, episodes: int = 1, seed: int = 0,
                   levels_dir=None) -> CompiledLevel:
    """Like ``compile_level`` but returns the bank with its metadata."""
    if int(episodes) < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such level script: {path}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompileWarning)
        compiled = _Compiler(path, settings or {}, levels_dir).run(int(episodes), int(seed))
    compiled.meta["warnings"] = [str(w.message) for w in caught if issubclass(w.category, CompileWarning)]
    for w in caught:   # re-emit for the caller
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return compiled


class _Compiler:
    """One compile: the sandbox, the api table and the per-episode steps."""

    def __init__(self, path: Path, settings: Mapping[str, Any], levels_dir):
        self.path = path
        self.source = str(path)
        self.settings = {str(k): _setting_string(v) for k, v in settings.items()}
        search = [Path(levels_dir)] if levels_dir else []
        self.sandbox = Sandbox(path, search, time_limit_s=TIME_LIMIT_S)
        self.text = path.read_text(encoding="utf-8", errors="replace")
        self.warned: set = set()

    # -- helpers ------------------------------------------------------------------------------
    def error(self, message: str, callback: Optional[str] = None, line: Optional[int] = None):
        """A LuaScriptError at ``line`` or where ``callback`` is defined."""
        if line is None and callback is not None:
            line = self.defined_at(callback)
        return LuaScriptError(self.source, line, message)

    def defined_at(self, callback: str) -> Optional[int]:
        """The line of ``function api:<callback>`` / ``api.<callback> =`` in the script, if found."""
        pattern = re.compile(rf"(function\s+\w+[:.]{callback}\b|\b\w+\.{callback}\s*=)")
        for number, line in enumerate(self.text.splitlines(), 1):
            if pattern.search(line):
                return number
        return None

    def warn(self, message: str, line: Optional[int] = None) -> None:
        """A CompileWarning at ``file:line``, once per compile however many episodes repeat it."""
        text = f"{self.source}:{line}: {message}" if line else f"{self.source}: {message}"
        if text not in self.warned:
            self.warned.add(text)
            warnings.warn(text, CompileWarning, stacklevel=3)

    def last_return_line(self) -> Optional[int]:
        lines = [n for n, l in enumerate(self.text.splitlines(), 1) if re.match(r"\s*return\b", l)]
        return lines[-1] if lines else None

    # -- the compile -------------------------------------------------------------------------
    def run(self, episodes: int, seed: int) -> CompiledLevel:
        api = self.sandbox.load_script()
        if _lua_type(api) != "table":
            raise self.error(f"the script must return its api table (got {_lua_type(api)})",
                             line=self.last_return_line())
        self.api = api
        self.tab = Tabulator(self.sandbox, api, self.source, self.defined_at)
        if not self.tab.has("nextMap"):
            raise self.error("the api table has no nextMap: every level must define api:nextMap(), "
                             "which returns the map to load (e.g. from make_map.makeMap)",
                             line=self.last_return_line())
        used = [name for name in CALLBACKS if self.tab.has(name)]
        for name in _keys(api):
            if not isinstance(name, str) or _lua_type(api[name]) != "function" or name in CALLBACKS:
                continue
            if name in UNSUPPORTED_CALLBACKS:
                raise self.error(f"api:{name} is a DMLab callback that runs during play and cannot be "
                                 f"compiled ahead of time; supported callbacks: {', '.join(CALLBACKS)} "
                                 "(see docs/authoring_lua.md)", name)
            if not name.startswith("_"):
                self.warn(f"api:{name} is not a DMLab callback jaxlab compiles; it is only called by "
                          f"the script itself (compiled: {', '.join(CALLBACKS)})", self.defined_at(name))
        self.command_line()
        if self.tab.has("init"):
            self.tab.call("init", self.sandbox.table(self.settings))
        obs_spec = self.observation_spec()
        bots = self.bots()

        levels, maps = [], []
        for episode, episode_seed in enumerate(episode_seeds(seed, episodes)):
            self.sandbox.seed(episode_seed)
            if self.tab.has("start"):
                self.tab.call("start", episode, episode_seed)
            level, name = self.episode(obs_spec, bots)
            levels.append(level)
            maps.append(name)
        bank = Bank.stack(levels)
        rows, cols = (int(d) for d in np.asarray(bank.levels.cells).shape[1:])
        meta = {
            "format": "jaxlab-level-bank", "version": FORMAT_VERSION, "source": self.source,
            "episodes": episodes, "seed": seed, "episode_seeds": episode_seeds(seed, episodes),
            "settings": self.settings, "maps": maps, "map_size": [rows, cols],
            "spawn_points": int(np.asarray(bank.levels.spawn_pos).shape[1]),
            "pickups": int(np.asarray(bank.levels.pickup_valid).sum(axis=1).max()),
            "callbacks": used, "custom_observations": obs_spec, "bots": bots,
            "files": dict(self.sandbox.files),
        }
        return CompiledLevel(bank, meta)

    def command_line(self) -> None:
        if not self.tab.has("commandLine"):
            return
        commands = self.tab.call("commandLine", "")
        if commands not in (None, "") and str(commands).strip():
            self.warn(f"engine commands are not modelled and are ignored: {str(commands).strip()!r}",
                      self.defined_at("commandLine"))

    def observation_spec(self) -> List[Dict[str, Any]]:
        if not self.tab.has("customObservationSpec"):
            return []
        raw = self.sandbox.to_python(self.tab.call("customObservationSpec")) or []
        specs = []
        for entry in raw if isinstance(raw, list) else [raw]:
            entry = entry if isinstance(entry, dict) else {}
            name, kind, shape = entry.get("name"), entry.get("type"), entry.get("shape", [])
            shape = shape if isinstance(shape, list) else [shape]
            if not isinstance(name, str) or kind not in ("bytes", "doubles") \
                    or not all(isinstance(d, (int, float)) and d >= 0 for d in shape):
                raise self.error(f"customObservationSpec entries need name (string), type ('bytes' or "
                                 f"'doubles') and shape (list of sizes, 0 = variable); got {entry!r}",
                                 "customObservationSpec")
            specs.append({"name": name, "type": kind, "shape": [int(d) for d in shape]})
        if specs and not self.tab.has("customObservation"):
            raise self.error("customObservationSpec lists observations but there is no api:customObservation",
                             "customObservationSpec")
        return specs

    def bots(self) -> List[Dict[str, Any]]:
        if not self.tab.has("addBots"):
            return []
        raw = self.sandbox.to_python(self.tab.call("addBots")) or []
        bots = []
        for entry in raw if isinstance(raw, list) else []:
            skill = entry.get("skill") if isinstance(entry, dict) else None
            if not isinstance(skill, (int, float)) or not 1 <= skill <= 5:
                raise self.error(f"addBots entries need a name and a skill from 1 to 5; got {entry!r}", "addBots")
            bots.append({"name": str(entry.get("name", f"bot{len(bots) + 1}")), "skill": float(skill)})
        return bots

    # -- one episode -------------------------------------------------------------------------
    def episode(self, obs_spec, bots):
        name = self.tab.call("nextMap")
        if not isinstance(name, str) or not name:
            raise self.error(f"api:nextMap must return a map name (string), got {name!r}", "nextMap")
        parsed = self.load_map(name)
        spawns, pickups = self.entities(parsed)
        seconds = DEFAULT_EPISODE_SECONDS
        if self.tab.has("hasEpisodeFinished"):
            seconds, capped = episode_seconds(self.tab, COMPILE_FPS, MAX_EPISODE_SECONDS)
            if capped:
                self.warn(f"hasEpisodeFinished never returned true within {MAX_EPISODE_SECONDS} s; "
                          f"episodes last {MAX_EPISODE_SECONDS} s", self.defined_at("hasEpisodeFinished"))
        base = build_level(dataclasses.replace(parsed, pickups=()), seconds)
        level = base.replace(
            spawn_pos=np.asarray([p for p in spawns], np.float32).reshape(-1, 2),
            spawn_allowed=np.ones((1, len(spawns)), bool),
            **pickup_fields(pickups, COMPILE_FPS),
            custom_obs=self.custom_observations(obs_spec),
            **self.screen_messages(),
            bot_skill=np.asarray([b["skill"] for b in bots], np.float32),
            bot_valid=np.ones(len(bots), bool),
        )
        return level, name

    def load_map(self, name: str) -> ParsedMap:
        maps = self.sandbox.require("common.make_map")["_maps"]
        made = maps[name]
        try:
            return parse_map(name, self.source, self.sandbox.to_python(made) if made is not None else None,
                             made_names=_keys(maps))
        except (MapError, ValueError) as err:
            raise self.error(f"in api:nextMap: {err}", "nextMap") from None

    def entities(self, parsed: ParsedMap):
        """Spawn positions [(x, y)] and pickup rows (dicts) after updateSpawnVars and the pickup callbacks."""
        updated = []
        for spawn_vars in map_entities(parsed):
            if self.tab.has("updateSpawnVars"):
                result = self.tab.call("updateSpawnVars", self.sandbox.table(spawn_vars))
                if result is None:
                    continue
                spawn_vars = {str(k): v for k, v in as_dict(self.sandbox.to_python(result)).items()}
            updated.append(spawn_vars)
        spawns, items = [], []
        for spawn_vars in updated:
            try:
                xy = position(spawn_vars)
            except ValueError as err:
                raise self.error(f"updateSpawnVars: {err}", "updateSpawnVars") from None
            cls = str(spawn_vars.get("classname", ""))
            if cls == SPAWN_CLASS:
                spawns.append(xy)
            else:
                items.append((cls, xy, spawn_vars))
        if not spawns:
            raise self.error("the map has no spawn point left ('P' / info_player_start)", "nextMap")
        return spawns, self.pickups(items)

    def pickup_definition(self, cls: str, cache: Dict[str, Any]):
        if cls in cache:
            return cache[cls]
        definition = None
        if self.tab.has("createPickup"):
            definition = self.sandbox.to_python(self.tab.call("createPickup", cls))
        if definition is None:
            defaults = self.sandbox.to_python(self.sandbox.require("common.pickups")["defaults"])
            definition = defaults.get(cls)
        if definition is None:
            self.warn(f"entity class {cls!r} is neither a default pickup nor made by api:createPickup; "
                      "it is left out")
            cache[cls] = None
            return None
        definition = dict(as_dict(definition), class_name=cls)
        try:
            made = pickup_class(definition)
        except ValueError as err:
            raise self.error(f"createPickup: {err}", "createPickup") from None
        if not made.modelled:
            self.warn(f"pickup {cls!r} has type {type_name(definition.get('type'))}; only REWARD and GOAL "
                      "pickups are modelled, so it pays nothing", self.defined_at("createPickup"))
        cache[cls] = made
        return made

    def pickups(self, items) -> List[Dict[str, Any]]:
        classes: Dict[str, Any] = {}
        rows = []
        for cls, xy, spawn_vars in items:
            made = self.pickup_definition(cls, classes)
            if made is not None:
                rows.append({"class": made, "pos": xy, "id": entity_id(spawn_vars)})
        ids = [r["id"] for r in rows]
        if self.tab.has("canPickup"):
            takeable = self.tab.stateless("canPickup", ids, lambda i: bool(self.tab.call("canPickup", i)))
        else:
            takeable = [True] * len(rows)
        if self.tab.has("pickup"):
            results = self.tab.stateless("pickup", ids, self.pickup_result)
        else:
            results = [(-1.0, 0.0, False)] * len(rows)
        for row, can, (respawn, score, finished) in zip(rows, takeable, results):
            row.update(takeable=can, respawn=respawn, reward=row["class"].reward + score,
                       ends_map=row["class"].ends_map or finished)
        return rows

    def pickup_result(self, spawn_id):
        result, score, finished, console = self.tab.call_recorded("pickup", spawn_id)
        if result is not None and not isinstance(result, (int, float)):
            raise self.error(f"api:pickup must return a respawn time in seconds (or nil), got {result!r}", "pickup")
        for command in console:
            self.warn(f"game:console({command!r}) is not modelled and is ignored", self.defined_at("pickup"))
        respawn = float(result) if result is not None and result > 0 else -1.0
        return respawn, score, finished

    def custom_observations(self, specs) -> Dict[str, np.ndarray]:
        out = {}
        for spec in specs:
            def evaluate(name, spec=spec):
                value = self.sandbox.to_python(self.tab.call("customObservation", name))
                return np.asarray(value) if value is not None else None
            value = self.tab.stateless("customObservation", [spec["name"]], evaluate)[0]
            out[spec["name"]] = self.check_observation(spec, value)
        return out

    def check_observation(self, spec, value) -> np.ndarray:
        name, kind, shape = spec["name"], spec["type"], spec["shape"]
        if value is None or value.dtype.kind not in "uif":
            raise self.error(f"customObservation({name!r}) must return a tensor, got {value!r}", "customObservation")
        if kind == "bytes" and value.dtype != np.uint8:
            raise self.error(f"customObservation({name!r}) must return a ByteTensor (spec type 'bytes'), "
                             f"got {value.dtype}", "customObservation")
        if value.ndim != len(shape) or any(s and s != v for s, v in zip(shape, value.shape)):
            raise self.error(f"customObservation({name!r}) returned shape {list(value.shape)}, "
                             f"the spec says {shape} (0 = any size)", "customObservation")
        return custom_obs_array(name, value.astype(np.float64) if kind == "doubles" else value)

    def screen_messages(self) -> Dict[str, np.ndarray]:
        messages = []
        if self.tab.has("screenMessages"):
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


def _setting_string(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _lua_type(value) -> str:
    """The Lua type name of a value handed back by lupa ('nil' for None)."""
    if value is None:
        return "nil"
    python_types = {bool: "boolean", int: "number", float: "number", str: "string", bytes: "string"}
    return lua_type(value) or python_types.get(type(value), type(value).__name__)


def _keys(table) -> List[Any]:
    return [k for k in table.keys()] if hasattr(table, "keys") else []

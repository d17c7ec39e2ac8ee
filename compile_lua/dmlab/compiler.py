"""Compile a DMLab Lua level script into a jaxlab level bank.

The script runs once, on the host, in a sandbox. Its callbacks are called in
DMLab's order and their answers become arrays:

- once: ``commandLine(old)``, ``init(settings)``, ``customObservationSpec()``,
  ``customDiscreteActionSpec()`` (``compile_lua.dmlab.custom_actions``), ``addBots()``;
- per episode ``e`` (seed drawn from the compile seed): ``start(e, seed)``,
  ``nextMap()`` (a map made with ``common.make_map`` or a built-in map name),
  ``updateSpawnVars`` per entity, ``extraEntities()`` (entities added after those),
  ``createPickup`` per unknown class,
  ``canPickup(id)``/``pickup(id)`` per pickup (the respawn time, the score
  added with ``game:addScore`` and ``game:finishMap`` become that pickup's
  respawn timer, reward and map end), ``hasEpisodeFinished(t)`` (the episode
  length), ``customObservation(name)`` and ``screenMessages(args)``.

Those play-time callbacks that keep state (a pickup counter, ...) are compiled
onto the device instead (``compile_lua.dmlab.playtime``; ``meta["device"]``), and so
are the per-frame and event hooks ``modifyControl``, ``rewardOverride``,
``canTrigger``, ``trigger`` and ``customDiscreteActions`` (``compile_lua.dmlab.hooks``).

Each episode is one Level (built by :mod:`compile_lua.dmlab.episode`); the
bank stacks them (``env.reset`` samples one, ``Lab.reset(episode=k)`` picks
one). ``compile_loaded`` continues from a script already loaded by
:func:`compile_lua.loading.load_script` (the one run that also decided its
kind); ``compile_script``/``compile_level`` load it themselves.
"""
from __future__ import annotations

import dataclasses
import re
import warnings
from typing import Any, Dict, List, Mapping, Optional

import numpy as np

from compile_lua.dmlab.custom_actions import HOOK as CUSTOM_ACTIONS, SPEC
from compile_lua.dmlab.episode import EpisodeSteps
from compile_lua.dmlab.screens import ScreenSteps
from compile_lua.dmlab.teleports import TeleportSteps
from compile_lua.dmlab.spawned import SpawnedPickups
from compile_lua.dmlab.hooks import HOOKS
from compile_lua.dmlab.instruction import CALLBACK, INSTRUCTION, episode_text, level_instructions
from compile_lua.dmlab.playtime import DeviceCallbacks, device_meta
from compile_lua.dmlab.tabulate import Tabulator
from compile_lua.dmlab.inventory import INVENTORY_CALLBACKS, InventoryAnswerError, inventory_changes
from compile_lua.errors import CompileWarning, LuaScriptError
from compile_lua.loading import LoadedScript, load_script
from compile_lua.lua_values import lua_type_name
from jaxlab.bank import Bank
from jaxlab.kernels.first_person.observations import OBSERVATION_NAMES

CALLBACKS = ("commandLine", "init", "customObservationSpec", SPEC, "addBots", "start", "nextMap",
             "updateSpawnVars", "createPickup", "canPickup", "pickup", "hasEpisodeFinished",
             "customObservation", "screenMessages", "mapLoaded", "extraEntities", "loadTexture") + INVENTORY_CALLBACKS \
    + HOOKS

# DMLab callbacks whose answers depend on play as it happens: a script that
# defines one is rejected rather than compiled into something else.
UNSUPPORTED_CALLBACKS = ("think", "onReachedGoal", "gameEvent", "teamSelect")
# DMLab callbacks about the players of a multi-player game (teams, names, game type): jaxlab's compiled
# levels have the agent alone, so they are not called, and a warning says so.
PLAYERS_CALLBACKS = ("team", "newClientInfo", "gameType")
# Observations DMLab's engine computes from play (its decorators list them among a level's custom ones):
# jaxlab's env serves those it has (``OBSERVATION_NAMES``) itself; the compiler does not evaluate them
ENGINE_OBSERVATIONS = ("TEAM.SCORE",)
# DMLab callbacks that change only how the world looks (textures, models): jaxlab draws its own, so a
# script may define them; they are not called, and a warning says so.
APPEARANCE_CALLBACKS = ("replaceModelName", "replaceTextureName", "modifyTexture", "playerModel",
                        "createModel", "registerDynamicItems")


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
        device = m.get("device", {}).get("callbacks", [])
        lines = [f"compiled {m['source']}: {m['episodes']} episode(s), seed {m['seed']}",
                 f"  maps: {_few(m['maps'])} (largest {m['map_size'][0]}x{m['map_size'][1]} cells)",
                 f"  entities per episode: {m['spawn_points']} spawn point(s), {m['pickups']} pickup(s)",
                 f"  callbacks tabulated: {', '.join(c for c in m['callbacks'] if c not in device) or 'none'}"]
        if device:
            lines.append(f"  callbacks compiled onto the device: {', '.join(device)}")
        if m["custom_observations"]:
            lines.append("  custom observations: " + ", ".join(
                f"{o['name']} {o['type']}{tuple(o['shape'])}" for o in m["custom_observations"]))
        custom = m.get("device", {}).get("custom_actions")
        if custom:
            lines.append("  custom actions: " + ", ".join(f"{a['name']} [{a['min']}, {a['max']}]" for a in custom))
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
    """Like ``compile_level`` but returns the bank with its metadata (a CompiledLevel)."""
    if int(episodes) < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    return compile_loaded(load_script(path, levels_dir), settings, episodes, seed)


def compile_loaded(loaded: LoadedScript, settings: Optional[Mapping[str, Any]] = None, episodes: int = 1,
                   seed: int = 0) -> CompiledLevel:
    """Compile a script whose main chunk has already run (``compile_lua.loading.load_script``).

    Continues in ``loaded.sandbox`` with the api ``loaded.returned``; the
    arguments are ``compile_level``'s. Returns a CompiledLevel (bank arrays
    with a leading axis of ``episodes``). Raises LuaScriptError.
    """
    if int(episodes) < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompileWarning)
        compiled = _Compiler(loaded, settings or {}).run(int(episodes), int(seed))
    compiled.meta["warnings"] = [str(w.message) for w in caught if issubclass(w.category, CompileWarning)]
    for w in caught:   # re-emit for the caller
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return compiled


class _Compiler(EpisodeSteps, SpawnedPickups, TeleportSteps, ScreenSteps):
    """One compile: the sandbox, the api table and the per-episode steps (EpisodeSteps, SpawnedPickups,
    TeleportSteps, ScreenSteps)."""

    def __init__(self, loaded: LoadedScript, settings: Mapping[str, Any]):
        self.path = loaded.path
        self.source = str(loaded.path)
        self.settings = {str(k): _setting_string(v) for k, v in settings.items()}
        self.sandbox = loaded.sandbox
        self.returned = loaded.returned
        self.loaded = loaded
        self.text = self.path.read_text(encoding="utf-8", errors="replace")
        self.warned: set = set()
        self.engine_observations: List[str] = []   # names the script lists that are the engine's own
        self.instructions: List[str] = []   # each episode's INSTR at its start (``record_instruction``)
        self.texture_names: List[str] = []   # the live textures screens show (``ScreenSteps``)

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
        api = self.returned
        if lua_type_name(api) != "table":
            raise self.error(f"the script must return its api table (got {lua_type_name(api)})",
                             line=self.last_return_line())
        self.api = api
        self.tab = Tabulator(self.sandbox, api, self.source, self.defined_at)
        if not self.tab.has("nextMap"):
            raise self.error("the api table has no nextMap: every level must define api:nextMap(), "
                             "which returns the map to load (e.g. from make_map.makeMap)",
                             line=self.last_return_line())
        used = [name for name in CALLBACKS if self.tab.has(name)]
        for name in _keys(api):
            if not isinstance(name, str) or lua_type_name(api[name]) != "function" or name in CALLBACKS:
                continue
            if name in APPEARANCE_CALLBACKS:
                self.warn(f"api:{name} changes how the world looks; jaxlab draws its own textures and models "
                          "and does not call it", self.defined_at(name))
                continue
            if name in PLAYERS_CALLBACKS:
                self.warn(f"api:{name} is about the players of a multi-player game; the agent plays alone in "
                          "jaxlab's compiled levels, so it is not called", self.defined_at(name))
                continue
            if name in UNSUPPORTED_CALLBACKS:
                raise self.error(f"api:{name} is a DMLab callback that runs during play and cannot be "
                                 f"compiled ahead of time; supported callbacks: {', '.join(CALLBACKS)} "
                                 "(see docs/authoring_lua.md)", name)
            if not name.startswith("_"):
                self.warn(f"api:{name} is not a DMLab callback jaxlab compiles; it is only called by "
                          f"the script itself (compiled: {', '.join(CALLBACKS)})", self.defined_at(name))
        self.custom_actions_callbacks()
        self.play = device_meta(self.loaded, self.settings)   # runs init when callbacks are compiled
        self.last_map = self.play.first_map if self.play is not None else None
        for where, line, text in self.play.skipped if self.play is not None else ():
            if where == str(self.source):
                self.warn(text, line)
            else:
                self.warn(f"{where}:{line}: {text}")
        if self.play is None and self.tab.has("init"):
            self.tab.call("init", self.sandbox.table(self.settings))
        self.command_line()   # after init, as DMLab calls them
        obs_spec = self.observation_spec()
        bots = self.bots()

        levels, maps, events = [], [], []
        for episode, episode_seed in enumerate(episode_seeds(seed, episodes)):
            self.sandbox.seed(episode_seed)
            if self.tab.has("start"):
                self.tab.call("start", episode, episode_seed)
            level, name = self.episode(obs_spec, bots)
            self.record_instruction()
            levels.append(level)
            maps.append(name)
            events.append(self.take_events())
        inventory = self.inventory(levels[0])
        device = None if self.play is None else dict(self.play.meta(), observations=[
            o["name"] for o in obs_spec if self.play.observes(o["name"])], textures=self.texture_names)
        levels, words = self.with_instructions(levels)
        bank = Bank.stack(levels)
        rows, cols = (int(d) for d in np.asarray(bank.levels.cells).shape[1:])
        meta = {
            "source": self.source,
            "episodes": episodes, "seed": seed, "episode_seeds": episode_seeds(seed, episodes),
            "settings": self.settings, "maps": maps, "map_size": [rows, cols],
            "spawn_points": int(np.asarray(bank.levels.spawn_pos).shape[1]),
            "pickups": int(np.asarray(bank.levels.pickup_valid).sum(axis=1).max()),
            "callbacks": used, "custom_observations": obs_spec, "bots": bots, "inventory": inventory,
            "engine_observations": self.engine_observations, "events": events,
            "files": dict(self.sandbox.files), "instruction_words": list(words),
        }
        if device is not None:   # traced once more as the parent will: a wrong kind of answer fails here
            meta["device"] = device
            shapes = {name: np.asarray(a).shape[1:] for name, a in bank.levels.custom_obs.items()}
            pickups, doors = (int(np.asarray(a).shape[1]) for a in (bank.levels.pickup_valid, bank.levels.door_valid))
            DeviceCallbacks(device, self.source, pickups, doors, words).check(shapes)
        return CompiledLevel(bank, meta)

    def record_instruction(self) -> None:
        """When the script lists INSTR, keep the episode's instruction at its start (``instruction.episode_text``;
        empty when the answer is no string)."""
        if INSTRUCTION in self.engine_observations and self.tab.has("customObservation"):
            self.instructions.append(episode_text(self.sandbox, self.tab) or "")

    def with_instructions(self, levels: List[Any]):
        """(``levels`` with each episode's instruction at its start as its INSTR tokens (``Level.instr``), the
        level's own words (``instruction.level_instructions``))."""
        if not self.instructions:
            return levels, ()
        played = self.play.translation if self.play is not None and CALLBACK in self.play.names else None
        rows, words = level_instructions(self.instructions, played, self.source, self.defined_at("customObservation"))
        return [level.replace(instr=row) for level, row in zip(levels, rows)], words

    def custom_actions_callbacks(self) -> None:
        """Refuse a custom action spec without ``customDiscreteActions`` (DMLab stops at its first step); warn
        that the callback without a spec is never called (DMLab calls it only for the spec's actions)."""
        if self.tab.has(SPEC) and not self.tab.has(CUSTOM_ACTIONS):
            raise self.error(f"api:{SPEC} lists custom actions but there is no api:{CUSTOM_ACTIONS} to take "
                             "their values", SPEC)
        if self.tab.has(CUSTOM_ACTIONS) and not self.tab.has(SPEC):
            self.warn(f"api:{CUSTOM_ACTIONS} is never called: there is no api:{SPEC} listing custom actions",
                      self.defined_at(CUSTOM_ACTIONS))

    def inventory(self, level) -> Dict[str, Dict[str, Any]]:
        """The changes the inventory callbacks make to the agent's load-out at its first spawn point
        (``compile_lua.dmlab.inventory``), each named in a warning: jaxlab does not play inventories."""
        spawn = np.asarray(level.spawn_pos)[0]
        try:
            found = inventory_changes(self.sandbox, self.tab, spawn)
        except InventoryAnswerError as err:
            raise self.error(str(err), err.callback) from None
        for name, changed in found.items():
            self.warn(f"api:{name} changes the player's {', '.join(sorted(changed))}, which jaxlab's levels do "
                      "not play yet (the changes are kept in the compiled file's meta as 'inventory')",
                      self.defined_at(name))
        return found

    def take_events(self) -> List[list]:
        """The events the episode's callbacks raised with ``dmlab.system.events`` (in ``start``, ``nextMap``,
        ...), oldest first, as JSON data: [name, [observation, ...]], each observation a string or
        {"dtype", "shape", "data"} for a tensor (``jaxlab.hosts.dmlab.decoded_events`` reads them)."""
        raised = self.sandbox.to_python(self.sandbox.require("dmlab.system.events")["_take"]()) or []
        out = []
        for event in raised:
            observations = event.get("observations") or []
            observations = observations if isinstance(observations, list) else []
            out.append([event["name"], [o if isinstance(o, str) else
                                        {"dtype": str(np.asarray(o).dtype), "shape": list(np.shape(o)),
                                         "data": np.asarray(o).reshape(-1).tolist()} for o in observations]])
        return out

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
            kind = kind.lower() if isinstance(kind, str) else kind   # DMLab's 'Bytes', 'Doubles', 'String'
            shape = shape if isinstance(shape, list) else [shape]
            if not isinstance(name, str) or kind not in ("bytes", "doubles", "string") \
                    or not all(isinstance(d, (int, float)) and d >= 0 for d in shape):
                raise self.error(f"customObservationSpec entries need name (string), type ('bytes', 'doubles' "
                                 f"or 'string', any case) and shape (list of sizes, 0 = variable); got {entry!r}",
                                 "customObservationSpec")
            if name in OBSERVATION_NAMES or name in ENGINE_OBSERVATIONS or name.startswith("DEBUG."):
                self.engine_observations.append(name)   # the engine's own: jaxlab's env serves its own
                continue
            if any(s["name"] == name for s in specs):
                raise self.error(f"customObservationSpec lists observation {name!r} twice; each name once",
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


def _setting_string(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _keys(table) -> List[Any]:
    return [k for k in table.keys()] if hasattr(table, "keys") else []

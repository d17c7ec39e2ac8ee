"""DMLab callbacks that keep state, compiled onto the device (``compile_lua.device``) instead of tabulated.

The callbacks that depend on play (``play_reach.play_callbacks``) are translated
(:class:`PlayTime`, in the compile's child process; ``canPickup``, ``customObservation`` and
``screenMessages`` may read the state, not change it), together with the hooks (``modifyControl``,
``rewardOverride``, ``canTrigger``, ``trigger``), which are always translated: their arguments are
play itself. Callbacks that do not depend on play stay tabulated. When they change what a decorator's setter
writes and the level lists INSTR, the api's live ``customObservation('INSTR')`` is translated too
(``compile_lua.dmlab.instruction``).
The compile's meta carries what the parent needs (``meta["device"]``: the source, the state layout,
each episode's start values, constants, strings, pickup ids and reward events, door targets, custom
observation names), and :class:`DeviceCallbacks` rebuilds the translation from it (parsing only, no
Lua runs) as the first-person kernel's ``ScriptHooks``.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from lupa.lua54 import lua_type

from compile_lua.device import read_host_state, translate
from compile_lua.device.source import Outline, reject, written
from compile_lua.device.conversions import SCRIPT_ERROR
from compile_lua.device.host_objects import graph_from_json, graph_json
from compile_lua.device.live_textures import TEXTURE
from compile_lua.device.translate import rebuild, settle_callbacks
from compile_lua.dmlab.custom_actions import (HOOK as CUSTOM_ACTIONS, SPEC, example as custom_example, read_spec,
                                              seed_state)
from compile_lua.device.upvalues import setters
from compile_lua.dmlab.episode import SCREEN
from compile_lua.dmlab.hooks import (EXAMPLES, HOOKS, PLAYER_ID, TABLE_STRINGS, EventHooks, calls, episode_table,
                                     id_bounds, settle, trigger_keys)
from compile_lua.dmlab.instruction import CALLBACK, INSTRUCTION, InstructionHooks, plays_instruction
from compile_lua.dmlab.play_reach import COMPILED, PLAY, play_callbacks, reachable, touched_keys
from compile_lua.dmlab.play_state import completed, episode_start, layout_json, layout_tuple, plain
from compile_lua.dmlab.playsource import OBSERVATION, PlaySource, play_source, registered
from compile_lua.dmlab.registrations import play_outline, tabulated
from compile_lua.dmlab.skipped import skipped_calls
from compile_lua.loading import LoadedScript
from jaxlab.env import select_tree

class PlayTime:
    """The compile-side half (in the child): translate the play callbacks after ``init``, record each
    episode's start values and pickup ids, and describe it all as ``meta["device"]``. ``out``: the play
    source's outline (``registrations.play_outline``); ``written_by``: api field -> the variables its function
    (a decorator's setter) assigns (``device.upvalues.setters``)."""

    def __init__(self, loaded: LoadedScript, names: List[str], settings: Mapping[str, Any], source: PlaySource,
                 out: Outline, written_by: Mapping[str, Set[str]]):
        self.loaded = loaded
        self.names = names
        self.source = source
        self.first_map = None   # what nextMap returned when the translation ran it
        self.translation_outline = out
        self.touched = touched = set().union(*(touched_keys(out, reachable(out, name), written_by)
                                               for name in names))
        #: each callback's example arguments (customDiscreteActions': set by :meth:`next_map` from the spec)
        self.examples = {name: COMPILED.get(name) or EXAMPLES.get(name) for name in names if name not in TABLE_STRINGS}
        #: the custom actions (``custom_actions.read_spec``), read by :meth:`next_map`
        self.custom_actions: List[Dict[str, Any]] = []
        self.seeded: Dict[str, Any] = {}   # state only customDiscreteActions sets (``custom_actions.seed_state``)
        self.wrapped: set = set()   # callbacks under a decorator's wrapper once init has run (:meth:`next_map`)
        self.translation = tr = translate(loaded, self.examples, settings,
                                          start_args=(0, 0),   # run when the script defines start
                                          source=out,
                                          then=self.next_map, touched=touched, table=source.table,
                                          bounds=id_bounds([]),
                                          nil_false=self.wrapped)
        tr.callbacks.update({name: tr.step_fn(name) for name in names if name in TABLE_STRINGS})
        tr.nil_results_refused = True
        self.settle([])
        #: (file, line, warning) of each engine call the translation skips, for the compile's warnings
        self.skipped = skipped_calls(out, [f for name in names if name in out.methods for f in reachable(out, name)])
        #: custom observations the decorator answers with functions that are not compiled (``registrations``)
        self.tabulated = tabulated(source, registered(loaded.sandbox, loaded.returned, OBSERVATION))
        self.starts: List[Dict[str, Any]] = []
        self.events: Dict[str, List[list]] = {k: [] for k in ("pickup_ids", "pickup_scores", "pickup_reasons",
                                                              "door_targets", "platform_triggers", "lookat_zones")}

    def observes(self, name: str) -> bool:
        """Whether the custom observation ``name`` is compiled onto the device (else tabulated)."""
        return "customObservation" in self.names and name not in self.tabulated

    def decorated(self, name: str) -> bool:
        """Whether the api's live callback ``name`` is a decorator's wrapper (written in another file) around
        the one translated from the play source (DMLab's ``decorators.timeout`` around ``hasEpisodeFinished``)."""
        api = self.loaded.returned
        at = self.loaded.sandbox.defined_at(api[name]) if lua_type(api[name]) == "function" else None
        return at is not None and at[0] != self.source.path

    def next_map(self) -> None:
        """``nextMap`` as the first episode calls it after ``start`` (translate runs both once before reading
        the state, so state they set is play-time state too); its map name is kept (:attr:`first_map`): a
        script whose next ``nextMap`` returns '' keeps that map. Then, with ``customDiscreteActions``
        compiled, the custom action spec (:attr:`custom_actions`) and the callback's example arguments."""
        api, sandbox = self.loaded.returned, self.loaded.sandbox
        if _defines(self.loaded, "nextMap"):
            self.first_map = sandbox.call_method(api, "nextMap")
        self.wrapped.update(name for name in self.names if name in COMPILED and self.decorated(name))
        if plays_instruction(self.loaded, self.touched):   # INSTR as it plays: the api's live customObservation
            self.names.append(CALLBACK)
            self.examples[CALLBACK] = (INSTRUCTION,)
            self.touched.add(CALLBACK)
        if CUSTOM_ACTIONS in self.names:
            method = self.translation_outline.methods.get(SPEC)
            self.custom_actions = read_spec(sandbox.to_python(sandbox.call_method(api, SPEC)),
                                            self.translation_outline.path, method.line if method else None)
            self.examples[CUSTOM_ACTIONS] = custom_example(self.custom_actions)
            self.seeded = seed_state(self.loaded, self.translation_outline, self.source.table, self.custom_actions)

    def settle(self, targets: List[Tuple[int, str]]) -> None:
        """With hooks, trace every callback as the kernel will (each reward reason, each trigger (spawn id,
        target) of ``targets``) until the state's kinds stop widening (``hooks.settle``)."""
        if any(name in HOOKS for name in self.names):
            settle(self.translation, calls(self.names, targets, self.examples))

    def start_value(self, callback: str, *args) -> Any:
        """``callback(*args)``'s result on the device at the script's state now (the episode's start):
        what a compiled ``customObservation`` shows before the first step."""
        tr = self.translation
        now = self.episode_values()
        state = {"key": jax.random.PRNGKey(0), "vars": tr.state_vars({k: now.get(k) for k in tr.layout})}
        return tr.callbacks[callback](state, tr.inputs(), *args)[1]

    def episode_values(self) -> Dict[str, Any]:
        """The play variables' start values now (``play_state.episode_start``), a new object variant traced at once."""
        start, added = episode_start(self.translation, self.loaded, self.source.table)
        if added:
            settle_callbacks(self.translation, self.examples)
            self.settle([])
        return {**self.seeded, **start}

    def record_episode(self, events: Mapping[str, list], textures: Mapping[str, Any]) -> None:
        """After ``start`` and the episode's entities: its play variables' start values (with its live
        ``textures``, state key -> image, ``compile_lua.dmlab.screens``), and ``events``:
        its pickup ids, pickup reward events (``hooks.pickup_events``: ``pickup_scores``,
        ``pickup_reasons``), door targets (``hooks.door_targets``), hidden platform triggers
        (``platform_triggers``: [[spawn id, target]] or []) and lookat zones (``lookat_zones``)."""
        tr = self.translation   # a live texture no screen of the map shows starts at zeros
        self.starts.append({**{k: tr.start[k] for k in tr.layout if k.startswith(TEXTURE)}, **self.episode_values(),
                            **textures})
        for key, rows in self.events.items():
            rows.append(list(events[key]))

    def meta(self) -> Dict[str, Any]:
        """``meta["device"]``: what :class:`DeviceCallbacks` rebuilds the callbacks from."""
        tr = self.translation
        self.starts = completed(tr, self.starts)
        for i, start in enumerate(self.starts):
            missing = [k for k in tr.layout if k not in start]
            if missing:
                reject(tr.outline.path, None, f"play-time state {missing[0]} of episode {i}",
                       "start left it without a number, boolean, string or fixed table")
        tr.bounds = id_bounds(self.events["pickup_ids"])   # traced again with the ids the kernel passes
        settle(tr, calls(self.names, trigger_keys(self.events), self.examples))
        spawn_vars = tr.outline.methods.get("updateSpawnVars")
        set_on_load = written(dataclasses.replace(tr.outline, methods={}, functions={"": spawn_vars})) \
            if spawn_vars is not None else set()
        return {"callbacks": list(self.names), "source": self.source.text, "source_path": self.source.path,
                "map_keys": sorted(k for k in tr.layout if k in set_on_load),
                "factory": self.source.factory, "api": self.source.api, "registered": list(self.source.observations),
                "layout": {k: layout_json(v) for k, v in tr.layout.items()},
                "constants": {k: plain(v) for k, v in tr.constants.items()},
                "strings": list(tr.strings), "starts": self.starts, **self.events,
                "custom_actions": self.custom_actions,
                "wrapped": sorted(self.wrapped),
                "objects": [graph_json(g) for g in tr.object_graphs], "object_variants": tr.object_variants}


class DeviceCallbacks(EventHooks, InstructionHooks):
    """The first-person kernel's ``ScriptHooks`` of a compiled script, rebuilt from ``meta["device"]``
    (``path``: the script's name, for messages). ``pickups``, ``doors``: the bank's pickups (N) and
    doors (D) per level; ``instruction_words``: the level's own instruction words (``meta["instruction_words"]``)."""

    def __init__(self, device: Mapping[str, Any], path: str, pickups: int, doors: int,
                 instruction_words: Sequence[str] = ()):
        layout = {k: layout_tuple(v) for k, v in device["layout"].items()}
        names = list(device["callbacks"])
        source = PlaySource(device.get("source_path") or path, device["source"], device.get("factory"),
                            device.get("api"), observations=tuple(device.get("registered", ())))
        self.translation = tr = rebuild(play_outline(source),
                                        layout, {}, device["constants"], names, bounds=id_bounds(device["pickup_ids"]),
                                        objects=[graph_from_json(g) for g in device.get("objects", ())],
                                        variants=device.get("object_variants"))
        tr.nil_results_refused, tr.nil_false = True, frozenset(device.get("wrapped", ()))
        for text in device["strings"]:
            tr.intern(text)
        self.has_can_pickup = "canPickup" in names
        self.has_pickup = "pickup" in names
        self.has_episode_finished = "hasEpisodeFinished" in names
        # under a decorator's wrapper (``hasEpisodeFinished(api, t) or ...``) the compiled callback may return nothing
        self.wrapped = frozenset(device.get("wrapped", ()))
        self.observes = tuple(device.get("observations", ())) if "customObservation" in names else ()
        self.has_screen = "screenMessages" in names
        self.texture_keys = [TEXTURE + name for name in device.get("textures", ())]
        self.has_textures = bool(self.texture_keys)
        self.init_instruction(names, instruction_words)
        episodes = [tr.state_vars({k: s.get(k) for k in layout}) for s in device["starts"]]   # nil: not set yet
        self.starts = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *episodes) if layout else {}
        self.pickup_ids = episode_table(device["pickup_ids"], pickups)
        self.map_keys = [k for k in device.get("map_keys", ()) if k in layout]
        self.init_hooks(device, pickups, doors)

    def start(self, level_index, key) -> Dict[str, Any]:
        """The play state of an episode of bank level ``level_index``: ``{"key", "vars"}`` (and the door
        triggers' ``"doors"``, :meth:`hooks_start`)."""
        return {"key": key, "vars": jax.tree_util.tree_map(lambda a: a[level_index], self.starts),
                **self.hooks_start()}

    def script_error(self, play):
        """bool[]: the play state's ``error.script`` flag (``device.conversions.SCRIPT_ERROR``), None when no
        compiled callback can set it."""
        return play["vars"][SCRIPT_ERROR] if SCRIPT_ERROR in self.translation.layout else None

    def map_restart(self, play, level_index, restart):
        """``play`` with the variables ``updateSpawnVars`` sets (:attr:`map_keys`) back at the episode's
        start values (what it set as the first map loaded) when ``restart`` (bool[]): DMLab calls it again
        as the map loads back. Exact for a script that sets them to the same values each time."""
        if not self.map_keys:
            return play
        start = {k: jax.tree_util.tree_map(lambda a: a[level_index], self.starts[k]) for k in self.map_keys}
        back = select_tree(restart, start, {k: play["vars"][k] for k in self.map_keys})
        return dict(play, vars={**play["vars"], **back})

    def textures(self, play):
        """uint8[T, h, w, 3]: the live textures (``meta["device"]["textures"]``' order) as ``play`` holds them, RGB."""
        return jnp.stack([play["vars"][key][..., :3] for key in self.texture_keys])

    def can_pickup(self, play, inputs, level_index):
        """bool[N]: ``api:canPickup(id, 1)`` of each pickup of bank level ``level_index`` (nil: true)."""
        def one(spawn_id):
            result = self.translation.callbacks["canPickup"](play, inputs, spawn_id, PLAYER_ID)[1]
            return jnp.bool_(True) if result is None else jnp.asarray(result, jnp.bool_)
        return jax.vmap(one)(self.pickup_ids[level_index])

    def pickup(self, play, inputs, level_index, index):
        """``api:pickup(id, 1)`` of the level's pickup ``index``: (play, respawn seconds, score, finish)."""
        play, result, effects = self.run("pickup", play, inputs, self.pickup_ids[level_index, index], PLAYER_ID)
        seconds = jnp.float32(0.0) if result is None else jnp.asarray(result, jnp.float32)
        return play, seconds, effects["score"], effects["finish"]

    def episode_finished(self, play, inputs, seconds):
        """``api:hasEpisodeFinished(seconds)``: (play, ended, score, finish)."""
        play, result, effects = self.run("hasEpisodeFinished", play, inputs, seconds)
        ended = jnp.bool_(False) if result is None else jnp.asarray(result, jnp.bool_)
        return play, ended, effects["score"], effects["finish"]

    def observe(self, play, inputs, name: str):
        """``api:customObservation(name)`` (``name`` one of :attr:`observes`): its table or tensor, as an array
        (the caller casts and shapes it as the level's tabulated observation)."""
        return self.translation.callbacks["customObservation"](play, inputs, name)[1]

    def screen(self, play, inputs) -> Dict[str, Any]:
        """``api:screenMessages(args)`` as ``Level``'s text fields: ``text_chars`` int32[M, L] (code points,
        cut at max_string_length), ``text_pos`` float32[M, 2], ``text_align`` int32[M], ``text_valid`` bool[M]."""
        result = self.translation.callbacks["screenMessages"](play, inputs, SCREEN)[1]
        messages = [] if result is None or result == {} else result if isinstance(result, list) else [result]
        table = _code_points(self.translation.strings, SCREEN["max_string_length"])
        f = jnp.float32
        return {"text_chars": jnp.stack([table[m["message"]] for m in messages]) if messages else
                jnp.zeros((0, 1), jnp.int32),
                "text_pos": jnp.asarray([[jnp.asarray(m.get("x", 0), f), jnp.asarray(m.get("y", 0), f)]
                                         for m in messages], f).reshape(-1, 2),
                "text_align": jnp.asarray([jnp.asarray(m.get("alignment", 0), jnp.int32) for m in messages],
                                          jnp.int32).reshape(-1),
                "text_valid": jnp.ones(len(messages), bool)}

    def check(self, observations: Optional[Mapping[str, tuple]] = None) -> None:
        """Trace each callback once; LuaScriptError where a result is not what DMLab expects.
        ``observations``: custom observation name -> its tabulated shape (the compiled one must have
        as many elements)."""
        tr, out = self.translation, self.translation.outline
        state = {"key": jax.random.PRNGKey(0), "vars": jax.tree_util.tree_map(lambda a: a[0], self.starts)}
        for name in self.observes:
            got = jax.eval_shape(functools.partial(self.observe, name=name), state, tr.inputs())
            size = int(np.prod((observations or {}).get(name, ())))
            if getattr(got, "ndim", None) is None or got.dtype == jnp.bool_ or got.size != size:
                reject(out.path, out.methods["customObservation"].line,
                       f"api:customObservation('{name}') returning {_describe(got)}",
                       f"it must return a tensor of numbers of the spec's {size} element(s)")
        expect = {"pickup": "a respawn time in seconds (a number) or nil",
                  "hasEpisodeFinished": "a boolean (true or false)", "canPickup": "a boolean (true or false) or nil"}
        if self.has_screen:
            result = jax.eval_shape(tr.callbacks["screenMessages"], state, tr.inputs(), SCREEN)[1]
            messages = [] if result is None or result == {} else result if isinstance(result, list) else [result]
            for m in messages:
                if not isinstance(m, dict) or getattr(m.get("message"), "dtype", None) != jnp.int32:
                    reject(out.path, out.methods["screenMessages"].line, "api:screenMessages returning "
                           f"{_describe(m) if not isinstance(m, dict) else sorted(m)}",
                           "it must return a list of {message = <string>, x, y, alignment}")
        for name, example in COMPILED.items():
            if name not in tr.callbacks or name in ("customObservation", "screenMessages"):
                continue
            result = jax.eval_shape(tr.callbacks[name], state, tr.inputs(), *example)[1]
            dtype = getattr(result, "dtype", None)
            boolean = dtype == jnp.bool_ and result.shape == ()
            good = {"hasEpisodeFinished": boolean or (result is None and name in self.wrapped),
                    "canPickup": result is None or boolean}.get(
                name, result is None or (dtype is not None and dtype != jnp.bool_ and result.shape == ()))
            if not good:
                reject(out.path, out.methods[name].line, f"api:{name} returning {dtype or type(result).__name__}",
                       f"it must return {expect[name]}")
        self.check_hooks(state)
        self.check_instruction(state)


def _code_points(strings: List[str], length: int):
    """int32[S, length]: each string's code points, cut at ``length``, 0-padded."""
    table = np.zeros((max(len(strings), 1), length), np.int32)
    for i, text in enumerate(strings):
        codes = [ord(c) for c in text[:length]]
        table[i, :len(codes)] = codes
    return jnp.asarray(table)


def _describe(result) -> str:
    shape = getattr(result, "shape", None)
    return "nil" if result is None else f"{result.dtype}{list(shape)}" if shape is not None else type(result).__name__


def _defines(loaded: LoadedScript, name: str) -> bool:
    """Whether the script's api has the callback ``name`` (a function)."""
    api = loaded.returned
    return lua_type(api) == "table" and lua_type(api[name]) == "function"


def device_meta(loaded: LoadedScript, settings: Mapping[str, Any]) -> Optional[PlayTime]:
    """A PlayTime for ``loaded`` when some of its callbacks depend on play or it defines a hook (running
    ``init``), else None."""
    source = play_source(loaded, PLAY)
    out = play_outline(source)
    now = read_host_state(loaded, out, source.table)
    written_by = {k: set(v) for k, v in setters(loaded.sandbox, source.table or loaded.returned, out.methods).items()}
    found = play_callbacks(out, {k for k, v in now.items() if isinstance(v, (str, int, float, bool))}, written_by)
    names = [name for name in (*COMPILED, *HOOKS) if name in found and (name != CUSTOM_ACTIONS or _defines(loaded, SPEC))]
    return PlayTime(loaded, names, settings, source, out, written_by) if names else None

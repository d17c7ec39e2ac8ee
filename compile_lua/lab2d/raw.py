"""A Lab2D raw-API script (``init``, ``observationSpec``/``observation``, ``discreteActionSpec``/
``discreteActions``, ``continuousActionSpec``/``continuousActions``, ``start``, ``advance``) compiled
into the parts of a ``jaxlab.kernels.lab2d_raw.RawEnv``.

Two halves, because the compile runs in an isolated child process (``compile_lua.isolation``):

- :func:`compile_loaded_raw` (in the child, where Lua runs): ``init(settings)`` runs on the host; the
  specs are read; ``start``, ``discreteActions``, ``continuousActions``, ``advance`` and ``observation``
  are translated (``compile_lua.device.translate``; ``observation`` once per index, each index its own
  function), so a construct that cannot run on the device is refused here at its ``file:line``. The
  result, :class:`RawScript`, is plain data.
- :meth:`RawScript.env_parts` (in the caller, no Lua): the translation rebuilt from that data
  (``compile_lua.device.rebuild``) as the env's spec and callbacks.

``start(episode, seed)`` runs on the device at every reset: the api fields it sets are play-time state
(with ``system.tensor`` tensors and ``system.random`` draws, ``compile_lua.device.tensors``/``draws``).
A script that returns a function (a level factory) is called with the level name's argument
(``loaded.argument``) and its api compiles. The property callbacks (``readProperty``,
``writeProperty``, ``listProperty``) are translated per key when the env calls them
(``compile_lua.lab2d.raw_properties``). Refused: an observation whose spec has no name, no tensor
type or no fixed shape, a spec entry without a name or bounds, a level without a callback dmlab2d
would call, text actions (``NOT_YET``), an ``advance`` that returns no boolean first, an
``observation(index)`` that returns other than its spec (a tensor of the declared kind and shape, or
a number for a scalar Int32, Int64 or Double observation, as dmlab2d takes it).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

import numpy as np
from lupa.lua54 import lua_type

import jax

from compile_lua.device import rebuild, translate
from compile_lua.device.host_graph import HostGraph, snapshot
from compile_lua.device.source import outline, reject
from compile_lua.device.translate import Static, translate_host
from compile_lua.lab2d.raw_properties import NAMES as PROPERTY_CALLBACKS, PropertyCallbacks
from compile_lua.loading import LoadedScript
from jaxlab.levels.lab2d.raw import OBSERVATION_KINDS, RawAction, RawObservation, RawSpec

#: callbacks of Lab2D's API that do not compile yet (refused, never ignored)
NOT_YET = ("textActionSpec", "textActions")
#: the translated callbacks (each ``*Actions`` only when the level declares such actions, ``start`` when
#: the level has one)
CALLBACKS = ("start", "discreteActions", "continuousActions", "advance", "observation")


@dataclasses.dataclass(frozen=True)
class RawScript:
    """A compiled raw-API script as plain data: ``path`` and ``text`` (the source translated),
    ``observations``/``actions``/``continuous`` (the specs, see ``jaxlab.levels.lab2d.raw``), and the translation's
    ``layout``, ``start`` and ``host_constants`` (see ``compile_lua.device.Translation``)."""

    path: str
    text: str
    observations: Tuple[RawObservation, ...]
    actions: Tuple[RawAction, ...]
    continuous: Tuple[RawAction, ...]
    layout: Dict[str, tuple]
    start: Dict[str, Any]
    host_constants: Dict[str, Any]
    host: Optional[HostGraph] = None

    def env_parts(self) -> Tuple[RawSpec, Dict[str, Callable]]:
        """``(RawSpec, callbacks)`` for ``RawEnv``: each callback ``fn(lua, *args) -> (lua, result)``
        (see ``jaxlab.kernels.lab2d_raw``), rebuilt from this data without running Lua."""
        out = outline(self.path, self.text)
        present = {"discreteActions": bool(self.actions), "continuousActions": bool(self.continuous),
                   "start": "start" in out.methods or self.host is not None}
        names = [n for n in CALLBACKS if present.get(n, True)]
        tr = rebuild(out, self.layout, self.start, self.host_constants, names, defines=("start",), host=self.host)
        inputs = tr.inputs()
        if self.host is not None:   # start makes the grids: their rules are fixed when it is traced
            jax.eval_shape(lambda s: tr.callbacks["start"](s, inputs, 0, 0), tr.initial_state())

        def device(fn):
            return lambda lua, *args: fn(lua, inputs, *args)[:2]
        callbacks = {name: device(fn) for name, fn in tr.callbacks.items()}
        observation = tr.callbacks["observation"]
        callbacks["observation"] = lambda lua, index: observation(lua, inputs, Static(int(index)))[:2]
        start = jax.tree_util.tree_map(np.asarray, tr.initial_state()["vars"])
        spec = RawSpec(self.path, self.observations, self.actions, self.continuous, start)
        return spec, {**callbacks, **PropertyCallbacks(tr).callbacks()}


def compile_loaded_raw(loaded: LoadedScript, settings: Optional[Mapping[str, Any]] = None,
                       seed: int = 0) -> RawScript:
    """Compile a loaded raw-API script (``loaded.kind == "lab2d_raw"``). ``settings`` go to ``init``
    as strings (as dmlab2d passes them); ``seed`` is ``start``'s. Raises LuaScriptError
    (``file:line: message``) for what cannot compile (see the module)."""
    path, api = str(loaded.path), loaded.lab2d_api()   # a level factory's api: made with the name's argument
    loaded = dataclasses.replace(loaded, returned=api)
    text = loaded.path.read_text(encoding="utf-8")
    out = outline(path, text)
    if ("advance" not in out.methods or "system.grid_world" in out.modules.values()) \
            and lua_type(api["advance"]) == "function":
        return _compile_host_api(loaded, api, path, text, settings, seed)
    for name in NOT_YET:
        if api[name] is not None:
            reject(path, out.methods[name].line if name in out.methods else None, f"api:{name}",
                   "text actions do not compile yet")
    _check_property_callbacks(path, api, out)
    observations = tuple(_observation(path, entry) for entry in _spec(loaded, api, "observationSpec"))
    actions = tuple(_action(path, entry, int) for entry in _spec(loaded, api, "discreteActionSpec"))
    continuous = tuple(_action(path, entry, float) for entry in _spec(loaded, api, "continuousActionSpec"))
    if not observations:
        reject(path, None, "a level without observations", "api:observationSpec lists none")
    examples = {"advance": (1,), "observation": [(Static(i),) for i in range(1, len(observations) + 1)]}
    if continuous:
        examples = {"continuousActions": ([0.0] * len(continuous),), **examples}
    if actions:
        examples = {"discreteActions": ([0] * len(actions),), **examples}
    for name in examples:
        if name not in out.methods:
            reject(path, None, f"a level without api:{name}", "a raw-API level must define it (dmlab2d calls it "
                   "each step, with the declared actions for the *Actions callbacks)")
    if "start" in out.methods:
        examples = {"start": (0, int(seed)), **examples}
    strings = {str(k): str(v) for k, v in (settings or {}).items()}
    tr = translate(loaded, examples, strings, defines=("start",))
    _check_results(path, out, tr, observations)
    return RawScript(path, text, observations, actions, continuous, dict(tr.layout), _plain(tr.start),
                     dict(tr.host_constants))


def _plain(start: Mapping[str, Any]) -> Dict[str, Any]:
    """Start values as a compile's reply carries them (a tensor made on the host as nested lists)."""
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in start.items()}


def _compile_host_api(loaded: LoadedScript, api: Any, path: str, text: str, settings: Optional[Mapping[str, Any]],
                      seed: int) -> RawScript:
    """A level whose api and callbacks Lab2D's libraries made (``advance`` is not written at the script's top
    level: a shipped dmlab2d level's api factory, a common.class object): ``init(settings)`` runs on the host,
    the specs are read after it (as dmlab2d reads them), the host objects play reaches are written down
    (:func:`compile_lua.device.host_graph.snapshot`) and the callbacks translated through them; its property
    callbacks, as for any raw-API level, when a property is first asked for (``RawScript.env_parts``)."""
    out = outline(path, text)
    for name in NOT_YET:
        if api[name] is not None:
            reject(path, None, f"api:{name}", "text actions do not compile yet")
    if api["init"] is not None:
        loaded.sandbox.call_method(api, "init", {str(k): str(v) for k, v in (settings or {}).items()})
    entries = _spec(loaded, api, "observationSpec")
    texts = {i for i, e in enumerate(entries, start=1) if e.get("type") == "String"}
    observations = [RawObservation(e.get("name"), "Byte", ()) if i in texts else _observation(path, e)
                    for i, e in enumerate(entries, start=1)]
    actions = tuple(_action(path, entry, int) for entry in _spec(loaded, api, "discreteActionSpec"))
    continuous = tuple(_action(path, entry, float) for entry in _spec(loaded, api, "continuousActionSpec"))
    if not observations:
        reject(path, None, "a level without observations", "api:observationSpec lists none")
    examples = {"start": (0, int(seed)), "advance": (1,),
                "observation": [(Static(i),) for i in range(1, len(observations) + 1)]}
    if continuous:
        examples = {"continuousActions": ([0.0] * len(continuous),), **examples}
    if actions:
        examples = {"discreteActions": ([0] * len(actions),), **examples}
    graph = snapshot(loaded.sandbox, api)
    tr = translate_host(path, text, graph, examples, defines=("start",))
    state, inputs = tr.initial_state(), tr.inputs()
    for i in sorted(texts):   # a text observation: its characters, of the shape the translation gave
        got = jax.eval_shape(lambda s: tr.callbacks["observation"](s, inputs, Static(i))[1], state)
        if tr.results["observation"][:1] != (f"text {list(got.shape)}",) and not hasattr(got, "shape"):
            reject(path, None, f"api:observation({i})", "a String observation compiles as the grid's text "
                   "(tostring(grid))")
        observations[i - 1] = RawObservation(observations[i - 1].name, "Byte", tuple(got.shape))
    observations = tuple(observations)
    _check_results(path, out, tr, observations, texts)
    return RawScript(path, text, observations, actions, continuous, dict(tr.layout), _plain(tr.start), {}, graph)


def _check_results(path: str, out, tr, observations: Tuple[RawObservation, ...], texts=frozenset()) -> None:
    """``advance`` returns a boolean (and a number); ``observation(i)`` returns the i-th spec's tensor (its
    kind and shape), or a number for a scalar Int32, Int64 or Double observation (as dmlab2d takes it)."""
    results = tr.results
    if results["advance"] not in (("boolean",), ("boolean", "number")):
        reject(path, out.methods["advance"].line if "advance" in out.methods else None, f"api:advance returning ({', '.join(results['advance'])})",
               "it must return continue (a boolean) and a reward (a number)")
    state, inputs = tr.initial_state(), tr.inputs()
    for index, obs in enumerate(observations, start=1):
        jax.eval_shape(lambda s: tr.callbacks["observation"](s, inputs, Static(index)), state)
        want = f"userdata {obs.kind} {list(obs.shape)}"
        number = not obs.shape and obs.kind != "Byte"
        if index in texts:
            want = f"text {list(obs.shape)}"
        if results["observation"] not in ((want,), ("number",) if number else (want,)):
            got = ", ".join(results["observation"]) or "nothing"
            reject(path, out.methods["observation"].line if "observation" in out.methods else None,
                   f"api:observation({index}) returning ({got})",
                   f"observation {obs.name!r} is declared a {obs.kind} tensor of shape {list(obs.shape)}"
                   + (" (or a number)" if number else ""))


def _check_property_callbacks(path: str, api, out) -> None:
    """Each property callback the api has is a function the script defines where the translator finds it
    (``function api:readProperty(key)`` or ``api.readProperty = function(self, key)`` at the top level
    of the chunk or of the level factory's function); they are translated per key when called
    (``compile_lua.lab2d.raw_properties``)."""
    for name in PROPERTY_CALLBACKS:
        if api[name] is not None and (lua_type(api[name]) != "function" or name not in out.methods):
            reject(path, None, f"api:{name}", "define it with `function api:name(...)` or `api.name = "
                   "function(...)` at the script's top level (or the top level of its level factory)")


def _spec(loaded: LoadedScript, api, name: str) -> list:
    """The list ``api:<name>()`` returns ([] when the api has no ``name``)."""
    if api[name] is None:
        return []
    data = loaded.sandbox.to_python(loaded.sandbox.call_method(api, name))
    if data in (None, {}, []):
        return []
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        reject(str(loaded.path), None, f"api:{name}() returning {data!r}"[:200], "it must return a list of tables")
    return data


def _observation(path: str, entry: Mapping[str, Any]) -> RawObservation:
    kind = OBSERVATION_KINDS.get(entry.get("type"))
    shape = entry.get("shape", [])
    shape = [] if shape == {} else shape
    if not isinstance(entry.get("name"), str) or kind is None:
        reject(path, None, f"the observation {entry.get('name')!r} of type {entry.get('type')!r}",
               f"only named tensor observations compile ({', '.join(OBSERVATION_KINDS)})")
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        reject(path, None, f"the observation {entry['name']!r} with shape {shape!r}",
               "a compiled observation has a fixed shape: a list of sizes")
    return RawObservation(entry["name"], kind, tuple(shape))


def _action(path: str, entry: Mapping[str, Any], kind: type) -> RawAction:
    """A discrete (``kind`` int: integer bounds) or continuous (float: any numbers) action's entry."""
    name, low, high = entry.get("name"), entry.get("min"), entry.get("max")
    numbers = (int,) if kind is int else (int, float)
    if not isinstance(name, str) or not all(isinstance(v, numbers) and not isinstance(v, bool) for v in (low, high)):
        what = "discrete" if kind is int else "continuous"
        reject(path, None, f"the {what} action {entry!r}"[:200],
               f"each needs a name and {'integer' if kind is int else 'number'} min and max")
    return RawAction(name, kind(low), kind(high))

"""Lab2D-style grid level scripts compiled into a ``jaxlab.levels.lab2d.spec.GridSpec``.

A grid script is a Lab2D level (``init(settings)``, ``observationSpec()``,
``discreteActionSpec()``, ``start(episode, seed)``) whose world is declared
as data by ``api:world()`` (or an ``api.world`` table): the map as text,
sprites as ASCII art plus palette, states on layers, and what happens as
contacts, beams, beam hits, transitions and a matrix game. The script runs
once, on the host, in the compile_lua sandbox; nothing of it runs per frame,
so Lab2D callbacks that would (``advance``, ``observation``,
``discreteActions``, ``stateCallbacks`` and per-state ``onUpdate``/``onHit``/
…) are refused with an error naming the declarative field to use instead.

    from compile_lua.lab2d.compiler import compile_grid_level
    spec = compile_grid_level("apple_walk.lua", settings={"episodeLengthFrames": 100})

Order of calls: the main chunk; overrides applied to ``api.settings`` (the
declared defaults, if any); ``api:init(flatSettings)``; ``api:world()``;
``api:observationSpec()`` and ``api:discreteActionSpec()`` (checked against
what the world provides); ``api:start(0, seed)``. See docs/grid_lua.md.
``compile_loaded_grid`` continues from a script already loaded by
:func:`compile_lua.loading.load_script` (the run that decided its kind);
``compile_grid_script``/``compile_grid_level`` load it themselves.
"""
from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Dict, List, Mapping, Optional

from lupa.lua54 import lua_type

from compile_lua.errors import CompileWarning
from compile_lua.lab2d.fields import DOCS, RULES
from compile_lua.lab2d.source import Locator, callback_def, lua_key
from compile_lua.lab2d.specs import HOST_OBSERVATIONS, action_spec, observation_spec, supported_actions
from compile_lua.lab2d.world import STATE_CALLBACKS, WorldReader
from compile_lua.loading import LoadedScript, load_script
from jaxlab.errors import UnknownNameError
from jaxlab.levels.lab2d import properties
from jaxlab.levels.lab2d.spec import GridSpec

#: api callbacks a grid script may define, in the order they are called.
SUPPORTED_CALLBACKS = ("init", "world", "observationSpec", "discreteActionSpec", "start")

#: Lab2D api callbacks that would run during play, and what to declare instead.
UNSUPPORTED_CALLBACKS: Dict[str, str] = {
    "advance": ("declare what happens instead: rewards and changes "
                "when a piece enters or leaves a cell -> contacts, fire actions -> beams and "
                "beamHits, cells that change over time -> transitions, player-vs-player "
                "interactions -> matrixGame; the episode length -> episodeFrames (or endWhenGone), "
                "a per-frame cost -> stepCost"),
    "observation": ("the grid kernel computes every observation itself (WORLD.RGB, WORLD.LAYER, "
                    "WORLD.TEXT, n.RGB, n.REWARD, n.POSITION, n.INVENTORY): list the ones you use in "
                    "observationSpec and remove api:observation; game logic in it belongs in "
                    f"{RULES}"),
    "discreteActions": ("the kernel applies the actions: n.move and n.turn (world.movement "
                        "'absolute' or 'relative') and one fire action per entry of beams; "
                        "their effects go in contacts, beamHits and matrixGame"),
    "continuousActions": "grid worlds take discrete actions only (discreteActionSpec)",
    "continuousActionSpec": "grid worlds take discrete actions only (discreteActionSpec)",
    "textActions": "grid worlds take discrete actions only (discreteActionSpec)",
    "textActionSpec": "grid worlds take discrete actions only (discreteActionSpec)",
    "stateCallbacks": ("declare the per-state callbacks instead: onEnter/onLeave -> "
                       "contacts (on = 'enter' / 'leave'), onHit -> beamHits (or matrixGame), "
                       "onUpdate/onAdd/onRemove -> transitions or the becomes of contacts "
                       "and beamHits"),
}
#: Lab2D property callbacks: served by jaxlab from GridSpec.settings instead.
PROPERTY_CALLBACKS = ("readProperty", "writeProperty", "listProperty")


@dataclasses.dataclass
class CompiledGridScript:
    """A compiled grid script: ``spec`` (the GridSpec), ``observations``
    (the script's observationSpec as dicts name/type/shape; every kernel
    observation when it has none), ``actions`` (dicts name/min/max),
    ``callbacks`` (the api callbacks it defines), ``files`` (Lua files read
    -> sha256) and ``warnings``."""

    spec: GridSpec
    observations: List[Dict[str, Any]]
    actions: List[Dict[str, Any]]
    callbacks: List[str]
    files: Dict[str, str]
    warnings: List[str] = dataclasses.field(default_factory=list)
    source: str = ""
    declared_observations: bool = False

    def env_observations(self) -> Optional[List[str]]:
        """The observation names to give ``GridEnv``: those of the script's
        observationSpec that are arrays (not the host string WORLD.TEXT);
        None (GridEnv's default) when the script has no observationSpec."""
        if not self.declared_observations:
            return None
        return [o["name"] for o in self.observations if o["name"] not in HOST_OBSERVATIONS]

    def summary(self) -> str:
        """A few lines for the CLI: size, layers, states, players, rules, actions, observations."""
        s = self.spec
        rules = [f"{len(s.contacts)} contact(s)", f"{len(s.beams)} beam(s)", f"{len(s.beam_hits)} beam hit(s)",
                 f"{len(s.transitions)} transition(s)"] + (["a matrix game"] if s.matrix_game else [])
        lines = [
            f"grid level {s.name!r} ({self.source}): {len(s.map)}x{len(s.map[0])} cells, "
            f"{s.topology}, sprite size {s.sprite_size}, {s.episode_frames} frames per episode",
            f"  layers (render order): {', '.join(s.layers)}",
            f"  states ({len(s.states)}): {', '.join(st.name for st in s.states)}",
            f"  players ({len(s.players)}): " + ", ".join(
                f"{n} {p.state} at {p.spawn}" for n, p in enumerate(s.players, 1)),
            f"  rules: {', '.join(rules)}",
            "  actions: " + ", ".join(f"{a['name']} [{a['min']}, {a['max']}]" for a in self.actions),
            "  observations: " + ", ".join(o["name"] for o in self.observations),
        ]
        if s.settings:
            flat = properties.flatten_settings(s.settings)
            lines.append("  settings: " + ", ".join(f"{k}={v}" for k, v in flat.items()))
        return "\n".join(lines)


# -- compiling -------------------------------------------------------------------------------------

def compile_grid_level(path, settings: Optional[Mapping[str, Any]] = None, levels_dir=None, *,
                       seed: int = 0) -> GridSpec:
    """Compile the Lab2D-style grid script at ``path`` into a GridSpec.

    Args:
      path: the ``.lua`` script (its api defines ``world``).
      settings: level settings, nested (``{"gridShape": {"width": 9}}``) or
        flat with dotted keys (``{"gridShape.width": "9"}``), as dmlab2d
        takes them. They override the script's declared ``api.settings``
        (converted to the defaults' types; unknown names are refused with
        suggestions) and reach ``api:init`` flattened to strings, as in Lab2D.
      levels_dir: an extra folder ``require`` searches after the script's own.
      seed: the ``seed`` of the one ``api:start(0, seed)`` call made to check
        that it runs.

    Returns the GridSpec, its ``settings`` filled (the declared settings
    after the overrides, else the given settings nested). Raises
    LuaScriptError (``file:line: message``) for errors in the script,
    UnknownNameError for an unknown setting, ValueError for a setting value
    that does not fit, FileNotFoundError for a missing script.
    """
    return compile_grid_script(path, settings, levels_dir, seed=seed).spec


def compile_grid_script(path, settings: Optional[Mapping[str, Any]] = None, levels_dir=None, *,
                        seed: int = 0) -> CompiledGridScript:
    """Like :func:`compile_grid_level` but returns the spec with the script's
    observation and action specs and what was read (a CompiledGridScript)."""
    return compile_loaded_grid(load_script(path, levels_dir), settings, seed=seed)


def compile_loaded_grid(loaded: LoadedScript, settings: Optional[Mapping[str, Any]] = None, *,
                        seed: int = 0) -> CompiledGridScript:
    """Compile a grid script whose main chunk has already run (``compile_lua.loading.load_script``).

    Continues in ``loaded.sandbox`` with ``loaded.lab2d_api()``; ``settings``
    and ``seed`` are :func:`compile_grid_level`'s. Returns a
    CompiledGridScript; raises what ``compile_grid_level`` raises.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompileWarning)
        compiled = _GridCompiler(loaded, settings or {}).run(int(seed))
    compiled.warnings = [str(w.message) for w in caught if issubclass(w.category, CompileWarning)]
    for w in caught:   # re-emit for the caller
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return compiled


class _GridCompiler:
    """One compile of one grid script."""

    def __init__(self, loaded: LoadedScript, settings: Mapping[str, Any]):
        self.settings_in = dict(settings)
        self.loaded = loaded
        self.sandbox = loaded.sandbox
        self.script = Locator(loaded.path, self.sandbox)

    def run(self, seed: int) -> CompiledGridScript:
        """The compile, in the order of calls the module docstring gives."""
        sb = self.sandbox
        api = self.loaded.lab2d_api()   # Lab2D: a script may return a function making the api
        if lua_type(api) != "table":
            raise self.script.error(f"the script must return its api table (got {_type(api)})", r"^\s*return\b")
        defined = self.check_callbacks(api)
        world_def = api["world"]
        if world_def is None:
            raise self.script.error("the api has no world: a grid level declares its world with api:world() "
                                    "(or an api.world table); a DMLab first-person level (api:nextMap) compiles "
                                    f"with compile_lua.compile_level (see {DOCS})", r"^\s*return\b")
        self.script.world_at = self.script.source().find(callback_def("world"), lua_key("world"))

        declared = api["settings"]
        flat = properties.flatten_settings(self.settings_in)
        if lua_type(declared) == "table":
            defaults = sb.to_python(declared)
            if not isinstance(defaults, dict):
                raise self.script.error("api.settings must be a table of named settings (its defaults), got a "
                                        "list", lua_key("settings"))
            try:
                applied = properties.apply_settings(defaults, self.settings_in)
            except properties.PropertyNotFoundError as err:
                raise UnknownNameError(f"{self.script.display}: {err}") from None
            except (properties.PropertyError, ValueError) as err:
                raise ValueError(f"{self.script.display}: setting: {err}") from None
            self.update_table(declared, applied)
        elif declared is not None:
            raise self.script.error("api.settings must be a table of the level's settings, got "
                                    f"{_type(declared)}", lua_key("settings"))
        if api["init"] is not None:
            sb.call_method(api, "init", sb.table(flat))

        if lua_type(world_def) == "function":
            world = sb.call_method(api, "world")
        else:
            world = world_def
        if lua_type(world) != "table":
            raise self.script.error(f"api:world() must return the world table, got {_type(world)}",
                                    callback_def("world"), lua_key("world"))
        data = sb.to_python(world)
        if not isinstance(data, dict) or not data:
            raise self.script.error("the world must be a table of named fields (map, charMap, layers, states, "
                                    "sprites, players, ...)", callback_def("world"), lua_key("world"))
        if lua_type(declared) == "table":
            spec_settings = sb.to_python(declared)
            spec_settings = spec_settings if isinstance(spec_settings, dict) else {}
        else:
            spec_settings = properties.nest_settings(flat)
        spec = WorldReader(self.script, data, _sorted(spec_settings)).read()
        self.cross_check(spec)

        observations, declared_observations = observation_spec(self.script, api, spec)
        actions = action_spec(self.script, api, spec)
        sb.seed(seed)
        if api["start"] is not None:
            sb.call_method(api, "start", 0, seed)
        return CompiledGridScript(spec, observations, actions, defined, dict(sb.files), source=self.script.display,
                            declared_observations=declared_observations)

    def check_callbacks(self, api) -> List[str]:
        """Refuses play-time callbacks; warns about others; returns those defined."""
        for name, hint in UNSUPPORTED_CALLBACKS.items():
            if api[name] is not None:
                raise self.script.error(f"api:{name} cannot be compiled: it is a Lab2D callback that would run "
                                        f"every frame; {hint}. Supported callbacks: "
                                        f"{', '.join(SUPPORTED_CALLBACKS)} (see {DOCS})",
                                        callback_def(name), lua_key(name))
        defined = [name for name in SUPPORTED_CALLBACKS if api[name] is not None]
        for name in PROPERTY_CALLBACKS:
            if api[name] is not None:
                self.script.warn(f"api:{name} is ignored: jaxlab serves Lab2D properties from the level's "
                                 "settings (api.settings; jaxlab.levels.lab2d.properties)",
                                 self.script.source().find(callback_def(name), lua_key(name)))
        for name, value in api.items():
            if (isinstance(name, str) and lua_type(value) == "function" and not name.startswith("_")
                    and name not in SUPPORTED_CALLBACKS and name not in PROPERTY_CALLBACKS):
                self.script.warn(f"api:{name} is not a grid level callback; it is only called by the script "
                                 f"itself (compiled: {', '.join(SUPPORTED_CALLBACKS)})",
                                 self.script.source().find(callback_def(name)))
        return defined

    def update_table(self, table, values: Mapping[str, Any]) -> None:
        """Writes ``values`` (nested dicts/lists) into the Lua table in place,
        so that locals holding the settings table see the overrides too."""
        items = values.items() if isinstance(values, Mapping) else enumerate(values, 1)
        for key, value in items:
            if isinstance(value, (Mapping, list, tuple)) and lua_type(table[key]) == "table":
                self.update_table(table[key], value)
            else:
                table[key] = self.sandbox.table(value)

    def cross_check(self, spec: GridSpec) -> None:
        """Runs the grid compiler's own checks (when it is installed)."""
        try:
            from jaxlab.kernels.grid.compile import GridSpecError, compile_grid
        except ImportError:
            return
        try:
            compile_grid(spec)
        except GridSpecError as err:
            raise self.script.error(f"world: {err}") from None


def _type(value: Any) -> str:
    """The Lua type of a value (from Lua or to_python), for messages."""
    if value is None:
        return "nil"
    return lua_type(value) or {bool: "boolean", int: "number", float: "number", str: "string",
                               bytes: "string", dict: "table", list: "table"}.get(type(value),
                                                                               type(value).__name__)


def _sorted(value: Any) -> Any:
    """Nested dicts with their keys sorted (Lua tables have no order)."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


__all__ = ["CompiledGridScript", "SUPPORTED_CALLBACKS", "UNSUPPORTED_CALLBACKS", "STATE_CALLBACKS",
           "compile_grid_level", "compile_grid_script", "compile_loaded_grid", "supported_actions"]

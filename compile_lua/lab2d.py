"""Lab2D-style grid level scripts compiled into a ``jaxlab.grid.spec.WorldSpec``.

A grid script is a Lab2D level (``init(settings)``, ``observationSpec()``,
``discreteActionSpec()``, ``start(episode, seed)``) whose world is declared
as data by ``api:world()`` (or an ``api.world`` table): the map as text,
sprites as ASCII art plus palette, states on layers, and what happens as
contacts, beams, beam hits, transitions and a matrix game. The script runs
once, on the host, in the compile_lua sandbox; nothing of it runs per frame,
so Lab2D callbacks that would (``advance``, ``observation``,
``discreteActions``, ``stateCallbacks`` and per-state ``onUpdate``/``onHit``/
…) are refused with an error naming the declarative field to use instead.

    from compile_lua.lab2d import compile_grid_level
    spec = compile_grid_level("apple_walk.lua", settings={"episodeLengthFrames": 100})

Order of calls: the main chunk; overrides applied to ``api.settings`` (the
declared defaults, if any); ``api:init(flatSettings)``; ``api:world()``;
``api:observationSpec()`` and ``api:discreteActionSpec()`` (checked against
what the world provides); ``api:start(0, seed)``. See docs/grid_lua.md.
"""
from __future__ import annotations

import dataclasses
import difflib
import re
import warnings
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from lupa.lua54 import lua_type

from compile_lua.errors import CompileWarning, LuaScriptError
from compile_lua.sandbox import LIBRARY_DIR, Sandbox
from jaxlab.errors import UnknownNameError, unknown_name_error
from jaxlab.grid import properties
from jaxlab.grid.spec import (Beam, BeamHit, Contact, Depletion, MatrixGame, Player, Sprite, State,
                              Transition, View, WorldSpec)

TIME_LIMIT_S = 10.0
DOCS = "docs/grid_lua.md"

#: api callbacks a grid script may define, in the order they are called.
SUPPORTED_CALLBACKS = ("init", "world", "observationSpec", "discreteActionSpec", "start")

_RULES = "contacts, beams, beamHits, transitions, matrixGame"
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
                    f"{_RULES}"),
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
#: Per-state callbacks (in a states entry) and what to declare instead.
STATE_CALLBACKS: Dict[str, str] = {
    "onEnter": "contacts (on = 'enter')",
    "onLeave": "contacts (on = 'leave')",
    "onContact": "contacts",
    "onHit": "beamHits (or matrixGame between players)",
    "onUpdate": "transitions",
    "onAdd": "transitions or the becomes of contacts/beamHits",
    "onRemove": "transitions or the becomes of contacts/beamHits",
    "onBlocked": "contacts (pushable states, blocksBeams)",
}
#: Lab2D property callbacks: served by jaxlab from WorldSpec.settings instead.
PROPERTY_CALLBACKS = ("readProperty", "writeProperty", "listProperty")

WORLD_KEYS = ("name", "map", "charMap", "layers", "states", "sprites", "players", "contacts", "beams",
              "beamHits", "transitions", "matrixGame", "items", "initialInventory", "movement",
              "topology", "spriteSize", "view", "episodeFrames", "endWhenGone", "completionReward",
              "stepCost", "actionPrefix")
#: Lab2D names with a different jaxlab key, for "unknown key" messages.
_RENAMED = {"renderOrder": "layers", "episodeLengthFrames": "episodeFrames", "size": "map",
            "updateOrder": "transitions", "stateCallbacks": f"the declarative rules ({_RULES})",
            "hits": "beams / beamHits", "contact": "contacts", "updater": "transitions",
            "updaters": "transitions", "avatars": "players", "numPlayers": "players"}
STATE_KEYS = ("layer", "sprite", "char", "groups", "pushable", "blocksBeams")
SPRITE_KEYS = ("art", "palette")

#: observations the grid kernel provides: world-wide ones and per-player suffixes.
WORLD_OBSERVATIONS = ("WORLD.RGB", "WORLD.LAYER", "WORLD.TEXT")
PLAYER_OBSERVATIONS = ("RGB", "REWARD", "POSITION", "INVENTORY")   # INVENTORY when there are items
#: observations that are host strings, not arrays of the jitted env.
HOST_OBSERVATIONS = ("WORLD.TEXT",)
_OBS_TYPES = {
    "RGB": ("tensor.ByteTensor", "ByteTensor", "Bytes", "bytes", "uint8"),
    "REWARD": ("tensor.DoubleTensor", "DoubleTensor", "Doubles", "doubles", "float64", "tensor.FloatTensor",
               "FloatTensor", "float32"),
    "INVENTORY": ("tensor.Int32Tensor", "Int32Tensor", "Int32s", "int32"),
    "POSITION": ("tensor.Int32Tensor", "Int32Tensor", "Int32s", "int32"),
    "LAYER": ("tensor.Int32Tensor", "Int32Tensor", "Int32s", "int32"),
    "TEXT": ("String", "string"),
}
#: discrete actions: name -> (min, max).
MOVE_RANGE, TURN_RANGE, FIRE_RANGE = (0, 4), (-1, 1), (0, 1)


@dataclasses.dataclass
class CompiledGrid:
    """A compiled grid script: ``spec`` (the WorldSpec), ``observations``
    (the script's observationSpec as dicts name/type/shape; every kernel
    observation when it has none), ``actions`` (dicts name/min/max),
    ``callbacks`` (the api callbacks it defines), ``files`` (Lua files read
    -> sha256) and ``warnings``."""

    spec: WorldSpec
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


# -- detection -------------------------------------------------------------------------------------

_WORLD_DEF = re.compile(r"(function\s+[\w.]+[:.]world\s*\(|\b\w+\.world\s*=|^\s*world\s*=)", re.M)
_NEXT_MAP = re.compile(r"(function\s+[\w.]+[:.]nextMap\s*\(|\b\w+\.nextMap\s*=|^\s*nextMap\s*=)", re.M)


def is_grid_script(path, levels_dir=None) -> bool:
    """Whether the Lua script at ``path`` is a Lab2D-style grid level (its api
    defines ``world``) rather than a DMLab first-person level (``nextMap``).

    Cheap: the script's text decides when it defines either; otherwise (e.g. a
    level made by a factory module) its main chunk runs in the sandbox and the
    returned api table is looked at. A script that fails to load counts as
    first-person, whose compiler reports the error."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if _NEXT_MAP.search(text):
        return False
    if _WORLD_DEF.search(text):
        return True
    try:
        sandbox = Sandbox(path, [Path(levels_dir)] if levels_dir else [], time_limit_s=TIME_LIMIT_S,
                          print_fn=lambda _: None)
        api = sandbox.load_script()
        if lua_type(api) == "function":
            api = sandbox.call("the function the script returned", api)
        return lua_type(api) == "table" and api["world"] is not None and api["nextMap"] is None
    except (LuaScriptError, TypeError, ValueError):
        return False


# -- compiling -------------------------------------------------------------------------------------

def compile_grid_level(path, settings: Optional[Mapping[str, Any]] = None, levels_dir=None, *,
                       seed: int = 0) -> WorldSpec:
    """Compile the Lab2D-style grid script at ``path`` into a WorldSpec.

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

    Returns the WorldSpec, its ``settings`` filled (the declared settings
    after the overrides, else the given settings nested). Raises
    LuaScriptError (``file:line: message``) for errors in the script,
    UnknownNameError for an unknown setting, ValueError for a setting value
    that does not fit, FileNotFoundError for a missing script.
    """
    return compile_grid_script(path, settings, levels_dir, seed=seed).spec


def compile_grid_script(path, settings: Optional[Mapping[str, Any]] = None, levels_dir=None, *,
                        seed: int = 0) -> CompiledGrid:
    """Like :func:`compile_grid_level` but returns the spec with the script's
    observation and action specs and what was read (a CompiledGrid)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such level script: {path}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompileWarning)
        compiled = _GridCompiler(path, settings or {}, levels_dir).run(int(seed))
    compiled.warnings = [str(w.message) for w in caught if issubclass(w.category, CompileWarning)]
    for w in caught:   # re-emit for the caller
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return compiled


def _quoted(text: str) -> str:
    """A pattern for ``text`` as a Lua string literal."""
    return r"""(['"])""" + re.escape(text) + r"\1|\[=*\[" + re.escape(text) + r"\]=*\]"


def _key(key: str) -> str:
    """A pattern for ``key = `` or ``['key'] =`` in a table constructor."""
    return rf"(?<![\w.]){re.escape(key)}\s*=(?!=)|\[\s*(['\"]){re.escape(key)}\1\s*\]\s*="


def _callback_pattern(name: str) -> str:
    return (rf"function\s+[\w.]+[:.]{name}\s*\(|\b\w+\.{name}\s*=\s*function|"
            rf"(?<![\w.]){name}\s*=\s*function")


def _suggest(kind: str, name: str, known: Sequence[str]) -> str:
    """``unknown <kind> 'name'. Did you mean …? Known: …`` (jaxlab's wording,
    jaxlab.errors.unknown_name_error), listing every known name."""
    text = str(unknown_name_error(kind, name, known))
    if len(known) > 12:
        text = text[:text.rindex(" Known: ")] + f" Known: {', '.join(sorted(map(str, known)))}."
    return text


def _suffix(name: str) -> str:
    """A pattern for the per-player part of ``n.name`` as a string literal
    (scripts usually build the names as ``p .. '.move'``)."""
    m = re.fullmatch(r"\d+(\.\w+)", name)
    return _quoted(m.group(1)) if m else ""


class _Source:
    """The script and the user modules it required, for finding lines."""

    def __init__(self, script: Path, display: str, sandbox: Sandbox):
        self.files: List[Tuple[str, List[str]]] = [(display, _read_lines(script))]
        library = LIBRARY_DIR.resolve()
        for resolved in sandbox.files:
            real = Path(resolved)
            if real == script.resolve() or real.is_relative_to(library):
                continue
            self.files.append((str(real), _read_lines(real)))

    def find(self, *patterns: str, after: Optional[Tuple[str, int]] = None) -> Optional[Tuple[str, int]]:
        """(file, line) of the first line matching a pattern (tried in order);
        with ``after``, first from that line on in that file."""
        for pattern in patterns:
            if not pattern:
                continue
            regex = re.compile(pattern)
            if after is not None:
                for path, lines in self.files:
                    if path == after[0]:
                        for number in range(after[1], len(lines) + 1):
                            if regex.search(_code(lines[number - 1])):
                                return path, number
            for path, lines in self.files:
                for number, line in enumerate(lines, 1):
                    if regex.search(_code(line)):
                        return path, number
        return None


    def find_block(self, rows: Sequence[str], after: Optional[Tuple[str, int]] = None
                   ) -> Optional[Tuple[str, int]]:
        """(file, line) of the first row of a multi-line string whose rows are
        ``rows`` (the first row may share its line with ``[[``), searching from
        ``after`` first; None when not found (e.g. a string built by code)."""
        if not rows:
            return None

        def search(path: str, lines: List[str], start: int) -> Optional[Tuple[str, int]]:
            for i in range(max(start, 1) - 1, len(lines) - len(rows) + 1):
                n = len(rows)
                if ((lines[i].endswith(rows[0]) if n > 1 else rows[0] in lines[i]) and all(lines[i + k] == rows[k] for k in range(1, n - 1))
                        and (n == 1 or lines[i + n - 1].startswith(rows[-1]))):
                    return path, i + 1
            return None

        if after is not None:
            for path, lines in self.files:
                if path == after[0]:
                    found = search(path, lines, after[1])
                    if found:
                        return found
        for path, lines in self.files:
            found = search(path, lines, 1)
            if found:
                return found
        return None


def _read_lines(path: Path) -> List[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _code(line: str) -> str:
    """The line without a trailing ``--`` comment (strings are not parsed)."""
    i = line.find("--")
    return line if i < 0 else line[:i]


class _GridCompiler:
    """One compile of one grid script."""

    def __init__(self, path: Path, settings: Mapping[str, Any], levels_dir):
        self.path = path
        self.display = str(path)
        self.settings_in = dict(settings)
        search = [Path(levels_dir)] if levels_dir else []
        self.sandbox = Sandbox(path, search, time_limit_s=TIME_LIMIT_S)
        self.src: Optional[_Source] = None
        self._src_files = 0
        self.world_at: Optional[Tuple[str, int]] = None

    # -- errors --------------------------------------------------------------------------------
    def source(self) -> _Source:
        """The script and user modules read so far (re-read when a module was required since)."""
        if self.src is None or self._src_files != len(self.sandbox.files):
            self.src = _Source(self.path, self.display, self.sandbox)
            self._src_files = len(self.sandbox.files)
        return self.src

    def error(self, message: str, *patterns: str, after: Optional[Tuple[str, int]] = None) -> LuaScriptError:
        """A LuaScriptError located at the first line matching ``patterns``,
        else where the world is declared, else the script without a line."""
        where = self.source().find(*patterns, after=after) if patterns else None
        where = where or self.world_at
        if where is None:
            return LuaScriptError(self.display, None, message)
        return LuaScriptError(where[0], where[1], message)

    def warn(self, message: str, where: Optional[Tuple[str, int]] = None) -> None:
        text = f"{where[0]}:{where[1]}: {message}" if where else f"{self.display}: {message}"
        warnings.warn(text, CompileWarning, stacklevel=4)

    # -- the compile ---------------------------------------------------------------------------
    def run(self, seed: int) -> CompiledGrid:
        sb = self.sandbox
        api = sb.load_script()
        if lua_type(api) == "function":   # Lab2D: a script may return a function making the api
            api = sb.call("the function the script returned", api)
        if lua_type(api) != "table":
            raise self.error(f"the script must return its api table (got {_type(api)})", r"^\s*return\b")
        self.api = api
        defined = self.check_callbacks(api)
        world_def = api["world"]
        if world_def is None:
            raise self.error("the api has no world: a grid level declares its world with api:world() (or an "
                             "api.world table); a DMLab first-person level (api:nextMap) compiles with "
                             f"compile_lua.compile_level (see {DOCS})", r"^\s*return\b")
        self.world_at = self.source().find(_callback_pattern("world"), _key("world"))

        declared = api["settings"]
        flat = properties.flatten_settings(self.settings_in)
        if lua_type(declared) == "table":
            defaults = sb.to_python(declared)
            if not isinstance(defaults, dict):
                raise self.error("api.settings must be a table of named settings (its defaults), got a list",
                                 _key("settings"))
            try:
                applied = properties.apply_settings(defaults, self.settings_in)
            except properties.PropertyNotFoundError as err:
                raise UnknownNameError(f"{self.display}: {err}") from None
            except (properties.PropertyError, ValueError) as err:
                raise ValueError(f"{self.display}: setting: {err}") from None
            self.update_table(declared, applied)
        elif declared is not None:
            raise self.error(f"api.settings must be a table of the level's settings, got {_type(declared)}",
                             _key("settings"))
        if api["init"] is not None:
            sb.call_method(api, "init", sb.table(flat))

        if lua_type(world_def) == "function":
            world = sb.call_method(api, "world")
        else:
            world = world_def
        if lua_type(world) != "table":
            raise self.error(f"api:world() must return the world table, got {_type(world)}",
                             _callback_pattern("world"), _key("world"))
        data = sb.to_python(world)
        if not isinstance(data, dict) or not data:
            raise self.error("the world must be a table of named fields (map, charMap, layers, states, "
                             "sprites, players, ...)", _callback_pattern("world"), _key("world"))
        if lua_type(declared) == "table":
            spec_settings = sb.to_python(declared)
            spec_settings = spec_settings if isinstance(spec_settings, dict) else {}
        else:
            spec_settings = properties.nest_settings(flat)
        spec = _WorldReader(self, data, _sorted(spec_settings)).read()
        self.cross_check(spec)

        observations = self.observation_spec(spec)
        actions = self.action_spec(spec)
        sb.seed(seed)
        if api["start"] is not None:
            sb.call_method(api, "start", 0, seed)
        return CompiledGrid(spec, observations, actions, defined, dict(sb.files), source=self.display,
                            declared_observations=self.declared_observations)

    def check_callbacks(self, api) -> List[str]:
        """Refuses play-time callbacks; warns about others; returns those defined."""
        for name, hint in UNSUPPORTED_CALLBACKS.items():
            if api[name] is not None:
                where = self.source().find(_callback_pattern(name), _key(name))
                message = (f"api:{name} cannot be compiled: it is a Lab2D callback that would run every "
                           f"frame; {hint}. Supported callbacks: {', '.join(SUPPORTED_CALLBACKS)} "
                           f"(see {DOCS})")
                raise LuaScriptError(where[0] if where else self.display, where[1] if where else None,
                                     message)
        defined = [name for name in SUPPORTED_CALLBACKS if api[name] is not None]
        for name in PROPERTY_CALLBACKS:
            if api[name] is not None:
                self.warn(f"api:{name} is ignored: jaxlab serves Lab2D properties from the level's "
                          "settings (api.settings; jaxlab.grid.properties)",
                          self.source().find(_callback_pattern(name), _key(name)))
        for name, value in api.items():
            if (isinstance(name, str) and lua_type(value) == "function" and not name.startswith("_")
                    and name not in SUPPORTED_CALLBACKS and name not in PROPERTY_CALLBACKS):
                self.warn(f"api:{name} is not a grid level callback; it is only called by the script itself "
                          f"(compiled: {', '.join(SUPPORTED_CALLBACKS)})",
                          self.source().find(_callback_pattern(name)))
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

    def cross_check(self, spec: WorldSpec) -> None:
        """Runs the grid compiler's own checks (when it is installed)."""
        try:
            from jaxlab.grid.compile import GridSpecError, compile_world
        except ImportError:
            return
        try:
            compile_world(spec)
        except GridSpecError as err:
            raise self.error(f"world: {err}") from None

    # -- observationSpec / discreteActionSpec ------------------------------------------------
    def spec_list(self, name: str) -> Optional[list]:
        value = self.api[name]
        if value is None:
            return None
        raw = self.sandbox.call_method(self.api, name) if lua_type(value) == "function" else value
        data = self.sandbox.to_python(raw)
        if data is None or data == {}:
            return []
        if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
            raise self.error(f"api:{name}() must return a list of tables, got {data!r}"[:300],
                             _callback_pattern(name))
        return data

    def observation_spec(self, spec: WorldSpec) -> List[Dict[str, Any]]:
        players = len(spec.players)
        kinds = PLAYER_OBSERVATIONS if spec.items else PLAYER_OBSERVATIONS[:-1]
        provided = list(WORLD_OBSERVATIONS) + [f"{n}.{o}" for n in range(1, players + 1) for o in kinds]
        entries = self.spec_list("observationSpec")
        if entries is None:
            self.declared_observations = False
            return [{"name": n, "type": _OBS_TYPES[n.split(".")[-1]][0],
                     "shape": _shape_list(_observation_shape(spec, n.split(".")[-1], n.startswith("WORLD.")))}
                    for n in provided]
        self.declared_observations = True
        out, seen = [], set()
        for i, entry in enumerate(entries, 1):
            where = f"observationSpec()[{i}]"
            unknown = [k for k in entry if k not in ("name", "type", "shape")]
            if unknown:
                raise self.error(f"{where}: {_suggest('key', str(unknown[0]), ('name', 'type', 'shape'))}",
                                 _key(str(unknown[0])), _callback_pattern("observationSpec"))
            name = entry.get("name")
            if not isinstance(name, str):
                raise self.error(f"{where}: every observation needs a name (string), got {name!r}",
                                 _callback_pattern("observationSpec"))
            if name not in provided:
                extra = ""
                m = re.fullmatch(r"(\d+)\.(\w+)", name)
                if m and m.group(2) in kinds:
                    extra = f" (the world has {players} player(s))"
                elif m and m.group(2) == "INVENTORY":
                    extra = " (the world has no items)"
                raise self.error(f"{where}: the grid kernel does not provide observation {name!r}{extra}: "
                                 f"{_suggest('observation', name, provided)} Observations computed by Lua "
                                 "code cannot be compiled", _quoted(name), _suffix(name), _callback_pattern("observationSpec"))
            if name in seen:
                raise self.error(f"{where}: observation {name!r} is listed twice", _quoted(name), _suffix(name))
            seen.add(name)
            kind = name.split(".")[-1]
            typ = entry.get("type")
            if typ is not None and typ not in _OBS_TYPES[kind]:
                raise self.error(f"{where}: observation {name!r} has type {_OBS_TYPES[kind][0]}, not {typ!r}",
                                 _quoted(name), _suffix(name), _callback_pattern("observationSpec"))
            shape = entry.get("shape")
            expected = _observation_shape(spec, kind, name.startswith("WORLD."))
            if shape is not None:
                shape = shape if isinstance(shape, list) else [] if shape == {} else [shape]
                if not all(isinstance(d, int) for d in shape):
                    raise self.error(f"{where}: shape must be a list of integers, got {entry.get('shape')!r}",
                                     _quoted(name))
                if expected is not None and (len(shape) != len(expected) or any(
                        d != -1 and d != e for d, e in zip(shape, expected))):
                    raise self.error(f"{where}: observation {name!r} has shape {list(expected)} in this world, "
                                     f"not {shape} (-1 matches any size)", _quoted(name), _suffix(name))
            out.append({"name": name, "type": _OBS_TYPES[kind][0],
                        "shape": _shape_list(expected) if expected is not None else shape})
        return out

    def action_spec(self, spec: WorldSpec) -> List[Dict[str, Any]]:
        supported = supported_actions(spec)
        entries = self.spec_list("discreteActionSpec")
        if entries is None:
            return [{"name": n, "min": lo, "max": hi} for n, (lo, hi) in supported.items()]
        out, seen = [], set()
        for i, entry in enumerate(entries, 1):
            where = f"discreteActionSpec()[{i}]"
            unknown = [k for k in entry if k not in ("name", "min", "max")]
            if unknown:
                raise self.error(f"{where}: {_suggest('key', str(unknown[0]), ('name', 'min', 'max'))}",
                                 _key(str(unknown[0])), _callback_pattern("discreteActionSpec"))
            name = entry.get("name")
            if not isinstance(name, str):
                raise self.error(f"{where}: every action needs a name (string), got {name!r}",
                                 _callback_pattern("discreteActionSpec"))
            if name not in supported:
                raise self.error(f"{where}: the world has no action {name!r}: "
                                 f"{_suggest('action', name, supported)} (actions: n.move, n.turn and one "
                                 "fire action per beam, for players n = 1, 2, ...)",
                                 _quoted(name), _suffix(name), _callback_pattern("discreteActionSpec"))
            if name in seen:
                raise self.error(f"{where}: action {name!r} is listed twice", _quoted(name), _suffix(name))
            seen.add(name)
            lo, hi = supported[name]
            if entry.get("min") != lo or entry.get("max") != hi:
                raise self.error(f"{where}: action {name!r} takes values {lo}..{hi}: declare min = {lo}, max = {hi} "
                                 f"(got min = {entry.get('min')!r}, max = {entry.get('max')!r})",
                                 _quoted(name), _suffix(name), _callback_pattern("discreteActionSpec"))
            out.append({"name": name, "min": lo, "max": hi})
        return out


def supported_actions(spec: WorldSpec) -> Dict[str, Tuple[int, int]]:
    """The discrete actions the grid kernel takes for ``spec``: name -> (min, max)."""
    if not spec.action_prefix:
        return {"MOVE": MOVE_RANGE}
    out: Dict[str, Tuple[int, int]] = {}
    for n in range(1, len(spec.players) + 1):
        out[f"{n}.move"] = MOVE_RANGE
        out[f"{n}.turn"] = TURN_RANGE
        for beam in spec.beams:
            out[f"{n}.{beam.action}"] = FIRE_RANGE
    return out


def _observation_shape(spec: WorldSpec, kind: str, world: bool) -> Optional[Tuple[int, ...]]:
    """The shape of an observation in ``spec`` where it is fixed, else None."""
    s = spec.sprite_size
    if kind == "RGB" and world:
        return (len(spec.map) * s, len(spec.map[0]) * s, 3)
    if kind == "RGB":
        v = spec.view
        return ((v.forward + v.backward + 1) * s, (v.left + v.right + 1) * s, 3)
    if kind == "REWARD":
        return ()
    if kind == "POSITION":
        return (2,)
    if kind == "LAYER":
        return (len(spec.map), len(spec.map[0]), len(spec.layers))
    if kind == "INVENTORY":
        return (len(spec.items),)
    return None


def _shape_list(shape: Optional[Tuple[int, ...]]) -> Optional[List[int]]:
    return None if shape is None else list(shape)


def _type(value: Any) -> str:
    if value is None:
        return "nil"
    return lua_type(value) or {bool: "boolean", int: "number", float: "number", str: "string",
                               bytes: "string", dict: "table", list: "table"}.get(type(value),
                                                                               type(value).__name__)


# -- reading the world table ---------------------------------------------------------------------

class _WorldReader:
    """Checks the world table (Python data from Lua) and builds the WorldSpec."""

    def __init__(self, compiler: _GridCompiler, data: Dict[str, Any], settings: Dict[str, Any]):
        self.c, self.data, self.settings = compiler, data, settings

    def error(self, message: str, *patterns: str, after=None) -> LuaScriptError:
        return self.c.error(message, *patterns, after=after)

    # -- small checks ----------------------------------------------------------------------------
    def check_keys(self, table: Dict[str, Any], where: str, known: Sequence[str], after=None,
                   callbacks: Optional[Dict[str, str]] = None) -> None:
        for key, value in table.items():
            if key in known:
                continue
            key = str(key)
            if callbacks and key in callbacks:
                raise self.error(f"{where}.{key} cannot be compiled: it is a Lab2D state callback that would "
                                 f"run every frame; declare it with {callbacks[key]} instead (see {DOCS})",
                                 _key(key), after=after)
            if lua_type(value) == "function":
                raise self.error(f"{where}.{key} is a function: functions in the world run during play and "
                                 f"cannot be compiled; declare what they do with {_RULES} (see {DOCS})",
                                 _key(key), after=after)
            hint = f" (Lab2D's {key} is {_RENAMED[key]} here)" if key in _RENAMED else ""
            raise self.error(f"{where}: {_suggest('key', key, known)}{hint}", _key(key), after=after)

    def string(self, value: Any, where: str, *patterns: str, allow_empty: bool = False) -> str:
        if not isinstance(value, str) or (not value and not allow_empty):
            raise self.error(f"{where} must be a {'string' if allow_empty else 'non-empty string'}, "
                             f"got {_show(value)}", *patterns)
        return value

    def number(self, value: Any, where: str, *patterns: str, lo: Optional[float] = None,
               hi: Optional[float] = None) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(f"{where} must be a number, got {_show(value)}", *patterns)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = f"in [{lo}, {hi}]" if lo is not None and hi is not None else \
                f">= {lo}" if lo is not None else f"<= {hi}"
            raise self.error(f"{where} must be {bounds}, got {value}", *patterns)
        return float(value)

    def integer(self, value: Any, where: str, *patterns: str, lo: Optional[int] = None) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
            raise self.error(f"{where} must be an integer, got {_show(value)}", *patterns)
        if lo is not None and value < lo:
            raise self.error(f"{where} must be at least {lo}, got {int(value)}", *patterns)
        return int(value)

    def boolean(self, value: Any, where: str, *patterns: str) -> bool:
        if not isinstance(value, bool):
            raise self.error(f"{where} must be true or false, got {_show(value)}", *patterns)
        return value

    def table_list(self, value: Any, where: str, *patterns: str) -> List[Dict[str, Any]]:
        if value is None or value == {}:
            return []
        if isinstance(value, dict):
            raise self.error(f"{where} must be a list of tables {{...}}, {{...}} (got a table with keys "
                             f"{sorted(map(str, value))[:5]}; wrap a single entry in {{ }})", *patterns)
        if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
            raise self.error(f"{where} must be a list of tables, got {_show(value)}", *patterns)
        return value

    def string_list(self, value: Any, where: str, *patterns: str) -> List[str]:
        if value is None or value == {}:
            return []
        if isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(f"{where} must be a list of names, got {_show(value)}", *patterns)
        return value

    def state_name(self, value: Any, where: str, *patterns: str, allow_empty: bool = False) -> str:
        if allow_empty and value == "":
            return ""
        name = self.string(value, where, *patterns)
        if name not in self.states:
            raise self.error(f"{where}: {_suggest('state', name, self.states)}"
                             + (" ('' removes the piece)" if allow_empty else ""), _quoted(name), *patterns)
        return name

    def same_layer(self, a: str, b: str, where: str, *patterns: str) -> None:
        if b and self.states[a]["layer"] != self.states[b]["layer"]:
            raise self.error(f"{where}: {b!r} is on layer {self.states[b]['layer']!r} but {a!r} is on "
                             f"{self.states[a]['layer']!r}; a piece changes state within its layer",
                             _quoted(b), *patterns)

    # -- the world ---------------------------------------------------------------------------------
    def read(self) -> WorldSpec:
        d = self.data
        self.check_keys(d, "world", WORLD_KEYS)
        for key in ("map", "charMap", "layers", "states", "players"):
            if d.get(key) is None:
                raise self.error(f"world: missing {key!r} (a world needs map, charMap, layers, states and "
                                 f"players; see {DOCS})")
        name = self.string(d.get("name", self.c.path.stem), "world.name", _key("name"))
        self.layers = self.read_layers(d["layers"])
        self.sprites = self.read_sprites(d.get("sprites"))
        self.states = self.read_states(d["states"])
        char_map = self.read_char_map(d["charMap"])
        rows = self.read_map(d["map"], char_map)
        self.items = self.string_list(d.get("items"), "world.items", _key("items"))
        if len(set(self.items)) != len(self.items):
            raise self.error(f"world.items: item names must be unique, got {self.items}", _key("items"))
        players = self.read_players(d["players"], rows, char_map)
        contacts = self.read_contacts(d.get("contacts"))
        beams = self.read_beams(d.get("beams"))
        beam_hits = self.read_beam_hits(d.get("beamHits"), beams)
        transitions = self.read_transitions(d.get("transitions"))
        matrix_game = self.read_matrix_game(d.get("matrixGame"), beams)
        inventory = self.read_inventory(d.get("initialInventory"))
        action_prefix = self.boolean(d.get("actionPrefix", True), "world.actionPrefix", _key("actionPrefix"))
        if not action_prefix and (len(players) != 1 or beams):
            raise self.error("world.actionPrefix = false (a single MOVE action) needs exactly one player "
                             "and no beams", _key("actionPrefix"))
        end = d.get("endWhenGone")
        return WorldSpec(
            name=name, map=rows, char_map=char_map, layers=self.layers,
            states=tuple(self.build_state(n) for n in sorted(self.states)),
            players=players, contacts=contacts, beams=beams, beam_hits=beam_hits, transitions=transitions,
            matrix_game=matrix_game, items=tuple(self.items), initial_inventory=inventory,
            movement=self.choice(d.get("movement", "absolute"), "world.movement", ("absolute", "relative")),
            topology=self.choice(d.get("topology", "BOUNDED"), "world.topology", ("bounded", "torus")),
            sprite_size=self.sprite_size(d.get("spriteSize", 8)),
            view=self.read_view(d.get("view")),
            episode_frames=self.integer(d.get("episodeFrames", 1000), "world.episodeFrames",
                                        _key("episodeFrames"), lo=1),
            end_when_gone=None if end is None else self.state_name(end, "world.endWhenGone", _key("endWhenGone")),
            completion_reward=self.number(d.get("completionReward", 0.0), "world.completionReward",
                                          _key("completionReward")),
            step_cost=self.number(d.get("stepCost", 0.0), "world.stepCost", _key("stepCost")),
            action_prefix=action_prefix,
            settings=self.settings,
        )

    def choice(self, value: Any, where: str, options: Sequence[str]) -> str:
        key = where.split(".")[-1]
        text = self.string(value, where, _key(key))
        if text.lower() not in options:
            raise self.error(f"{where} must be one of {', '.join(o.upper() for o in options)}, got {text!r}",
                             _quoted(text), _key(key))
        return text.lower()

    def sprite_size(self, value: Any) -> int:
        size = self.integer(value, "world.spriteSize", _key("spriteSize"))
        if size not in (8, 16):
            raise self.error(f"world.spriteSize must be 8 or 16 (sprite art of any square size is scaled to it), "
                             f"got {size}", _key("spriteSize"))
        return size

    def read_layers(self, value: Any) -> Tuple[str, ...]:
        layers = self.string_list(value, "world.layers", _key("layers"))
        if not layers:
            raise self.error("world.layers must list the layers in render order, e.g. {'background', "
                             "'items', 'avatars'}", _key("layers"))
        dup = sorted({l for l in layers if layers.count(l) > 1})
        if dup:
            raise self.error(f"world.layers: layer names must be unique (repeated: {', '.join(dup)})",
                             _key("layers"))
        return tuple(layers)

    # -- sprites ---------------------------------------------------------------------------------
    def read_sprites(self, value: Any) -> Dict[str, Sprite]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error("world.sprites must be a table {Name = {art = [[...]], palette = {...}}, ...}",
                             _key("sprites"))
        start = self.c.source().find(_key("sprites"))
        return {str(name): self.read_sprite(entry, f"world.sprites.{name}", str(name), start)
                for name, entry in value.items()}

    def read_sprite(self, entry: Any, where: str, name: str, start=None) -> Sprite:
        at = self.c.source().find(_key(name), after=start) if name else None
        at = at or start
        if not isinstance(entry, dict):
            raise self.error(f"{where} must be a table {{art = [[...]], palette = {{...}}}}, got {_show(entry)}",
                             _key(name), after=start)
        self.check_keys(entry, where, SPRITE_KEYS, after=at)
        for key in SPRITE_KEYS:
            if key not in entry:
                raise self.error(f"{where}: missing {key!r}", _key(name), after=start)
        art = entry["art"]
        if isinstance(art, str):
            rows, _ = _text_rows(art)
        elif isinstance(art, list) and all(isinstance(r, str) for r in art):
            rows = list(art)
        else:
            raise self.error(f"{where}.art must be a string (rows separated by newlines, e.g. [[...]]) or a list "
                             f"of row strings, got {_show(art)}", _key("art"), after=at)
        palette = self.read_palette(entry["palette"], f"{where}.palette", at)
        if not rows:
            raise self.error(f"{where}.art is empty", _key("art"), after=at)

        def fail(row: int, message: str):
            first = self.c.source().find_block(rows, after=at)
            if first is not None:
                raise LuaScriptError(first[0], first[1] + row, message)
            raise self.error(message, _key("art"), after=at)

        for i, row in enumerate(rows):
            if len(row) != len(rows):
                fail(i, f"{where}.art must be square: {len(rows)} rows, but row {i + 1} has {len(row)} "
                        f"characters ({row!r})")
            for j, ch in enumerate(row):
                if ch not in palette:
                    fail(i, f"{where}.art row {i + 1}, column {j + 1}: {ch!r} is not in the palette "
                            f"(palette: {''.join(sorted(palette))!r})")
        return Sprite(rows=tuple(rows), palette=palette)

    def read_palette(self, value: Any, where: str, at) -> Dict[str, Tuple[int, ...]]:
        if not isinstance(value, dict) or not value:
            raise self.error(f"{where} must be a table {{['c'] = {{r, g, b[, a]}}, ...}}, got {_show(value)}",
                             _key("palette"), after=at)
        out = {}
        for ch, colour in value.items():
            if not isinstance(ch, str) or len(ch) != 1:
                raise self.error(f"{where}: keys must be single characters, got {ch!r}", _key("palette"), after=at)
            if (not isinstance(colour, list) or len(colour) not in (3, 4)
                    or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 255 for x in colour)):
                raise self.error(f"{where}[{ch!r}] must be {{r, g, b}} or {{r, g, b, a}} with integers 0..255, "
                                 f"got {_show(colour)}", _key(ch), _key("palette"), after=at)
            out[ch] = tuple(colour)
        return out

    # -- states ----------------------------------------------------------------------------------
    def read_states(self, value: Any) -> Dict[str, Dict[str, Any]]:
        start = self.c.source().find(_key("states"))
        if isinstance(value, list):   # the list form: {{name = 'wall', layer = ...}, ...}
            entries = []
            for i, entry in enumerate(value, 1):
                if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                    raise self.error(f"world.states[{i}] must be a table with a name, got {_show(entry)}",
                                     _key("states"))
                entries.append((entry["name"], {k: v for k, v in entry.items() if k != "name"}))
        elif isinstance(value, dict) and value:
            entries = [(str(k), v) for k, v in value.items()]
        else:
            raise self.error("world.states must be a table {name = {layer = ..., sprite = ...}, ...}, got "
                             f"{_show(value)}", _key("states"))
        names = [n for n, _ in entries]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise self.error(f"world.states: state names must be unique (repeated: {', '.join(dup)})",
                             _key("states"))
        states = {}
        for name, entry in entries:
            where = f"world.states.{name}"
            at = self.c.source().find(_key(name), _quoted(name), after=start) or start
            if not isinstance(entry, dict):
                raise self.error(f"{where} must be a table {{layer = ..., sprite = ...}}, got {_show(entry)}",
                                 _key(name), after=start)
            self.check_keys(entry, where, STATE_KEYS, after=at, callbacks=STATE_CALLBACKS)
            layer = self.string(entry.get("layer"), f"{where}.layer", _key("layer"))
            if layer not in self.layers:
                raise self.error(f"{where}.layer: {_suggest('layer', layer, self.layers)}", _quoted(layer),
                                 _key("layer"), after=at)
            sprite = entry.get("sprite")
            if isinstance(sprite, dict):
                sprite = self.read_sprite(sprite, f"{where}.sprite", "", at)
            elif sprite is not None:
                sprite_name = self.string(sprite, f"{where}.sprite", _key("sprite"))
                if sprite_name not in self.sprites:
                    raise self.error(f"{where}.sprite: {_suggest('sprite', sprite_name, self.sprites)}",
                                     _quoted(sprite_name), after=at)
                sprite = self.sprites[sprite_name]
            char = entry.get("char", " ")
            if not isinstance(char, str) or len(char) != 1:
                raise self.error(f"{where}.char must be one character (its WORLD.TEXT character), got "
                                 f"{_show(char)}", _key("char"), after=at)
            states[name] = {
                "layer": layer, "sprite": sprite, "char": char,
                "groups": tuple(self.string_list(entry.get("groups"), f"{where}.groups", _key("groups"))),
                "pushable": self.boolean(entry.get("pushable", False), f"{where}.pushable", _key("pushable")),
                "blocks_beams": self.boolean(entry.get("blocksBeams", False), f"{where}.blocksBeams",
                                             _key("blocksBeams")),
            }
        return states

    def build_state(self, name: str) -> State:
        s = self.states[name]
        return State(name=name, layer=s["layer"], sprite=s["sprite"], char=s["char"], groups=s["groups"],
                     pushable=s["pushable"], blocks_beams=s["blocks_beams"])

    # -- map ---------------------------------------------------------------------------------------
    def read_char_map(self, value: Any) -> Dict[str, Tuple[str, ...]]:
        if not isinstance(value, dict) or not value:
            raise self.error("world.charMap must be a table {['c'] = 'state' or {'state1', 'state2'}, ...}, got "
                             f"{_show(value)}", _key("charMap"))
        start = self.c.source().find(_key("charMap"))
        out = {}
        for ch, placed in value.items():
            where = f"world.charMap[{ch!r}]"
            if not isinstance(ch, str) or len(ch) != 1 or ord(ch) > 255:
                raise self.error(f"world.charMap: keys must be single (ASCII) characters, got {ch!r}",
                                 _key(str(ch)), _key("charMap"), after=start)
            names = self.string_list(placed, where, _key(ch), _key("charMap"))
            by_layer: Dict[str, str] = {}
            for name in names:
                if name not in self.states:
                    raise self.error(f"{where}: {_suggest('state', name, self.states)}", _quoted(name),
                                     _key("charMap"), after=start)
                layer = self.states[name]["layer"]
                if layer in by_layer:
                    raise self.error(f"{where} puts {by_layer[layer]!r} and {name!r} on layer {layer!r}; a cell "
                                     "holds one state per layer", _quoted(name), after=start)
                by_layer[layer] = name
            out[ch] = tuple(names)
        return dict(sorted(out.items()))

    def read_map(self, value: Any, char_map: Dict[str, Tuple[str, ...]]) -> Tuple[str, ...]:
        if isinstance(value, str):
            rows, _ = _text_rows(value)
        elif isinstance(value, list) and all(isinstance(r, str) for r in value):
            rows = list(value)
        else:
            raise self.error(f"world.map must be a string of rows (e.g. [[...]]) or a list of row strings, got "
                             f"{_show(value)}", _key("map"))
        if not rows or not rows[0]:
            raise self.error("world.map is empty", _key("map"))

        def fail(row: int, message: str):
            first = self.c.source().find_block(rows, after=self.c.source().find(_key("map")))
            if first is not None:
                raise LuaScriptError(first[0], first[1] + row, message)
            raise self.error(message, _key("map"))

        width = len(rows[0])
        for r, row in enumerate(rows):
            if len(row) != width:
                fail(r, f"world.map row {r + 1} has {len(row)} characters but row 1 has {width}: every row must "
                        "have the same length (the map is a rectangle)")
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch not in char_map:
                    close = difflib.get_close_matches(ch, list(char_map), n=3)
                    fail(r, f"world.map row {r + 1}, column {c + 1}: character {ch!r} is not in charMap (known: "
                            f"{''.join(sorted(char_map))!r}){' — did you mean ' + repr(close[0]) + '?' if close else ''}")
        return tuple(rows)

    # -- players ---------------------------------------------------------------------------------
    def read_players(self, value: Any, rows, char_map) -> Tuple[Player, ...]:
        entries = self.table_list(value, "world.players", _key("players"))
        if not entries:
            raise self.error("world.players must list at least one player {state = ..., spawn = ...}",
                             _key("players"))
        players = []
        for i, entry in enumerate(entries, 1):
            where = f"world.players[{i}]"
            self.check_keys(entry, where, ("state", "spawn"))
            players.append(Player(state=self.state_name(entry.get("state"), f"{where}.state", _key("players")),
                                  spawn=self.state_name(entry.get("spawn"), f"{where}.spawn", _key("players"))))
        layers = {self.states[p.state]["layer"] for p in players}
        if len(layers) != 1:
            raise self.error(f"world.players: all avatar states must be on one layer, got {sorted(layers)}",
                             _key("players"))
        for spawn in sorted({p.spawn for p in players}):
            cells = sum(row.count(ch) for row in rows for ch, placed in char_map.items() if spawn in placed)
            wanted = sum(p.spawn == spawn for p in players)
            if cells < wanted:
                raise self.error(f"world.players: {wanted} player(s) spawn at {spawn!r} but the map has {cells} "
                                 f"cell(s) holding it", _key("players"), _quoted(spawn))
        return tuple(players)

    # -- rules -----------------------------------------------------------------------------------
    def read_contacts(self, value: Any) -> Tuple[Contact, ...]:
        keys = ("mover", "other", "on", "becomes", "reward", "collect", "otherReward", "respawnFrames")
        out = []
        for i, e in enumerate(self.table_list(value, "world.contacts", _key("contacts")), 1):
            where = f"world.contacts[{i}]"
            p = _key("contacts")
            self.check_keys(e, where, keys)
            mover = self.state_name(e.get("mover"), f"{where}.mover", p)
            other = self.state_name(e.get("other"), f"{where}.other", p)
            on = e.get("on", "enter")
            if on not in ("enter", "leave"):
                raise self.error(f"{where}.on must be 'enter' or 'leave', got {_show(on)}", p)
            becomes = e.get("becomes")
            if becomes is not None:
                becomes = self.state_name(becomes, f"{where}.becomes", p, allow_empty=True)
                self.same_layer(other, becomes, f"{where}.becomes", p)
            catching = other in self.avatar_states() and self.states[other]["layer"] == self.states[mover]["layer"]
            if self.states[other]["layer"] == self.states[mover]["layer"] and not catching:
                raise self.error(f"{where}: {mover!r} and {other!r} are both on layer "
                                 f"{self.states[mover]['layer']!r}; a contact is with a piece on another layer "
                                 "(or with an avatar, to catch it)", _quoted(other), p)
            collect = e.get("collect")
            if collect is not None:
                item = self.string(collect, f"{where}.collect", p)
                if item not in self.items:
                    raise self.error(f"{where}.collect: {_suggest('item', item, self.items)}", _quoted(item), p)
                collect = self.items.index(item)
            out.append(Contact(
                mover=mover, other=other, on=on, becomes=becomes,
                reward=self.number(e.get("reward", 0.0), f"{where}.reward", p), collect=collect,
                other_reward=self.number(e.get("otherReward", 0.0), f"{where}.otherReward", p),
                respawn_frames=self.integer(e.get("respawnFrames", 0), f"{where}.respawnFrames", p, lo=0)))
        return tuple(out)

    def avatar_states(self) -> set:
        players = self.data.get("players")
        return {e.get("state") for e in players if isinstance(e, dict)} if isinstance(players, list) else set()

    def read_beams(self, value: Any) -> Tuple[Beam, ...]:
        keys = ("action", "length", "radius", "overlay", "cooldown", "cost")
        out = []
        for i, e in enumerate(self.table_list(value, "world.beams", _key("beams")), 1):
            where = f"world.beams[{i}]"
            p = _key("beams")
            self.check_keys(e, where, keys)
            action = self.string(e.get("action"), f"{where}.action", p)
            if not re.fullmatch(r"[A-Za-z_]\w*", action) or action in ("move", "turn"):
                raise self.error(f"{where}.action must be a name like 'fireZap' (letters, digits, _), other than "
                                 f"move and turn; got {action!r}", _quoted(action), p)
            if any(b.action == action for b in out):
                raise self.error(f"{where}.action: beam actions must be unique ({action!r} is repeated)",
                                 _quoted(action), p)
            overlay = e.get("overlay")
            out.append(Beam(
                action=action, length=self.integer(e.get("length"), f"{where}.length", p, lo=1),
                radius=self.integer(e.get("radius", 0), f"{where}.radius", p, lo=0),
                overlay=None if overlay is None else self.state_name(overlay, f"{where}.overlay", p),
                cooldown=self.integer(e.get("cooldown", 0), f"{where}.cooldown", p, lo=0),
                cost=self.number(e.get("cost", 0.0), f"{where}.cost", p)))
        return tuple(out)

    def beam_name(self, value: Any, where: str, beams, p: str) -> str:
        name = self.string(value, where, p)
        actions = [b.action for b in beams]
        if name not in actions:
            raise self.error(f"{where}: {_suggest('beam', name, actions)}", _quoted(name), p)
        return name

    def read_beam_hits(self, value: Any, beams) -> Tuple[BeamHit, ...]:
        keys = ("beam", "target", "becomes", "reward", "targetReward", "freezeFrames")
        out = []
        for i, e in enumerate(self.table_list(value, "world.beamHits", _key("beamHits")), 1):
            where = f"world.beamHits[{i}]"
            p = _key("beamHits")
            self.check_keys(e, where, keys)
            target = self.state_name(e.get("target"), f"{where}.target", p)
            becomes = e.get("becomes")
            if becomes is not None:
                becomes = self.state_name(becomes, f"{where}.becomes", p, allow_empty=True)
                self.same_layer(target, becomes, f"{where}.becomes", p)
            out.append(BeamHit(
                beam=self.beam_name(e.get("beam"), f"{where}.beam", beams, p), target=target, becomes=becomes,
                reward=self.number(e.get("reward", 0.0), f"{where}.reward", p),
                target_reward=self.number(e.get("targetReward", 0.0), f"{where}.targetReward", p),
                freeze_frames=self.integer(e.get("freezeFrames", 0), f"{where}.freezeFrames", p, lo=0)))
        return tuple(out)

    def read_transitions(self, value: Any) -> Tuple[Transition, ...]:
        keys = ("source", "target", "probability", "neighbour", "radius", "depletion", "underAvatars")
        out = []
        for i, e in enumerate(self.table_list(value, "world.transitions", _key("transitions")), 1):
            where = f"world.transitions[{i}]"
            p = _key("transitions")
            self.check_keys(e, where, keys)
            source = self.state_name(e.get("source"), f"{where}.source", p)
            target = self.state_name(e.get("target"), f"{where}.target", p, allow_empty=True)
            self.same_layer(source, target, f"{where}.target", p)
            prob = e.get("probability")
            if isinstance(prob, list):
                probability = tuple(self.number(x, f"{where}.probability[{k}]", _key("probability"), p, lo=0, hi=1)
                                    for k, x in enumerate(prob, 1))
            else:
                probability = self.number(prob, f"{where}.probability", _key("probability"), p, lo=0, hi=1)
            neighbour = e.get("neighbour")
            if neighbour is not None:
                neighbour = self.state_name(neighbour, f"{where}.neighbour", p)
            elif isinstance(probability, tuple) and len(probability) > 1:
                raise self.error(f"{where}: a probability per neighbour count needs neighbour = 'state'",
                                 _key("probability"), p)
            depletion = e.get("depletion")
            if depletion is not None:
                if not isinstance(depletion, dict):
                    raise self.error(f"{where}.depletion must be a table {{state =, among =, zeroAt =}}", p)
                self.check_keys(depletion, f"{where}.depletion", ("state", "among", "zeroAt"))
                among = self.string_list(depletion.get("among"), f"{where}.depletion.among", p)
                if not among:
                    raise self.error(f"{where}.depletion.among must list at least one state", p)
                depletion = Depletion(
                    state=self.state_name(depletion.get("state"), f"{where}.depletion.state", p),
                    among=tuple(self.state_name(a, f"{where}.depletion.among", p) for a in among),
                    zero_at=self.number(depletion.get("zeroAt"), f"{where}.depletion.zeroAt", p, lo=0))
                if depletion.zero_at <= 0:
                    raise self.error(f"{where}.depletion.zeroAt must be above 0", p)
            out.append(Transition(
                source=source, target=target, probability=probability, neighbour=neighbour,
                radius=self.integer(e.get("radius", 1), f"{where}.radius", p, lo=1), depletion=depletion,
                under_avatars=self.boolean(e.get("underAvatars", False), f"{where}.underAvatars", p)))
        return tuple(out)

    def read_matrix_game(self, value: Any, beams) -> Optional[MatrixGame]:
        if value is None:
            return None
        p = _key("matrixGame")
        if not isinstance(value, dict):
            raise self.error("world.matrixGame must be a table {beam =, payoff =, respawnFrames =, minItems =}", p)
        self.check_keys(value, "world.matrixGame", ("beam", "payoff", "respawnFrames", "minItems"))
        k = len(self.items)
        if k == 0:
            raise self.error("world.matrixGame needs items (the strategies): world.items = {...}", p)
        payoff = value.get("payoff")
        if (not isinstance(payoff, list) or len(payoff) != k
                or not all(isinstance(r, list) and len(r) == k for r in payoff)):
            raise self.error(f"world.matrixGame.payoff must be a {k}x{k} table (one row and column per item: "
                             f"{', '.join(self.items)}), got {_show(payoff)}", _key("payoff"), p)
        rows = tuple(tuple(self.number(x, "world.matrixGame.payoff", _key("payoff")) for x in r) for r in payoff)
        return MatrixGame(
            beam=self.beam_name(value.get("beam"), "world.matrixGame.beam", beams, p), payoff=rows,
            respawn_frames=self.integer(value.get("respawnFrames", 0), "world.matrixGame.respawnFrames", p, lo=0),
            min_items=self.integer(value.get("minItems", 1), "world.matrixGame.minItems", p, lo=0))

    def read_inventory(self, value: Any) -> Tuple[int, ...]:
        if value is None or value == {}:
            return ()
        p = _key("initialInventory")
        if not isinstance(value, list):
            raise self.error(f"world.initialInventory must be a list of counts, got {_show(value)}", p)
        if len(value) != len(self.items):
            raise self.error(f"world.initialInventory has {len(value)} entries for {len(self.items)} item(s)", p)
        return tuple(self.integer(x, "world.initialInventory", p, lo=0) for x in value)

    def read_view(self, value: Any) -> View:
        if value is None:
            return View()
        p = _key("view")
        if not isinstance(value, dict):
            raise self.error("world.view must be a table {left =, right =, forward =, backward =}", p)
        keys = ("left", "right", "forward", "backward")
        self.check_keys(value, "world.view", keys)
        default = View()
        return View(**{k: self.integer(value.get(k, getattr(default, k)), f"world.view.{k}", p, lo=0) for k in keys})


def _text_rows(text: str) -> Tuple[List[str], int]:
    """Rows of a multi-line string, and how many leading lines were dropped:
    leading empty lines and a last line of spaces only (the indentation of a
    closing ``]]``) are not rows."""
    lines = text.replace("\r\n", "\n").split("\n")
    skipped = 0
    while lines and lines[0] == "":
        lines.pop(0)
        skipped += 1
    if lines and not lines[-1].strip():
        lines.pop()
    return lines, skipped


def _sorted(value: Any) -> Any:
    """Nested dicts with their keys sorted (Lua tables have no order)."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _show(value: Any) -> str:
    """A short description of a Lua value (from to_python) for messages."""
    if value is None:
        return "nil"
    if lua_type(value) == "function":
        return "a function"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["CompiledGrid", "SUPPORTED_CALLBACKS", "UNSUPPORTED_CALLBACKS", "STATE_CALLBACKS",
           "compile_grid_level", "compile_grid_script", "is_grid_script", "supported_actions"]

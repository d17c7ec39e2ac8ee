"""Translate a loaded script's play-time callbacks into JAX functions, with start state read on the host.

    loaded = load_script("levels/counter.lua")
    tr = translate(loaded, {"pickup": (0,), "hasEpisodeFinished": (0.0,)})
    state = tr.initial_state(seed=0)
    state, result, effects = jax.jit(tr.callbacks["pickup"])(state, tr.inputs(), 3)

See :mod:`compile_lua.device` for the state, inputs and effects pytrees.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Set

import jax
import jax.numpy as jnp
from lupa.lua54 import lua_type as lupa_type

from compile_lua.device import builtins, ops, stored_functions, tensors
from compile_lua.device.callstate import Env
from compile_lua.device.fitting import fitted
from compile_lua.device.layouts import holds, layout_kind, start_value, store, zero_value
from compile_lua.device.maybe_tables import holds_table
from compile_lua.device.number_bounds import scalar_unbounded, unbounded
from compile_lua.device.host_graph import HostGraph
from compile_lua.device.host_objects import object_at, snapshot_objects
from compile_lua.device.host_state import read_host_state
from compile_lua.device.host_values import UPVALUE
from compile_lua.device.interp import Interpreter
from compile_lua.device.source import DeviceRejection, Outline, outline, reject, written
from compile_lua.device.grid_values import GridText
from compile_lua.device.values import (Arr, MaybeBool, MaybeNum, MaybeStr, Num, NumText, Str, TensorVal, as_num,
                                       lua_type, tensors_in)
from compile_lua.loading import LoadedScript
from jaxlab.kernels.first_person.script import script_inputs

MAX_ROUNDS = 6   # translations until the state's kinds (int/float, string sets) stop widening


@dataclasses.dataclass(frozen=True)
class Static:
    """A callback argument known when the callback is traced (Lab2D's observation index): the callback
    is translated for that value, as it is for a string argument."""

    value: Any


def to_tree(v: Any, intern: Callable[[str], int]) -> Any:
    """A callback's result as a pytree of arrays: numbers int32/float32, booleans bool, strings int32
    ids into ``Translation.strings``, fixed tables arrays, records dicts, other lists lists, nil None."""
    if isinstance(v, Num):
        return v.x
    if isinstance(v, Str):
        return v.gid
    if isinstance(v, Arr):
        return v.x
    if isinstance(v, TensorVal):
        return v.t.array()
    if isinstance(v, GridText):
        return v.chars
    if isinstance(v, str):
        return jnp.int32(intern(v))
    if isinstance(v, bool):
        return jnp.bool_(v)
    if isinstance(v, (int, float)):
        return as_num(v).x
    if isinstance(v, dict):
        return {k: to_tree(x, intern) for k, x in v.items()}
    if isinstance(v, list):
        return [to_tree(x, intern) for x in v]
    return None if v is None else v


@dataclasses.dataclass
class Translation:
    """Translated callbacks: ``callbacks[name](state, inputs, *args) -> (state, result, effects)``;
    ``layout`` (state key -> kind), ``start`` (state key -> start value), ``constants`` (variables no
    function writes: key -> value, folded into the translation; ``host_constants`` the same as the host
    read them), ``strings`` (id -> text), ``results`` (callback -> the Lua types of its return values,
    as :func:`translate` traced it), ``bounds`` (callback -> per argument, the (lo, hi) interval of the
    integers the engine passes there, or None: DMLab's pickup ids)."""

    outline: Outline
    layout: Dict[str, tuple]
    start: Dict[str, Any]
    constants: Dict[str, Any]
    host_constants: Dict[str, Any] = dataclasses.field(default_factory=dict)
    strings: List[str] = dataclasses.field(default_factory=list)
    callbacks: Dict[str, Callable] = dataclasses.field(default_factory=dict)
    results: Dict[str, tuple] = dataclasses.field(default_factory=dict)
    changed: bool = False
    defines: tuple = ()   # callbacks whose writes to new api fields make them state (Lab2D's start)
    nilable: frozenset = frozenset()   # api fields nil when the script has loaded that callbacks set
    bounds: Dict[str, tuple] = dataclasses.field(default_factory=dict)
    host: Optional[HostGraph] = None   # the host objects play reaches, when callbacks live there (Lab2D's libraries)
    # the objects play-time variables hold (``host_objects``): the first episode's graph, then other variants'
    object_graphs: List[HostGraph] = dataclasses.field(default_factory=list)
    object_variants: Dict[str, List[int]] = dataclasses.field(default_factory=dict)   # key -> its variants' graphs
    nil_results_refused: bool = False   # a callback's result that may be nil is refused (DMLab's: nil means "default")
    nil_false: frozenset = frozenset()   # callbacks whose boolean-or-nil result reads as false (a decorator's ``or``)
    grid_rules: Dict[str, Any] = dataclasses.field(default_factory=dict)   # grid variable -> GridRules (grids.py)
    grid_demand: Dict[str, int] = dataclasses.field(default_factory=dict)   # grid variable -> pieces made (grids.py)
    # the first traces of a host api find the fields play sets: nil fields read as PENDING (values.PendingNil);
    # 2: the grids' state callbacks left out (they run where Lua's own order may not have set what they read), 1: in
    discovering: int = 0
    # while settling: the first stop met in an arm of an ``if`` on a traced condition, which the trace went on
    # past (``Interpreter.branch``): code after it may set what the stop needs (a list a later draw builds)
    deferred: Optional[DeviceRejection] = None
    settling: bool = False

    def function_value(self, key: tuple) -> Any:
        """The function a key of ``stored_functions`` names (``stored_functions.function_of``), found once."""
        if key not in self._functions:
            graph = self.host if self.host is not None else (self.object_graphs[0] if self.object_graphs else None)
            sources = {**(graph.files if graph is not None else {}), self.outline.path: self.outline.text}
            self._functions[key] = stored_functions.function_of(key, self.outline, graph, sources)
        return self._functions[key]

    def intern(self, text: str) -> int:
        """The id of ``text`` in :attr:`strings` (added when new)."""
        if text not in self._ids:
            self._ids[text] = len(self.strings)
            self.strings.append(text)
        return self._ids[text]

    def __post_init__(self):
        self._ids: Dict[str, int] = {}
        self._functions: Dict[tuple, Any] = {}

    def widen(self, key: str, kind: tuple) -> None:
        self.layout[key], self.changed = kind, True

    def settle(self, traces: Sequence[tuple]) -> None:
        """Trace each ``(fn, args)`` of ``traces`` (``fn(state, inputs, *args)`` calls callbacks; ``args`` are
        traced) with ``jax.eval_shape``, again until the state's kinds stop widening (an int that a branch
        makes a float, a string that gains values). A trace that stops on what the state does not hold yet (a
        field a later callback first sets to a table) is tried again in the next round while the round changed
        the state; rejects state that keeps widening, and the first stop of a round that changed nothing."""
        phase = 2 if self.host is not None else 0
        self.settling = True
        try:
            self._settle(traces, phase)
        finally:
            self.settling, self.deferred = False, None

    def _settle(self, traces: Sequence[tuple], phase: int) -> None:
        for _ in range(MAX_ROUNDS + phase):
            self.changed, self.discovering, stopped = False, phase, None
            for fn, args in traces:
                self.deferred = None
                try:
                    # a new function each round: JAX would reuse a trace of the same function and shapes
                    jax.eval_shape(lambda *a, fn=fn: fn(*a), self.initial_state(), self.inputs(), *args)
                except DeviceRejection as why:
                    stopped = stopped or self.deferred or why
                stopped = stopped or self.deferred
            if stopped is not None:
                if not self.changed:
                    raise stopped
                continue
            if phase:
                phase -= 1
                continue
            if not self.changed:
                return
        reject(self.outline.path, None, "play-time state whose kind keeps changing", "a string variable that "
               "grows without bound (s = s .. 'x') has no finite set of values")

    def define(self, key: str, kind: tuple, start: Any = None) -> None:
        """Make ``key`` state of ``kind``, starting from ``start`` (a host value), or from its zero value (a
        variable ``start`` sets first)."""
        kept = start is not None or holds_table(kind)   # a table that is nil until play writes one: the bounds of
        self.layout[key], self.changed = scalar_unbounded(kind if kept else unbounded(kind)), True   # what it gets
        self.start[key] = zero_value(kind) if start is None else start

    def initial_state(self, seed: int = 0) -> Dict[str, Any]:
        """The state pytree at the start: ``{"key": uint32[2], "vars": {key: array}}``."""
        return {"key": jax.random.PRNGKey(seed), "vars": self.state_vars(self.start)}

    def state_vars(self, values: Mapping[str, Any]) -> Dict[str, Any]:
        """Host values of play-time variables (name -> number, bool, str or list, as lupa reads them) as
        the state's ``vars`` arrays, each in its layout's dtype (strings as ids into ``strings``)."""
        return {k: store(self.layout[k], start_value(self.layout[k], v), self.intern) for k, v in values.items()}

    @staticmethod
    def inputs(episode_time: float = 0.0, pos=(0.0, 0.0, 0.0), vel=(0.0, 0.0), angles=(0.0, 0.0, 0.0),
               score: float = 0.0, walls=None) -> Dict[str, Any]:
        """The inputs pytree the first-person kernel gives (``kernels.first_person.script.script_inputs``):
        ``episode_time`` (seconds), ``player`` at ``pos`` (x, y, z units) moving at ``vel`` (x, y units/s),
        facing ``angles`` (pitch, yaw, roll degrees; roll is 0 in jaxlab) with ``score``, standing, not
        turning nor teleported; ``walls`` ``(solid bool[Hm, Wm], rows)`` (None: a 1x1 open grid)."""
        return script_inputs(pos[:2], pos[2], vel, angles[1], angles[0], episode_time, 1, score, walls=walls)

    def run(self, name: str, state: Dict[str, Any], inputs: Dict[str, Any], args: Sequence[Any],
            interpreter: type = Interpreter) -> tuple:
        """Trace api method ``name`` once on ``state`` and ``inputs`` with ``args`` (translator values, after
        ``self``), in an ``interpreter`` (an :class:`Interpreter` class): ``(new state, the values it returns
        as translator values, the interpreter, whose ``env`` holds the state and effects it left)``."""
        env = Env(self, state, inputs)
        env.defining = name in self.defines or self.host is not None
        it = interpreter(self.outline, env)
        fdef = it.callable(builtins.method(it, name, None)) if self.host is not None else \
            self.outline.methods.get(name) or it.callable(object_at(self, name))   # api.<f>: the host's function
        # the engine calls api:name(...): its first parameter is the api, whatever its name (``_`` in Lab2D's
        # common.properties)
        result = it.inline(fdef, [builtins.API] + list(args))
        result = [tensors.current(env, v) for v in result]
        # a variable that became state inside one arm of an ``if`` starts from its zero value this time;
        # ``settle`` traces again with it in the state
        kept = {k: tensors.current(env, env.state[k]) if k in env.state else
                start_value(self.layout[k], zero_value(self.layout[k])) for k in self.layout}
        for k in sorted(env.unsettled):   # a list's slots: as the call leaves it, the kinds its writes in this
            wide = env.settled_kind(it, k, kept[k], final=True)   # call gave dropped
            if wide != self.layout[k]:
                self.widen(k, wide)
            kept[k] = fitted(it, k, self.layout[k], kept[k])[1]
        owners = [t.owner for v in kept.values() for t in tensors_in(v)]
        if len(owners) != len(set(owners)):
            reject(self.outline.path, fdef.line, "two play-time variables holding one tensor", "each variable "
                   "kept between calls carries its own tensor (clone one of them)")
        new = {"key": env.key, "vars": {k: store(self.layout[k], v, self.intern) for k, v in kept.items()}}
        self.results[name] = tuple(f"{lua_type(v)} {v.t.kind} {list(v.t.shape)}" if isinstance(v, TensorVal)
                                   else f"text {list(v.chars.shape)}" if isinstance(v, GridText)
                                   else lua_type(v) for v in result)
        return new, result, it

    def step_fn(self, name: str) -> Callable:
        def step(state, inputs, *args):
            bounds = tuple(self.bounds.get(name, ())) + (None,) * len(args)
            new, result, it = self.run(name, state, inputs, [_arg(a, b) for a, b in zip(args, bounds)])
            effects = {"score": as_num(it.env.effects["score"]).x.astype(jnp.float32),
                       "finish": jnp.asarray(it.env.effects["finish"])}
            line = getattr(self.outline.methods.get(name), "line", None)
            if any(_holds_number_text(v) for v in result):
                reject(self.outline.path, line, f"api:{name} returning tostring of a "
                       "number that play changes", "the host writes that text only for a Lab2D property read "
                       "(readProperty); return the number")
            result = [ops.truthy(v) if name in self.nil_false and isinstance(v, MaybeBool) else v for v in result]
            maybe = (MaybeBool, MaybeNum, MaybeStr) if self.nil_results_refused else MaybeBool
            if any(isinstance(v, maybe) for v in result):
                reject(self.outline.path, line, f"api:{name} returning a value that "
                       "may be nil", "nil is the engine's own default there (a value read from a table written "
                       "at play time, or a path that returns nothing): return a value on every path "
                       "(t[k] == true, x or 0)")
            out = [to_tree(v, self.intern) for v in result]
            return new, (None if not out else out[0] if len(out) == 1 else tuple(out)), effects
        return step


def _holds_number_text(v: Any) -> bool:
    """Whether a result is, or holds, a NumText (a number's text that the host writes)."""
    if isinstance(v, dict):
        v = list(v.values())
    return isinstance(v, NumText) or (isinstance(v, list) and any(_holds_number_text(x) for x in v))


def rebuild(out: Outline, layout: Mapping[str, tuple], start: Mapping[str, Any], host_constants: Mapping[str, Any],
            names: Sequence[str], defines: Sequence[str] = (), bounds: Optional[Mapping[str, tuple]] = None,
            host: Optional[HostGraph] = None, objects: Sequence[HostGraph] = (),
            variants: Optional[Mapping[str, List[int]]] = None) -> Translation:
    """The Translation of callbacks ``names`` from plain data, with no Lua run: the script's
    :func:`~compile_lua.device.source.outline`, ``layout`` and ``start`` (as a Translation holds them)
    and ``host_constants`` (unwritten variables' host values, :attr:`Translation.host_constants`);
    ``bounds``: :attr:`Translation.bounds`; ``host``: :attr:`Translation.host`; ``objects``, ``variants``:
    :attr:`Translation.object_graphs`, :attr:`Translation.object_variants`.
    What a compile's child process sends back is rebuilt into callbacks this way."""
    constants = {k: start_value(layout_kind(v), v) for k, v in host_constants.items()}
    tr = Translation(out, {k: scalar_unbounded(kind) for k, kind in layout.items()}, dict(start), constants, host_constants=dict(host_constants),
                     defines=tuple(defines), bounds=dict(bounds or {}), host=host, object_graphs=list(objects),
                     object_variants={k: list(v) for k, v in (variants or {}).items()})
    tr.callbacks = {name: tr.step_fn(name) for name in names}
    return tr


def _arg(a: Any, bound: Optional[tuple] = None) -> Any:
    """An argument as a translator value: a str stays a static string (customObservation's name, known
    when the callback is traced), a :class:`Static` its value, dicts records, lists and 1-D arrays tables
    (Arr), scalars numbers (in the interval ``bound``, when given) or booleans."""
    if isinstance(a, str):
        return a
    if isinstance(a, Static):
        return a.value
    if isinstance(a, dict):
        return {k: _arg(v) for k, v in a.items()}
    x = jnp.asarray(a)
    if x.dtype != jnp.bool_:
        x = x.astype(jnp.int32 if jnp.issubdtype(x.dtype, jnp.integer) else jnp.float32)
    if x.ndim == 1:
        return Arr(x)
    return x if x.dtype == jnp.bool_ else Num(x, *(bound or ()))


def _with_strings(step: Callable, example: Sequence[Any], state, inputs, *traced):
    """``step(state, inputs, *example)`` with the example's strings and Statics static and its other
    arguments ``traced``."""
    rest = iter(traced)
    return step(state, inputs, *[a if isinstance(a, (str, Static)) else next(rest) for a in example])


def translate(loaded: LoadedScript, callbacks: Mapping[str, Any], settings: Optional[Mapping[str, Any]] = None,
              start_args: Optional[Sequence[Any]] = None, defines: Sequence[str] = (),
              source: Optional[Outline] = None,
              then: Optional[Callable[[], Any]] = None, touched: Optional[Set[str]] = None,
              table: Any = None, bounds: Optional[Mapping[str, tuple]] = None, nil_false: Sequence[str] = ()) -> Translation:
    """Translate the api methods named in ``callbacks`` (name -> example arguments: ints for Lua
    integers, floats, bools, dicts of those, lists for tables; strings and :class:`Static` values are
    static arguments, passed as they are to the callback too; a list of such tuples translates the
    callback for each) of a script whose main chunk has run. ``init(settings)`` runs first
    on the host when the script defines it, then ``start(*start_args)`` when those are given;
    the play-time variables' values are then read (:func:`read_host_state`). The callbacks named in
    ``defines`` (Lab2D's ``start``, translated first) make the api fields they set state.
    Every callback is traced once here (``jax.eval_shape``), so a construct
    that cannot run on the device raises LuaScriptError now, at its ``file:line``. ``source``: the outline
    (``source.outline``) of the Lua the callbacks are written in when not the script's own top level (a
    module's level factory; ``api``: the module's table that stands for the api, whose host table is
    ``table``). ``then``: called after ``start`` and before
    the state is read (the callbacks an episode runs next, e.g. DMLab's ``nextMap``). ``touched``: the state
    keys the callbacks can name, when known (``local.<name>``, ``api.<field>``); variables outside it are
    not play-time state, whatever other functions write to them. A value that is or holds a table at
    integer keys is state even when no function writes it, never a constant (its keys travel as text in a
    compile's JSON meta, where a constant's would read as a record's), and so is a tensor (its methods
    write it). ``bounds``: :attr:`Translation.bounds`; ``nil_false``: :attr:`Translation.nil_false`."""
    out = source or outline(str(loaded.sandbox.script), loaded.path.read_text(encoding="utf-8"))
    for name in callbacks:
        if name not in out.methods:
            reject(out.path, None, f"the callback api:{name}", "the script does not define it with "
                   "`function api:name(...)` or `api.name = function(...)` at its top level")
    for name, where in out.locals.items():
        if len(where) == 3:
            reject(out.path, where[1], f"the top-level local '{name}' declared twice",
                   "play-time state is found by name")
    api = loaded.returned
    if lupa_type(api) == "table" and api["init"] is not None:
        loaded.sandbox.call_method(api, "init", dict(settings or {}))
    if start_args is not None and lupa_type(api) == "table" and api["start"] is not None:
        loaded.sandbox.call_method(api, "start", *start_args)
    if then is not None:   # what an episode does after start, before play (DMLab's nextMap)
        then()
    objects: Dict[str, Any] = {}
    start = read_host_state(loaded, out, table, objects)
    objects = {k: v for k, v in objects.items() if touched is None or k in touched}
    keyed = {k for k, v in start.items() if holds(layout_kind(v), "keyed") or layout_kind(v)[0] == "tensor"}
    # an object's methods, written elsewhere, may change its data; a decorator's setter, its module's local
    changing = written(out) | keyed | set(objects) | {k for k in start if k.startswith(UPVALUE)}
    changing = changing if touched is None else changing & set(touched)
    tr = rebuild(out, {k: layout_kind(v) for k, v in start.items() if k in changing},
                 {k: v for k, v in start.items() if k in changing},
                 {k: v for k, v in start.items() if k not in changing | keyed}, callbacks, defines, bounds,
                 objects=[snapshot_objects(loaded.sandbox, objects)] if objects else ())
    host = api if table is None else table
    held = set(host.keys()) if lupa_type(host) == "table" else set()   # its keys only: its values may hold cycles
    tr.nilable = frozenset(k for k in changing if k.startswith("api.") and k[4:] not in held)
    tr.nil_false = frozenset(nil_false)
    settle_callbacks(tr, callbacks, defines)
    return tr


def settle_callbacks(tr: Translation, callbacks: Mapping[str, Any], defines: Sequence[str] = ()) -> None:
    """Trace every callback on its examples (those of ``defines`` first) until the state stops changing."""
    order = [n for n in defines if n in callbacks] + [n for n in callbacks if n not in defines]
    tr.settle([(functools.partial(_with_strings, tr.callbacks[name], example),
                [a for a in example if not isinstance(a, (str, Static))])
               for name in order for example in (callbacks[name] if isinstance(callbacks[name], list)
                                                 else [callbacks[name]])])


def translate_host(path: str, text: str, graph: HostGraph, callbacks: Mapping[str, Any],
                   defines: Sequence[str] = ()) -> Translation:
    """Translate the api methods named in ``callbacks`` (as :func:`translate` takes them) of a level whose api
    and callbacks live on the host (``graph``, :func:`compile_lua.device.host_graph.snapshot` taken after
    ``init``): the functions are found through the graph, wherever they are written, and the api's fields
    become state when a callback writes them. ``path``/``text``: the level script (its messages' file)."""
    tr = rebuild(outline(path, text), {}, {}, {}, callbacks, defines, host=graph)
    settle_callbacks(tr, callbacks, defines)
    return tr

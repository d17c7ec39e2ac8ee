"""RawEnv: a Lab2D raw-API level (``advance``, ``observation``, ``discreteActions``) as a pure jaxlab Env.

The level is its spec (``jaxlab.levels.lab2d.raw.RawSpec``) and its callbacks, JAX functions made from
the script's Lua by ``compile_lua.lab2d.raw``, each ``fn(lua, *args) -> (lua, result)`` over the
script's state ``lua = {"key": uint32[2], "vars": {name: array}}``:

- ``start(lua, episode int32[], seed int32[])`` (absent for a level without ``start``);
- ``discreteActions(lua, actions int32[A])`` (absent for a level with no discrete actions);
- ``continuousActions(lua, actions float32[C])`` (absent for a level with no continuous actions);
- ``advance(lua, frame int32[])`` -> ``(continue bool[], reward number[])``, or ``continue`` alone;
- ``observation(lua, index)`` -> the observation numbered ``index`` (a Python int, 1-based, spec order):
  a number or a tensor's elements, of the spec's shape.

An episode begins from the spec's start values (what ``init`` left on the host; 0 for what only
``start`` sets) with ``start(episode, seed)``: ``episode`` 0 and ``seed`` drawn from the reset's key
(``reset`` is pure: it does not count episodes), or both given to :meth:`RawEnv.start_state`.

A step is what dmlab2d does for ``act_discrete``, ``act_continuous`` then ``advance``: the actions (a
dict ``{name: int32[]}`` for the discrete actions' names, ``{name: float32[]}`` for the continuous ones;
a missing name is 0) go to ``discreteActions``, then to ``continuousActions``, then ``advance(frame)``
runs with the frame count (1 on the episode's first step). ``continue == false`` ends the episode (terminated);
a step after the end keeps the state and returns LAST with reward 0. After the start and after each
step, ``observation(index)`` runs for each observed name in the spec's order (as a host that reads
them all, like dmlab2d's harness, calls it); the values are kept in the state and so is what the
callback writes.

The property callbacks, each present when the script defines it, take Lab2D's strings as they are
(each call is translated for its key, and value, when first made; see ``compile_lua.lab2d.raw_properties``):

- ``writeProperty(lua, key, value)`` -> ``(lua, code int32[])``, a JAX function of ``lua``;
- ``readProperty(lua, key)`` -> ``(code, text)`` and ``listProperty(lua, key)`` -> ``(code, [(key, mode)])``,
  run on the host over one episode's ``lua``;

``code`` is a ``PROPERTY_RESULT`` (``jaxlab.levels.lab2d.properties.PropertyResult``), ``mode`` any of
``r``, ``w``, ``l``. A level without one answers NOT_FOUND, as dmlab2d does.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional, Sequence

import jax
import jax.numpy as jnp
from flax import struct

from jaxlab.env import Env, select_tree
from jaxlab.errors import unknown_name_error
from jaxlab.kernels.lab2d_tensor.kinds import cast, dtype_of
from jaxlab.levels.lab2d.properties import PropertyResult, mode_attribute, raise_for
from jaxlab.levels.lab2d.raw import RawSpec
from jaxlab.types import ArraySpec, BoundedArraySpec


@struct.dataclass
class RawState:
    """One episode of a raw-API level.

    lua:   the script's state: ``{"key": uint32[2] (its draws), "vars": {name: array}}``.
    obs:   the observations read after the last start or step: {name: array of its spec}.
    frame: int32[] frames advanced this episode.
    done:  bool[] the episode has ended.
    key:   PRNG key the episode began from.
    """

    lua: Any
    obs: Dict[str, jnp.ndarray]
    frame: jnp.ndarray
    done: jnp.ndarray
    key: jax.Array


class RawEnv(Env):
    """A raw-API Lab2D level: ``spec`` (RawSpec) and ``callbacks`` (name -> fn, see the module);
    ``observations``: the names to observe (default: all the spec declares, in its order)."""

    def __init__(self, spec: RawSpec, callbacks: Mapping[str, Callable], observations: Optional[Sequence[str]] = None):
        self.spec, self.name = spec, spec.name
        self.callbacks = dict(callbacks)
        declared = {o.name: (index, o) for index, o in enumerate(spec.observations, start=1)}
        for name in observations or ():
            if name not in declared:
                raise unknown_name_error(f"observation of {spec.name}", name, declared)
        self.observed = [declared[name] for name in (declared if observations is None else observations)]

    def init_state(self, key: jax.Array) -> RawState:
        """An episode begun with ``start(0, seed)``, ``seed`` an int32 in [0, 2**31 - 1) drawn from ``key``."""
        seed_key = jax.random.fold_in(key, 1)
        return self.start_state(key, 0, jax.random.randint(seed_key, (), 0, 2**31 - 1, jnp.int32))

    def start_state(self, key: jax.Array, episode: Any, seed: Any) -> RawState:
        """The state after ``start(episode, seed)`` (int32 scalars) from the spec's start values, with the
        script's draws keyed from ``key`` until ``start`` seeds them, and its observations read."""
        lua_key = jax.random.split(key)[1]
        if jnp.issubdtype(lua_key.dtype, jax.dtypes.prng_key):
            lua_key = jax.random.key_data(lua_key)
        lua = {"key": lua_key, "vars": jax.tree_util.tree_map(jnp.asarray, self.spec.start)}
        if "start" in self.callbacks:
            lua, _ = self.callbacks["start"](lua, jnp.asarray(episode, jnp.int32), jnp.asarray(seed, jnp.int32))
        lua, obs = self._read(lua)
        return RawState(lua=lua, obs=obs, frame=jnp.int32(0), done=jnp.bool_(False), key=key)

    def advance(self, state: RawState, action: Mapping[str, Any]):
        """One step: (state, reward float32[], terminated bool[], truncated bool[]) (see the module)."""
        lua = state.lua
        for callback, actions, dtype in (("discreteActions", self.spec.actions, jnp.int32),
                                         ("continuousActions", self.spec.continuous, jnp.float32)):
            if actions:
                values = jnp.stack([jnp.asarray(action.get(a.name, 0), dtype) for a in actions])
                lua, _ = self.callbacks[callback](lua, values)
        frame = state.frame + 1
        lua, result = self.callbacks["advance"](lua, frame)
        going, reward = result if isinstance(result, tuple) else (result, 0.0)
        going = jnp.asarray(going, jnp.bool_)
        lua, obs = self._read(lua)
        new = RawState(lua=lua, obs=obs, frame=frame, done=~going, key=state.key)
        reward = jnp.where(state.done, 0.0, jnp.asarray(reward, jnp.float32))
        return select_tree(state.done, state, new), reward, state.done | ~going, jnp.bool_(False)

    def _read(self, lua: Any):
        """(lua, {name: observation}): ``observation(index)`` for each observed name, in spec order, each
        as its kind's dtype and its shape."""
        out = {}
        for index, obs in self.observed:
            lua, value = self.callbacks["observation"](lua, index)
            out[obs.name] = cast(jnp.asarray(value), obs.kind).reshape(obs.shape)
        return lua, out

    def observe(self, state: RawState) -> Dict[str, jnp.ndarray]:
        """The observations read after the last start or step (see the module)."""
        return dict(state.obs)

    def observation_spec(self) -> Dict[str, ArraySpec]:
        """name -> ArraySpec(shape, dtype of the tensor kind), for the observed names."""
        return {o.name: ArraySpec(o.shape, dtype_of(o.kind), o.name) for _, o in self.observed}

    def action_spec(self) -> Dict[str, BoundedArraySpec]:
        """name -> BoundedArraySpec((), int32 or float32, the spec's bounds): discrete actions, then continuous."""
        discrete = {a.name: BoundedArraySpec((), jnp.int32, a.name, minimum=a.minimum, maximum=a.maximum)
                    for a in self.spec.actions}
        return {**discrete, **{a.name: BoundedArraySpec((), jnp.float32, a.name, minimum=a.minimum, maximum=a.maximum)
                               for a in self.spec.continuous}}

    # ----- properties (Lab2D's readProperty, writeProperty, listProperty; see the module) -----
    def read_property(self, state: RawState, key: str) -> str:
        """``readProperty(key)`` on one episode's ``state`` (not a batch), as dmlab2d's ``Lab2d.read_property``:
        the value's text. Raises PropertyNotFoundError (a KeyError) for NOT_FOUND, PropertyPermissionError or
        PropertyInvalidArgumentError (ValueErrors) for PERMISSION_DENIED or INVALID_ARGUMENT."""
        if "readProperty" not in self.callbacks:
            raise_for(PropertyResult.NOT_FOUND, key, "reading")
        code, text = self.callbacks["readProperty"](state.lua, key)
        raise_for(code, key, "reading")
        return text

    def write_property(self, state: RawState, key: str, value: str):
        """``writeProperty(key, value)`` on ``state``: ``(state, code int32[])``, the state the callback left and
        its PROPERTY_RESULT (``jaxlab.levels.lab2d.properties.raise_for`` raises what dmlab2d raises for it).
        Pure: ``jax.jit`` it with ``key`` and ``value`` static, ``jax.vmap`` it over a batch of states. The
        observations stay those read after the last start or step."""
        if "writeProperty" not in self.callbacks:
            return state, jnp.int32(PropertyResult.NOT_FOUND)
        lua, code = self.callbacks["writeProperty"](state.lua, key, value)
        return state.replace(lua=lua), code

    def list_property(self, state: RawState, key: str):
        """``listProperty(key, callback)`` on one episode's ``state``, as dmlab2d's ``Lab2d.list_property``:
        ``[(key, PropertyAttribute)]`` in the order the callback listed them (a property listed with an empty
        mode is left out). Raises as :meth:`read_property` does."""
        if "listProperty" not in self.callbacks:
            raise_for(PropertyResult.NOT_FOUND, key, "listing")
        code, listed = self.callbacks["listProperty"](state.lua, key)
        raise_for(code, key, "listing")
        return [(name, mode_attribute(mode)) for name, mode in listed]

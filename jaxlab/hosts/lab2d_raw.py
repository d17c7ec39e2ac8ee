"""``jaxlab.grid.Lab2d`` over a Lab2D raw-API script: dmlab2d's ``Lab2d`` and ``Environment`` in one.

``jaxlab.grid.Lab2d`` gives a :class:`RawLab2d` for a script written against Lab2D's level API
(``advance``, ``observation``, ``discreteActions``; ``jaxlab.kernels.lab2d_raw``)::

    env = jaxlab.grid.Lab2d("properties", settings={"levelDirectory": "levels"}, seed=1)
    ts = env.reset()
    ts = env.step({"collect": 1})
    env.read_property("state.score")          # '1'
    env.write_property("params.bonus", "3")   # the script's writeProperty: later rewards are 3
    env.list_property("params")               # [('params.bonus', <PropertyAttribute.READABLE_WRITABLE: 3>)]

What it mirrors of ``dmlab2d.Environment`` over ``dmlab2d.Lab2d``:

- dm_env: ``reset`` gives FIRST (no reward or discount); ``step`` MID, or LAST (discount 0) where
  ``advance`` returns false; a step before the first reset or after LAST starts the next episode.
  Observations are the names asked for (default: the spec's, in its order) with dmlab2d's dtypes
  (Int32 int32, Int64 int64, Double float64; computed on the device at 32 bits).
- Actions: a dict of any of the action names; a name left out keeps its last value (dmlab2d's
  Environment keeps one action array for its whole life), 0 at first. Discrete actions take integers
  and continuous ones numbers, within the spec's bounds (``jaxlab.hosts.checks``).
- Episodes: the n-th reset (from 0) runs the script's ``start(n, seed)`` on the device, ``seed`` drawn in
  [0, 2**31) by numpy's ``RandomState`` seeded with ``seed``, as dmlab2d's Environment draws it (the
  first is also the seed the compile's translation was traced with). Every episode begins from what
  ``init`` left, then ``start``.
- Properties: ``read_property``, ``write_property`` and ``list_property`` call the script's callbacks
  (translated per key, ``compile_lua.lab2d.raw_properties``) and raise what dmlab2d raises. Before the
  first reset they act on the state the first episode begins in. A write changes the running episode;
  the next reset begins from the compiled start again (dmlab2d's Lua state would keep it).
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

import dm_env
import jax
import numpy as np
from dm_env import specs

from jaxlab.hosts.checks import dict_action
from jaxlab.kernels.lab2d_raw import RawEnv
from jaxlab.kernels.lab2d_tensor.kinds import KINDS
from jaxlab.levels.lab2d.properties import raise_for
from jaxlab.settings import SEED_RANGE, integer_value, names_value, refusal

#: the seeds dmlab2d's Environment draws for episodes: [0, SEED_LIMIT)
SEED_LIMIT = 2**31


def first_episode_seed(seed: int) -> int:
    """The seed of the first episode of a host seeded with ``seed`` (an int in SEED_RANGE; see the module)."""
    return int(np.random.RandomState(integer_value("Lab2d", "seed", seed, *SEED_RANGE) % 2**32).randint(0, SEED_LIMIT))


class RawLab2d(dm_env.Environment):
    """A compiled raw-API level (``env``, a RawEnv) behind dmlab2d's host API (see the module).
    ``observations``: names to report (default: every observation of the spec); ``seed``: seeds the
    episodes' seeds. Made by ``jaxlab.grid.Lab2d``."""

    def __init__(self, env: RawEnv, observations: Optional[Sequence[str]] = None, seed: int = 0):
        requested = None if observations is None else names_value("Lab2d", "observations", observations)
        self._env = RawEnv(env.spec, env.callbacks, observations=requested)
        seed = integer_value("Lab2d", "seed", seed, *SEED_RANGE)
        self._rng = np.random.RandomState(seed % 2**32)
        self._kinds = {o.name: o.kind for _, o in self._env.observed}
        self._start_fn, self._step_fn = jax.jit(self._env.start_state), jax.jit(self._env.step)
        self._episode = 0
        self._write_fn = jax.jit(self._env.write_property, static_argnums=(1, 2))
        self._actions = {name: 0 for name in self.action_spec()}
        self._state = None         # the running episode's
        self._unstarted = None     # the first episode's, made by a property call before the first reset
        self._ended = True

    @property
    def env(self) -> RawEnv:
        """The underlying pure RawEnv."""
        return self._env

    # ----- dm_env -----
    def _observation(self) -> Dict[str, np.ndarray]:
        obs = self._env.observe(self._state)
        return {name: np.asarray(value, KINDS[self._kinds[name]]) for name, value in obs.items()}

    def _next_state(self):
        """The next episode: ``start(episode, seed)`` with dmlab2d's Environment's episode count and seed."""
        seed = self._rng.randint(0, SEED_LIMIT)
        state = self._start_fn(jax.random.PRNGKey(seed), np.int32(self._episode), np.int32(seed))
        self._episode += 1
        return state

    def reset(self) -> dm_env.TimeStep:
        """Start the next episode (its seed drawn as dmlab2d's Environment draws it)."""
        self._state = self._unstarted if self._unstarted is not None else self._next_state()
        self._unstarted, self._ended = None, False
        return dm_env.restart(self._observation())

    def step(self, action: Dict[str, Any]) -> dm_env.TimeStep:
        """Act ``action`` (a dict: any of the action names -> a number within ``action_spec()``; the others
        keep their last value) and advance one frame; before the first reset or after LAST, start the
        next episode instead. A bad action raises before anything runs (``jaxlab.hosts.checks.dict_action``:
        TypeError, ValueError, UnknownNameError naming ``Lab2d.step``)."""
        spec = self.action_spec()
        action = dict_action("Lab2d.step", action, spec)
        if self._ended:
            return self.reset()
        self._actions.update(action)
        dtypes = {name: np.int32 if s.dtype == np.int32 else np.float32 for name, s in spec.items()}
        self._state, ts = self._step_fn(self._state, {k: dtypes[k](v) for k, v in self._actions.items()})
        self._ended = bool(ts.step_type == dm_env.StepType.LAST)
        if self._ended:
            return dm_env.termination(float(ts.reward), self._observation())
        return dm_env.transition(float(ts.reward), self._observation())

    def observation_spec(self) -> Dict[str, specs.Array]:
        """dict name -> dm_env Array (shape, dmlab2d's dtype), in the reported order."""
        return {name: specs.Array(s.shape, KINDS[self._kinds[name]], name)
                for name, s in self._env.observation_spec().items()}

    def action_spec(self) -> Dict[str, specs.BoundedArray]:
        """dict name -> dm_env BoundedArray: discrete actions int32, then continuous ones float64."""
        return {name: specs.BoundedArray((), np.int32 if s.dtype == np.int32 else np.float64, s.minimum, s.maximum,
                                         name) for name, s in self._env.action_spec().items()}

    # ----- properties -----
    def _current(self):
        if self._state is not None:
            return self._state
        if self._unstarted is None:
            self._unstarted = self._next_state()
        return self._unstarted

    def read_property(self, key: str) -> str:
        """The script's ``readProperty(key)``: the value's text. PropertyNotFoundError (a KeyError) for
        NOT_FOUND, PropertyPermissionError / PropertyInvalidArgumentError (ValueErrors) for the others;
        TypeError for a key that is not a str."""
        return self._env.read_property(self._current(), _text("read_property", "key", key))

    def write_property(self, key: str, value: str) -> None:
        """The script's ``writeProperty(key, value)``; what it changed is kept whatever it answers. Raises
        as :meth:`read_property` for an answer other than SUCCESS."""
        key, value = _text("write_property", "key", key), _text("write_property", "value", value)
        state, code = self._write_fn(self._current(), key, value)
        if self._state is not None:
            self._state = state
        else:
            self._unstarted = state
        raise_for(int(code), key, "writing")

    def list_property(self, key: str):
        """The script's ``listProperty(key, callback)``: ``[(key, PropertyAttribute)]`` as it listed them.
        Raises as :meth:`read_property`."""
        return self._env.list_property(self._current(), _text("list_property", "key", key))

    readProperty = read_property
    writeProperty = write_property
    listProperty = list_property


def _text(call: str, what: str, value: Any) -> str:
    """``value`` when it is a str (Lab2D's property keys and values are); TypeError naming ``call`` else."""
    if not isinstance(value, str):
        raise TypeError(refusal(call, what, "a str (Lab2D's property keys and values are strings)", value))
    return value


__all__ = ["RawLab2d", "first_episode_seed"]

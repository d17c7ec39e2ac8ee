"""``DmEnv``: one jaxlab Env instance as a host-side ``dm_env.Environment``."""
from __future__ import annotations

from typing import Any, Dict

import dm_env
import jax
import numpy as np
from dm_env import specs

from jaxlab.env import Env
from jaxlab.types import ArraySpec, BoundedArraySpec, DiscreteArraySpec

_JIT_ATTR = "_jaxlab_dm_env_jit"


def compiled(env: Env):
    """(jit(env.reset), jit(env.step)), compiled once per env object.

    The pair is kept on the env itself (not in a global table), so it is
    freed with the env; every DmEnv over one env shares one compilation.
    """
    fns = vars(env).get(_JIT_ATTR)  # vars(): never read through a wrapper to the inner env
    if fns is None:
        fns = (jax.jit(env.reset), jax.jit(env.step))
        setattr(env, _JIT_ATTR, fns)
    return fns


def to_dm_spec(spec: ArraySpec) -> specs.Array:
    """The ``dm_env.specs`` object of a jaxlab spec (DiscreteArray, BoundedArray or Array)."""
    if isinstance(spec, DiscreteArraySpec):
        return specs.DiscreteArray(spec.num_values, dtype=spec.dtype, name=spec.name or None)
    if isinstance(spec, BoundedArraySpec):
        return specs.BoundedArray(spec.shape, spec.dtype, spec.minimum, spec.maximum, name=spec.name or None)
    return specs.Array(spec.shape, spec.dtype, name=spec.name or None)


def check_action(spec: ArraySpec, action) -> np.ndarray:
    """Host validation of ``action`` against ``spec``; returns it as a numpy array.

    numpy arrays and scalars must match the spec's shape and dtype exactly;
    plain Python ints (or lists of ints) are converted to the spec's integer
    dtype. Out-of-range values raise ValueError naming the action element
    (e.g. ``MOVE_BACK_FORWARD = 2 is outside [-1, 1]``).
    """
    dtype = np.dtype(spec.dtype)
    if not isinstance(action, (np.ndarray, np.generic)):
        arr = np.asarray(action)
        if arr.dtype == np.bool_ or (arr.dtype.kind in "iu") != (dtype.kind in "iu"):
            raise ValueError(f"{spec.name or 'action'}: expected {dtype.name} values, got {action!r}")
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if arr.size and (arr.min() < info.min or arr.max() > info.max):
                raise ValueError(f"{spec.name or 'action'}: {action!r} does not fit in {dtype.name}")
        action = arr.astype(dtype)
    if isinstance(spec, BoundedArraySpec) and np.ndim(action) == 0 and spec.shape == ():
        spec.validate(action)  # shape and dtype
        value = np.asarray(action).item()
        if not spec.minimum <= value <= spec.maximum:
            raise ValueError(f"{spec.name or 'action'} = {value} is outside [{spec.minimum}, {spec.maximum}]")
        return np.asarray(action)
    return spec.validate(action)


class DmEnv(dm_env.Environment):
    """A host ``dm_env.Environment`` over one instance of a jaxlab Env.

    ``reset()`` and ``step()`` run the env's jitted reset/step (compiled once
    per env object) and return ``dm_env.TimeStep``s of numpy values: the
    FIRST step has reward and discount ``None``; later steps have float32
    reward and discount (0 on termination, 1 otherwise). After a LAST step,
    or on a fresh environment, ``step()`` starts a new episode and ignores
    its (still validated) action, as dm_env requires. Observations are the
    env's dict name -> array.

    Args:
      env: a jaxlab Env (e.g. ``jaxlab.make(...)``, or wrapped in ``DiscreteActions``).
      seed: int seed of the PRNG key that is split for each new episode.
    """

    def __init__(self, env: Env, seed: int = 0):
        if not isinstance(env, Env):
            raise TypeError(f"DmEnv wraps a jaxlab Env, got {type(env).__name__}")
        self.env = env
        self._key = jax.random.PRNGKey(int(seed) & 0xFFFFFFFF)
        self._reset_fn, self._step_fn = compiled(env)
        self._action_spec = env.action_spec()
        self._state = None
        self._needs_reset = True

    def reset(self) -> dm_env.TimeStep:
        """Start a new episode: FIRST TimeStep (reward and discount None)."""
        self._key, key = jax.random.split(self._key)
        self._state, ts = self._reset_fn(key)
        self._needs_reset = False
        return dm_env.restart(self._numpy(ts.observation))

    def step(self, action) -> dm_env.TimeStep:
        """Validate ``action`` against ``action_spec()`` (ValueError naming the
        element if not) and advance one agent step; after LAST (or before any
        reset) start a new episode instead."""
        action = check_action(self._action_spec, action)
        if self._needs_reset:
            return self.reset()
        self._state, ts = self._step_fn(self._state, action)
        ts = jax.device_get(ts)
        step_type = dm_env.StepType(int(ts.step_type))
        observation = self._numpy(ts.observation)
        if step_type is dm_env.StepType.FIRST:  # an AutoReset-wrapped env started over itself
            return dm_env.restart(observation)
        if step_type is dm_env.StepType.LAST:
            self._needs_reset = True
        return dm_env.TimeStep(step_type, np.float32(ts.reward), np.float32(ts.discount), observation)

    @staticmethod
    def _numpy(observation) -> Dict[str, np.ndarray]:
        return {name: np.asarray(value) for name, value in jax.device_get(observation).items()}

    @property
    def state(self) -> Any:
        """The current jaxlab state (None before the first reset)."""
        return self._state

    def observation_spec(self) -> Dict[str, specs.Array]:
        """dict name -> ``dm_env.specs.Array`` (uint8 frames, float32 vectors)."""
        return {name: to_dm_spec(spec) for name, spec in self.env.observation_spec().items()}

    def action_spec(self) -> specs.Array:
        """``specs.BoundedArray`` int32[7] for DMLab actions, ``specs.DiscreteArray`` for index actions."""
        return to_dm_spec(self._action_spec)

    def reward_spec(self) -> specs.Array:
        """float32[] reward, summed over the step's repeated frames."""
        return specs.Array((), np.float32, name="reward")

    def discount_spec(self) -> specs.BoundedArray:
        """float32[] discount in [0, 1]."""
        return specs.BoundedArray((), np.float32, 0.0, 1.0, name="discount")

    def close(self) -> None:
        """Drop the episode state; a later ``step()`` or ``reset()`` starts over."""
        self._state = None
        self._needs_reset = True

    def __repr__(self) -> str:
        return f"DmEnv({self.env!r})"


__all__ = ["DmEnv", "check_action", "compiled", "to_dm_spec"]

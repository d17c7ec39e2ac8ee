"""``jaxlab.grid.Lab2d``: dmlab2d's Python host API over a grid world.

A stand-in for ``dmlab2d.Environment`` (a dm_env environment) that also
answers Lab2D's properties API over the level's settings::

    env = jaxlab.grid.Lab2d("pushbox", ["WORLD.RGB", "WORLD.TEXT"], seed=1)
    ts = env.reset()
    ts = env.step({"MOVE": 2})
    print(ts.observation["WORLD.TEXT"])
    env.read_property("settings.episodeLengthFrames")      # '120'
    env.write_property("settings.numBoxes", "3")           # from the next episode
    env.list_property("settings")                          # [('settings.numBoxes', RW), ...]

One world runs on the host; ``step`` and ``reset`` are jitted once per
level settings. A generated level (pushbox) makes a fresh map at every
reset, as Lab2D does (no bank of maps: one env resets rarely). A written
setting is checked at once and the world rebuilt at the next ``reset``.
``readProperty``/``writeProperty``/``listProperty`` are aliases with Lab2D's
Lua names.

For a script written against Lab2D's level API (``advance``, ``observation``;
no world table) ``Lab2d(...)`` gives a :class:`jaxlab.hosts.lab2d_raw.RawLab2d`
instead, which mirrors dmlab2d's host over the script's compiled callbacks.
A ``levelDirectory`` setting looks ``level`` up as dmlab2d does
(``jaxlab.registry.lab2d_host_level``).
"""
from __future__ import annotations

import copy
from typing import Any, Dict, Mapping, Optional, Sequence, Union

import dm_env
import jax
import numpy as np
from dm_env import specs

from jaxlab.hosts.checks import dict_action
from jaxlab.hosts.lab2d_raw import RawLab2d, first_episode_seed
from jaxlab.kernels.grid.compile import compile_grid
from jaxlab.kernels.grid.env import GridEnv
from jaxlab.levels.lab2d import properties
from jaxlab.levels.lab2d.compiled import CompiledGrid
from jaxlab.levels.lab2d.spec import GridSpec, GridSpecError
from jaxlab.registry import grid_spec, lab2d_host_level
from jaxlab.settings import SEED_RANGE, SettingError, integer_value, names_value, refusal

WORLD_TEXT = "WORLD.TEXT"


class Lab2d(dm_env.Environment):
    """A grid world behind dmlab2d's ``Environment`` interface.

    Args:
      level: a built-in grid level (``jaxlab.levels.names(family="lab2d")``), a
        ``.lua`` level script, or Lab2D's ``levelName`` (with a ``:<argument>``
        for a level factory) when ``settings`` has a ``levelDirectory``. A
        raw-API script makes a ``RawLab2d`` (see the module).
      observations: a list (or tuple) of names to report (``WORLD.TEXT``
        included, as a str); default every observation of the level.
      settings: a dict of level settings (Lab2D camelCase names, nested or
        dotted; values strings or Python values, converted by Lab2D's rules).
      seed: the seed of the first episode, an int in [0, 2**63 - 1]; each
        reset uses the next one (its key is made from it modulo 2**32).

    A wrong type raises TypeError and an out-of-range seed ValueError, each
    naming ``Lab2d`` and the argument.
    """

    def __new__(cls, level: str, observations: Optional[Sequence[str]] = None,
                settings: Optional[Mapping[str, Any]] = None, seed: int = 0):
        """The level is found (a script compiled once) here: a raw-API script's host is a RawLab2d."""
        if settings is not None and not isinstance(settings, Mapping):
            raise TypeError(refusal("Lab2d", "settings", "a dict of level settings", settings))
        found = lab2d_host_level(level, settings, first_episode_seed(seed))
        if found.raw is not None:
            return RawLab2d(found.raw, observations, seed)
        host = super().__new__(cls)
        host._found = found
        return host

    def __init__(self, level: str, observations: Optional[Sequence[str]] = None,
                 settings: Optional[Mapping[str, Any]] = None, seed: int = 0):
        self._requested = None if observations is None else names_value("Lab2d", "observations", observations)
        self._seed = integer_value("Lab2d", "seed", seed, *SEED_RANGE)
        self._level = self._found.level
        spec = self._found.grid
        self._settings = copy.deepcopy(spec.settings)
        self._pending: Optional[CompiledGrid] = None   # the world built from written settings, for the next reset
        self._state = None
        self._build(spec)

    def _build(self, spec: Union[GridSpec, CompiledGrid]) -> None:
        probe = GridEnv(spec, observations=[], layouts=0)
        known = list(probe.available_observations()) + [WORLD_TEXT]
        wanted = self._requested or tuple(known)
        device = [n for n in wanted if n != WORLD_TEXT]
        self._env = GridEnv(probe.world, observations=device, layouts=0)
        self._text = WORLD_TEXT in wanted
        self._order = tuple(wanted)
        self._reset_fn = jax.jit(self._env.reset)
        self._step_fn = jax.jit(self._env.step)

    @property
    def env(self) -> GridEnv:
        """The underlying pure GridEnv."""
        return self._env

    # ----- dm_env -----
    def _time_step(self, ts) -> dm_env.TimeStep:
        obs = {k: np.asarray(v) for k, v in ts.observation.items()}
        if self._text:
            obs[WORLD_TEXT] = self._env.world_text(self._state)
        obs = {k: obs[k] for k in self._order}
        step_type = dm_env.StepType(int(ts.step_type))
        reward = None if step_type == dm_env.StepType.FIRST else float(ts.reward)
        discount = None if step_type == dm_env.StepType.FIRST else float(ts.discount)
        return dm_env.TimeStep(step_type, reward, discount, obs)

    def reset(self) -> dm_env.TimeStep:
        """Start the next episode (seed = the constructor's seed + episodes started)."""
        if self._pending is not None:
            self._build(self._pending)
            self._pending = None
        self._state, ts = self._reset_fn(jax.random.PRNGKey(self._seed & 0xFFFFFFFF))
        self._seed += 1
        return self._time_step(ts)

    def step(self, action: Mapping[str, Any]) -> dm_env.TimeStep:
        """Play one frame with ``action``: a dict action name -> integer (Python or numpy integers,
        0-d integer arrays) within ``action_spec()``'s bounds, any subset of the names (the others
        are 0). After the last step (or before the first reset) this starts a new episode.

        A bad action is refused before anything runs, by
        :func:`jaxlab.hosts.checks.dict_action`: TypeError for a non-dict or a non-integer value
        (1.7, '1', True, None, an array with dimensions), ValueError out of bounds,
        UnknownNameError (with suggestions) for an unknown name; each names ``Lab2d.step``, the
        action and its range.
        """
        specs_ = self._env.action_spec()
        action = dict_action("Lab2d.step", action, specs_)
        if self._state is None or bool(self._state.done):
            return self.reset()
        # every name, so that the jitted step sees one dict structure whatever subset was given
        self._state, ts = self._step_fn(self._state, {k: np.int32(action.get(k, 0)) for k in specs_})
        return self._time_step(ts)

    def observation_spec(self) -> Dict[str, specs.Array]:
        """dict name -> dm_env spec (``WORLD.TEXT`` has dtype object, shape ())."""
        out = {name: specs.Array(s.shape, s.dtype, name) for name, s in self._env.observation_spec().items()}
        if self._text:
            out[WORLD_TEXT] = specs.Array((), np.dtype(object), WORLD_TEXT)
        return {k: out[k] for k in self._order}

    def action_spec(self) -> Dict[str, specs.BoundedArray]:
        """dict action name -> dm_env BoundedArray (int32 scalars)."""
        return {name: specs.BoundedArray((), np.int32, s.minimum, s.maximum, name)
                for name, s in self._env.action_spec().items()}

    # ----- properties -----
    def read_property(self, key: str) -> str:
        """The value of a setting, e.g. ``'settings.episodeLengthFrames'``, as a string (TypeError for a
        key that is not a str, see :func:`jaxlab.levels.lab2d.properties.read_property`)."""
        return properties.read_property(self._settings, key)

    def write_property(self, key: str, value: str) -> None:
        """Set a setting (a string, converted to its type); takes effect at the next reset.

        The level is rebuilt from the written settings at once, so a value is checked exactly as the
        constructor and ``jaxlab.make`` check it (type, finite, range). A refused value raises
        PropertyInvalidArgumentError (a ValueError naming the setting; PropertyNotFoundError,
        PropertyPermissionError and TypeError as in ``properties.write_property``) and leaves the
        settings as they were.
        """
        trial = copy.deepcopy(self._settings)
        properties.write_property(trial, key, value)
        try:
            world = compile_grid(grid_spec(self._level, trial))
        except (SettingError, GridSpecError) as err:
            raise properties.PropertyInvalidArgumentError(f"invalid argument: {key!r}: {err}", key) from None
        self._settings = trial
        self._pending = world

    def list_property(self, key: str):
        """[(key, PropertyAttribute)] of the properties directly under ``key``."""
        return properties.list_property(self._settings, key)

    readProperty = read_property
    writeProperty = write_property
    listProperty = list_property


__all__ = ["Lab2d"]

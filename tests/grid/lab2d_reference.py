"""The reference side of the Lab2D raw-API tests: a level script played through the real ``dmlab2d``,
and the same play through jaxlab's compiled ``RawEnv`` (:func:`jaxlab_trajectory`).

``dmlab2d`` (a test dependency) runs the script's Lua as Lab2D does; jaxlab's compiled kernel is
compared against what it returns. A trajectory is plain data (numpy arrays, floats, strings), so two
runs compare with ``==`` and ``np.testing``::

    spec = action_spec(RAW, "counter")
    actions = random_actions(spec, steps=30, seed=1)
    run = dmlab2d_trajectory(RAW, "counter", {}, seed=7, actions=actions, reads=("state.score",))
    run["rewards"], run["ended"], run["observations"]["FRAMES"], run["properties"]["state.score"]

Actions are dicts ``{name: value}`` over the level's discrete and continuous actions (a name left
out is 0). Play stops at the step where the episode ends; later actions are not played.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

#: what ``dmlab2d_trajectory`` records of each observation: arrays as numpy, strings as ``str``
Observation = Any


def open_level(script_dir, level_name: str, settings: Optional[Mapping[str, Any]] = None):
    """A ``dmlab2d.Lab2d`` for ``level_name`` looked up in folder ``script_dir`` (Lab2D's
    ``levelDirectory``, made absolute: dmlab2d reads a relative one from its own install folder), with
    ``settings`` passed to the script's ``init`` (values made strings)."""
    import dmlab2d
    import dmlab2d.runfiles_helper  # noqa: F401  (registers the submodule)

    config = {key: str(value) for key, value in (settings or {}).items()}
    config.update(levelName=level_name, levelDirectory=str(Path(script_dir).absolute()))
    return dmlab2d.Lab2d(dmlab2d.runfiles_helper.find(), config)


def action_spec(script_dir, level_name: str, settings=None) -> Dict[str, tuple]:
    """The level's actions as dmlab2d reports them: ``{name: (kind, min, max)}`` with kind
    ``"discrete"`` (int bounds) or ``"continuous"`` (float bounds), discrete ones first, each in
    the script's order."""
    lab = open_level(script_dir, level_name, settings)
    spec = {}
    for name in lab.action_discrete_names():
        bounds = lab.action_discrete_spec(name)
        spec[name] = ("discrete", int(bounds["min"]), int(bounds["max"]))
    for name in lab.action_continuous_names():
        bounds = lab.action_continuous_spec(name)
        spec[name] = ("continuous", float(bounds["min"]), float(bounds["max"]))
    return spec


def random_actions(spec: Mapping[str, tuple], steps: int, seed: int) -> List[Dict[str, Any]]:
    """``steps`` action dicts drawn uniformly inside ``spec`` (from :func:`action_spec`) with numpy's
    generator seeded by ``seed``: discrete values are ints in [min, max], continuous ones floats in
    [min, max] rounded to 1/16 (exact in float32 and float64)."""
    rng = np.random.default_rng(seed)
    actions = []
    for _ in range(steps):
        action = {}
        for name, (kind, low, high) in spec.items():
            if kind == "discrete":
                action[name] = int(rng.integers(low, high + 1))
            else:
                action[name] = float(np.round(rng.uniform(low, high) * 16) / 16)
        actions.append(action)
    return actions


def _observe(lab, names: Sequence[str]) -> Dict[str, Observation]:
    values = {}
    for name in names:
        value = lab.observation(name)
        values[name] = value.decode() if isinstance(value, bytes) else np.array(value)
    return values


def _read(lab, keys: Sequence[str]) -> Dict[str, Optional[str]]:
    """Each key's value, or None where dmlab2d refuses the read (missing or unreadable)."""
    values = {}
    for key in keys:
        try:
            values[key] = lab.read_property(key)
        except (KeyError, ValueError):
            values[key] = None
    return values


def dmlab2d_trajectory(script_dir, level_name: str, settings: Optional[Mapping[str, Any]] = None, seed: int = 0,
                       actions: Sequence[Mapping[str, Any]] = (), *, episode: int = 0,
                       reads: Sequence[str] = (), writes: Optional[Mapping[int, Mapping[str, str]]] = None) -> dict:
    """Play one episode of ``level_name`` (in ``script_dir``) through dmlab2d.

    Args:
      script_dir: the folder the level is looked up in (Lab2D's ``levelDirectory``).
      level_name: the level (``counter``, ``tensor_room``, ``factory:double``).
      settings: passed to the script's ``init`` (values made strings).
      seed, episode: the arguments of the script's ``start(episode, seed)``.
      actions: one dict per step (see the module's docstring); play stops where the episode ends.
      reads: property keys read after ``start`` and after every step.
      writes: ``{step: {key: value}}``, written just before step ``step`` (0 = the first) is acted.

    Returns a dict of plain data, with T the number of steps played:
      ``observations``: ``{name: array [T + 1, *shape]}`` (index 0 after ``start``; a String
        observation is a list of T + 1 ``str``);
      ``rewards``: float64 [T]; ``ended``: bool [T], True only at the step that ends the episode;
      ``status``: T names of dmlab2d's status (``RUNNING``, ``TERMINATED``, ``INTERRUPTED``);
      ``properties``: ``{key: [T + 1 values]}`` (a ``str``, or None where the read is refused);
      ``writes``: ``[(step, key, value, accepted)]`` in order (accepted is False where dmlab2d refuses);
      ``events``: T lists of ``(name, [values])`` raised by each step, values as in observations;
      ``actions``: the T actions played.
    """
    lab = open_level(script_dir, level_name, settings)
    names = list(lab.observation_names())
    discrete = list(lab.action_discrete_names())
    continuous = list(lab.action_continuous_names())
    lab.start(episode, seed)
    frames = [_observe(lab, names)]
    read_values = [_read(lab, reads)]
    rewards, status, events, written, played = [], [], [], [], []
    for step, action in enumerate(actions):
        for key, value in (writes or {}).get(step, {}).items():
            try:
                lab.write_property(key, value)
                written.append((step, key, value, True))
            except (KeyError, ValueError):
                written.append((step, key, value, False))
        if discrete:
            lab.act_discrete(np.array([action.get(name, 0) for name in discrete], np.int32))
        if continuous:
            lab.act_continuous(np.array([action.get(name, 0.0) for name in continuous], np.float64))
        code, reward = lab.advance()
        played.append(dict(action))
        rewards.append(float(reward))
        status.append(code.name)
        events.append([(name, [value.decode() if isinstance(value, bytes) else np.array(value) for value in values])
                       for name, values in lab.events()])
        frames.append(_observe(lab, names))
        read_values.append(_read(lab, reads))
        if code.name != "RUNNING":
            break
    observations = {name: [frame[name] for frame in frames] for name in names}
    return {
        "observations": {name: values if isinstance(values[0], str) else np.stack(values)
                         for name, values in observations.items()},
        "rewards": np.array(rewards, np.float64),
        "ended": np.array([code != "RUNNING" for code in status], bool),
        "status": status,
        "properties": {key: [values[key] for values in read_values] for key in reads},
        "writes": written,
        "events": events,
        "actions": played,
    }


def jaxlab_trajectory(env, actions: Sequence[Mapping[str, Any]] = (), *, key=None, reads: Sequence[str] = (),
                      writes: Optional[Mapping[int, Mapping[str, str]]] = None) -> dict:
    """Play one episode of ``env`` (a compiled ``jaxlab.kernels.lab2d_raw.RawEnv``) as
    :func:`dmlab2d_trajectory` plays the script: the same ``reads`` after the start and after every step,
    the same ``writes`` before the steps, play stopping where the episode ends. Steps and writes are
    jitted, on one episode's state (``key``: its PRNG key, default ``PRNGKey(0)``).

    Returns :func:`dmlab2d_trajectory`'s dict without ``status`` and ``events``: ``observations`` (each as
    dmlab2d's dtype), ``rewards`` float64 [T], ``ended`` bool [T], ``properties``, ``writes``, ``actions``.
    """
    import jax
    import jax.numpy as jnp

    from jaxlab.kernels.lab2d_tensor.kinds import KINDS
    from jaxlab.types import StepType

    kinds = {o.name: KINDS[o.kind] for _, o in env.observed}
    step = jax.jit(env.step)
    write = jax.jit(env.write_property, static_argnums=(1, 2))
    state, ts = env.reset(jax.random.PRNGKey(0) if key is None else key)

    def observe(ts):
        return {name: np.asarray(value, kinds[name]) for name, value in ts.observation.items()}

    def read(state):
        values = {}
        for name in reads:
            try:
                values[name] = env.read_property(state, name)
            except (KeyError, ValueError):
                values[name] = None
        return values
    frames, read_values = [observe(ts)], [read(state)]
    rewards, ended, written, played = [], [], [], []
    specs = env.action_spec()
    for index, action in enumerate(actions):
        for name, value in (writes or {}).get(index, {}).items():
            state, code = write(state, name, value)   # dmlab2d keeps what the callback changed, whatever it answers
            written.append((index, name, value, int(code) == 0))
        state, ts = step(state, {name: jnp.asarray(action.get(name, 0), s.dtype) for name, s in specs.items()})
        played.append(dict(action))
        rewards.append(float(ts.reward))
        ended.append(bool(ts.step_type == StepType.LAST))
        frames.append(observe(ts))
        read_values.append(read(state))
        if ended[-1]:
            break
    return {
        "observations": {name: np.stack([frame[name] for frame in frames]) for name in frames[0]},
        "rewards": np.array(rewards, np.float64),
        "ended": np.array(ended, bool),
        "properties": {name: [values[name] for values in read_values] for name in reads},
        "writes": written,
        "actions": played,
    }


def batched_play(env, names: Sequence[str], chunk: int = 0):
    """``jax.jit(jax.vmap(play))`` (``chunk`` > 0: a ``lax.map`` over chunks of that many envs, each a
    ``vmap``) of a compiled level (``RawEnv``): ``play(episode, actions int32[T, A])``
    starts one episode as dmlab2d does (``start(episode, seed)``, the seed = the episode: a level's seed is
    its own business, dmlab2d hashes the one it is given) and steps it T times with the actions named
    ``names``. Returns (observations {name: [T + 1, ...]} after the start and each step, rewards float32[T],
    ended bool[T], the grids' error bits int32[])."""
    import jax
    import jax.numpy as jnp

    from jaxlab.types import StepType

    def play(episode, actions):
        state = env.start_state(jax.random.PRNGKey(episode), episode, episode)

        def one(s, a):
            s, ts = env.step(s, {n: a[i] for i, n in enumerate(names)})
            return s, (ts.observation, ts.reward, ts.step_type == StepType.LAST)
        last, (obs, rewards, ended) = jax.lax.scan(one, state, actions)
        obs = jax.tree_util.tree_map(lambda first, rest: jnp.concatenate([first[None], rest]), state.obs, obs)
        errors = sum((v.error for k, v in last.lua["vars"].items() if k.startswith("grid.")), jnp.int32(0))
        return obs, rewards, ended, errors
    if chunk:
        return jit_large(lambda *args: jax.lax.map(lambda one: play(*one), args, batch_size=chunk))
    return jit_large(jax.vmap(play))


#: XLA options for the grid engine's large programs. The suite turns XLA's CPU fusion emitters off (they
#: slow its many small programs, ``tests/conftest.py``); a compiled Lab2D level's program (tens of
#: thousands of instructions) compiles in half the time with them: 12 s instead of 24 s for dmlab2d's pushbox
LARGE_PROGRAM_OPTIONS = {"xla_cpu_use_fusion_emitters": True}


def jit_large(fn):
    """``jax.jit(fn)`` for a large program: compiled (once per argument shapes) with
    ``LARGE_PROGRAM_OPTIONS`` where the suite's XLA flags turned those emitters off, else as ``jax.jit``."""
    import os

    import jax

    jitted = jax.jit(fn)
    if "fusion_emitters=false" not in os.environ.get("XLA_FLAGS", ""):
        return jitted
    programs = {}

    def call(*args):
        key = str(jax.tree_util.tree_map(lambda a: (np.shape(a), str(a.dtype)), args))
        if key not in programs:
            programs[key] = jitted.lower(*args).compile(compiler_options=LARGE_PROGRAM_OPTIONS)
        return programs[key](*args)
    return call

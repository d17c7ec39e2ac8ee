"""jaxlab's side of the Lab2D raw-API differential tests: a script compiled into a ``RawEnv`` and played
under ``jax.jit(jax.vmap(...))``, and the check that it equals dmlab2d's run (``lab2d_reference``)."""
import functools
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from compile_lua.compiled import compile_in_process
from grid.lab2d_reference import dmlab2d_trajectory
from jaxlab.kernels.lab2d_raw import RawEnv
from jaxlab.registry.lab2d_lookup import find_lab2d_level
from jaxlab.types import StepType

RAW = Path(__file__).parent / "lab2d_raw"


@functools.lru_cache(maxsize=None)
def raw_env(level, settings=None, seed=0, folder=RAW):
    """The level (looked up in ``folder`` as dmlab2d does) compiled in this process (``jaxlab.make``
    compiles in a child; see the make tests)."""
    compiled = compile_in_process(find_lab2d_level(level, str(folder)).path, settings, seed=seed)
    assert compiled.kind == "lab2d_raw"
    return RawEnv(*compiled.raw.env_parts())


def rollout(env, actions, batch, steps):
    """Play ``actions`` ({name: int32[batch, steps]}) from reset under jit(vmap): observations
    {name: [batch, steps + 1, ...]}, rewards [batch, steps], step types [batch, steps]."""
    def one(key, acts):
        state, first = env.reset(key)

        def body(state, act):
            state, ts = env.step(state, act)
            return state, (ts.observation, ts.reward, ts.step_type)
        _, (obs, rewards, kinds) = jax.lax.scan(body, state, acts, length=steps)
        obs = {k: jnp.concatenate([first.observation[k][None], v]) for k, v in obs.items()}
        return obs, rewards, kinds

    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    return jax.jit(jax.vmap(one))(keys, actions)


def as_columns(runs, spec):
    """Action dicts of each run -> {name: [B, T] of the name's dtype in ``spec`` (env.action_spec())}."""
    return {name: jnp.asarray([[a.get(name, 0) for a in run] for run in runs], s.dtype) for name, s in spec.items()}


#: how far a float32 value may be from dmlab2d's float64 one: jaxlab computes Lua numbers and Double
#: tensors in float32 without ``jax_enable_x64`` (``jaxlab.kernels.lab2d_tensor.kinds``), so a sum of
#: fractions drifts by float32 rounding; integers and exactly representable values must be equal
FLOAT32_RTOL, FLOAT32_ATOL = 4e-7 * 16, 1e-7


def assert_equal_to_dmlab2d(env, level, settings, action_lists, folder=RAW):
    """Play ``action_lists`` (one list of action dicts per batch row) under jit(vmap) and through dmlab2d:
    equal rewards, observations and episode ends (floats to float32 rounding, see FLOAT32_RTOL); after
    the end, LAST with reward 0. Returns jaxlab's (observations, rewards, step types)."""
    obs, rewards, kinds = rollout(env, as_columns(action_lists, env.action_spec()), len(action_lists),
                                  len(action_lists[0]))
    for b, actions in enumerate(action_lists):
        ref = dmlab2d_trajectory(folder, level, settings, actions=actions)
        played = len(ref["rewards"])
        np.testing.assert_allclose(rewards[b, :played], ref["rewards"], rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL)
        ended = np.asarray(kinds[b, :played]) == StepType.LAST
        np.testing.assert_array_equal(ended, ref["ended"])
        for name, values in ref["observations"].items():
            mine = np.asarray(obs[name][b, :played + 1])
            assert mine.dtype == env.observation_spec()[name].dtype
            if np.issubdtype(mine.dtype, np.floating):
                np.testing.assert_allclose(mine, values, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL,
                                           err_msg=f"{level} {name} run {b}")
            else:
                np.testing.assert_array_equal(mine, values.astype(mine.dtype), err_msg=f"{level} {name} run {b}")
        # after the end: LAST with reward 0, the last observation kept
        assert (np.asarray(kinds[b, played:]) == StepType.LAST).all() and not np.asarray(rewards[b, played:]).any()
    return obs, rewards, kinds

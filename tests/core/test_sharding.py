"""jaxlab.sharded: one batch split over 8 devices gives the unsharded batch's trajectory bit for bit,
and PPO (``jaxlab.agents.make_train``) trains on it unchanged.

The 8 devices are forced CPU devices (``--xla_force_host_platform_device_count=8``),
which must be set before JAX starts its backend; pytest workers have started it
already, so the sharded checks run this file as a script in one fresh process
(``python test_sharding.py CHECK ...``), whose report each test reads. The argument errors are checked in process,
on whatever devices there are.
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec

import jaxlab
from jaxlab.wrappers import OptimisticAutoReset, ShardedEnv, VmapAutoReset

DEVICES = 8
BATCH, STEPS = 16, 20


def family_env(family: str):
    """The env to shard of one family, at tiny sizes."""
    if family == "first_person":
        return jaxlab.make("nav_maze_static_01", width=16, height=12, observations=("RGB_INTERLEAVED",))
    if family == "grid_autoreset":
        # Episodes of 7 frames: each device skips or runs the batch's resets on its own rows.
        return VmapAutoReset(jaxlab.make("jaxlab_running_with_scissors", episodeLengthFrames=7,
                                         observations=("1.RGB", "1.REWARD")))
    # Every episode ends after 5 commands, and only 3 restart from their own key: the reset
    # budget spans the whole batch, across devices.
    return OptimisticAutoReset(jaxlab.make("tw-coin_collector", level=1, max_steps=5,
                                           observations=("admissible", "score")), resets_per_step=3)


def unsharded(env):
    """(reset, step) of ``env`` over a batch, as without sharding: a batch env's own, else vmapped."""
    if isinstance(env, VmapAutoReset):
        return env.reset, env.step
    return jax.vmap(env.reset), jax.vmap(env.step)


def random_actions(spec, key: jax.Array, batch: int):
    """A batch ``[batch, ...]`` of uniform random actions within ``spec`` (an ArraySpec or a dict of them)."""
    if isinstance(spec, dict):
        keys = jax.random.split(key, len(spec))
        return {name: random_actions(s, k, batch) for (name, s), k in zip(sorted(spec.items()), keys)}
    return jax.random.randint(key, (batch, *spec.shape), spec.minimum, np.asarray(spec.maximum) + 1).astype(spec.dtype)


def rollout(batched_reset, batched_step, action_spec, keys, key):
    """Reset ``keys`` [B] and play ``STEPS`` steps of random actions in one ``lax.scan``:
    ((first states, first TimeSteps), final states, [STEPS, B] TimeSteps)."""
    def body(states, step_key):
        return batched_step(states, random_actions(action_spec, step_key, BATCH))

    first = batched_reset(keys)
    return (first, *jax.lax.scan(body, first[0], jax.random.split(key, STEPS)))


def assert_split(tree, senv: ShardedEnv, axis: int = 0) -> None:
    """Every leaf of ``tree`` is split along ``axis`` over all of ``senv``'s devices, B/n rows each
    (empty leaves, e.g. a grid's [B, players, 0] inventory, hold nothing to split and may be replicated)."""
    for leaf in jax.tree_util.tree_leaves(tree):
        if leaf.size == 0:
            continue
        shards = leaf.addressable_shards
        assert {s.device for s in shards} == set(senv.devices) and len(shards) == DEVICES
        assert all(s.data.shape[axis] == leaf.shape[axis] // DEVICES for s in shards), leaf.sharding
        assert leaf.sharding.spec[axis] == "batch", leaf.sharding


def check_family(family: str) -> None:
    """The sharded checks of one family (run in a process with 8 devices)."""
    assert len(jax.devices()) == DEVICES, jax.devices()
    env = family_env(family)
    unsharded_reset, unsharded_step = unsharded(env)
    senv = jaxlab.sharded(env)
    keys, key = jax.random.split(jax.random.PRNGKey(7), BATCH), jax.random.PRNGKey(3)
    with pytest.raises(ValueError, match="keys has batch size 12, not divisible by the 8 devices"):
        senv.reset(keys[:12])

    sharded = jax.jit(lambda keys, key: rollout(senv.reset, senv.step, senv.action_spec(), keys, key))(keys, key)
    first, final, time_steps = sharded
    assert_split((first, final), senv)
    assert_split(time_steps, senv, axis=1)
    reference = jax.jit(lambda keys, key: rollout(unsharded_reset, unsharded_step, env.action_spec(), keys, key))(
        keys, key)
    assert_trees_equal(sharded, reference)
    if isinstance(env, VmapAutoReset):  # episodes ended and restarted
        assert (np.asarray(time_steps.step_type) == int(jaxlab.StepType.FIRST)).any()
    if family == "text_optimistic_reset":
        # Outside jit (compiled once more, so checked on the quickest family to compile), with the
        # rollout's first actions committed to a single device: the rollout's first step again.
        eager_first = senv.reset(keys)
        assert_split(eager_first, senv)
        assert_trees_equal(eager_first, first)
        actions = random_actions(senv.action_spec(), jax.random.split(key, STEPS)[0], BATCH)
        states, ts = senv.step(eager_first[0], jax.device_put(actions, jax.devices()[1]))
        assert_split((states, ts), senv)
        assert_trees_equal(ts, jax.tree_util.tree_map(lambda x: x[0], time_steps))


def check_ppo() -> None:
    """PPO on ``jaxlab.sharded(env)`` (8 devices) plays the unsharded run's episodes and reaches its
    parameters (to float rounding: the gradient is summed across devices in another order)."""
    from jaxlab import agents

    assert len(jax.devices()) == DEVICES, jax.devices()
    env = jaxlab.make("tw-coin_collector", level=2, seed=0, num_games=1, max_steps=8,
                      observations=("feedback", "description", "admissible"))
    config = agents.PPOConfig(total_env_steps=BATCH * 8 * 3, num_envs=BATCH, rollout_length=8, hidden_size=32)
    key = jax.random.PRNGKey(0)
    train = agents.make_train(config, jaxlab.sharded(env))
    assert "shard_map" in str(jax.make_jaxpr(train)(key))  # the envs step per device
    params, metrics = train(key)
    reference_params, reference = agents.make_train(config, env)(key)
    for name in ("env_steps", "episodes", "episode_return"):
        np.testing.assert_array_equal(metrics[name], reference[name], err_msg=name)
    assert int(np.asarray(metrics["episodes"]).sum()) > 0
    for name in ("policy_loss", "value_loss", "entropy", "approx_kl"):
        np.testing.assert_allclose(metrics[name], reference[name], rtol=1e-4, atol=1e-7, err_msg=name)
    for leaf, reference_leaf in zip(jax.tree_util.tree_leaves(params), jax.tree_util.tree_leaves(reference_params)):
        assert leaf.sharding.is_fully_replicated
        np.testing.assert_allclose(leaf, reference_leaf, rtol=1e-4, atol=1e-6)
    small = dataclasses.replace(config, num_envs=12)
    with pytest.raises(ValueError, match="num_envs=12 has batch size 12, not divisible by the 8 devices"):
        agents.make_train(small, jaxlab.sharded(env))(key)


def assert_trees_equal(a, b) -> None:
    """``a`` and ``b`` have one structure and bitwise equal leaves."""
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    for (path, x), y in zip(jax.tree_util.tree_leaves_with_path(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=jax.tree_util.keystr(path))


CHECKS = ("first_person", "grid_autoreset", "text_optimistic_reset", "ppo")


@pytest.fixture(scope="module")
def on_8_devices() -> str:
    """The output of this file run as a script with 8 forced CPU devices, every check of ``CHECKS`` in
    turn in one process (each prints ``sharded <check>: ok`` or its failure)."""
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={DEVICES}".strip()
    env = dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS=flags)
    done = subprocess.run([sys.executable, __file__, *CHECKS], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("family", CHECKS[:3])
def test_sharded_rollout_equals_vmap_on_8_devices(family, on_8_devices):
    assert f"sharded {family}: ok" in on_8_devices, on_8_devices


def test_ppo_trains_unchanged_on_8_devices(on_8_devices):
    assert "sharded ppo: ok" in on_8_devices, on_8_devices


def test_ppo_refuses_a_sharded_batch_env(grid_env):
    from jaxlab import agents

    with pytest.raises(TypeError, match="shard the bare env"):
        agents.make_agent(jaxlab.sharded(VmapAutoReset(grid_env)))


@pytest.fixture(scope="module")
def grid_env():
    return jaxlab.make("jaxlab_running_with_scissors")


@pytest.mark.parametrize("devices, error, match", [
    (8, TypeError, "devices must be a sequence of jax.Device"),
    ("cpu", TypeError, "devices must be a sequence of jax.Device"),
    ([], ValueError, "devices is empty"),
    ([0, 1], TypeError, "devices must hold jax.Device objects"),
    (lambda: jax.devices()[:1] * 2, ValueError, "lists a device more than once"),
])
def test_bad_devices_raise(grid_env, devices, error, match):
    with pytest.raises(error, match=match):
        jaxlab.sharded(grid_env, devices() if callable(devices) else devices)


def test_not_an_env_raises():
    with pytest.raises(TypeError, match="sharded takes a jaxlab Env or a batch env"):
        jaxlab.sharded(jax.vmap(lambda x: x))


def test_attributes_and_batch_checks_on_one_device(grid_env):
    senv = jaxlab.sharded(grid_env, jax.devices()[:1])
    assert senv.num_devices == 1 and senv.mesh.axis_names == ("batch",)
    assert senv.sharding.spec == PartitionSpec("batch") and senv.replicated.spec == PartitionSpec()
    assert senv.replicate({"weights": np.ones((2, 3))})["weights"].sharding.is_fully_replicated
    assert senv.check_batch({"a": jnp.zeros((3, 2)), "b": jnp.zeros(3)}) == 3
    with pytest.raises(ValueError, match=r"disagree on the batch size: 3 at tree\['a'\], 4 at tree\['b'\]"):
        senv.check_batch({"a": jnp.zeros((3, 2)), "b": jnp.zeros(4)})
    with pytest.raises(ValueError, match=r"\(states, actions\)\[1\] is a scalar"):
        senv.step(jnp.zeros(3), jnp.int32(0))
    with pytest.raises(ValueError, match="has no arrays"):
        senv.shard({})


if __name__ == "__main__":
    import traceback

    for check in sys.argv[1:]:
        try:
            check_ppo() if check == "ppo" else check_family(check)
            print(f"sharded {check}: ok", flush=True)
        except Exception:   # noqa: BLE001 - reported to the test of this check
            print(f"sharded {check}: failed\n{traceback.format_exc()}", flush=True)

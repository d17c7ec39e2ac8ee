"""jaxlab.agents on a suite of first-person levels: the instruction reaches the pixel network, envs
without INSTR keep their parameters, and evaluation by level plays and groups each env's level."""
import functools

import jax
import jax.numpy as jnp
import numpy as np

import jaxlab
from jaxlab import agents
from jaxlab.agents.by_level import evaluate_levels, level_rows, mean_by_level
from jaxlab.levels.dmlab.instructions import INSTRUCTION_LENGTH, VOCABULARY, encode

LEVELS = ("rooms_select_nonmatching_object", "rooms_watermaze")


@functools.lru_cache(maxsize=None)
def tiny_suite(instruction: bool):
    observations = ("RGB_INTERLEAVED", "INSTR") if instruction else ("RGB_INTERLEAVED",)
    return jaxlab.suite(list(LEVELS), width=8, height=6, observations=observations, action_repeat=4)


def test_the_instruction_changes_the_logits():
    network = agents.PixelNetwork(9, 16, len(VOCABULARY))
    pixels = jax.random.randint(jax.random.PRNGKey(0), (1, 6, 8, 3), 0, 256).astype(jnp.uint8)
    red = {"pixels": pixels, "mask": jnp.ones((1, 9), bool),
           "instruction": jnp.asarray(encode("Pick the red object in the blue room"))[None]}
    blue = dict(red, instruction=jnp.asarray(encode("Pick the blue object in the red room"))[None])
    params = network.init(jax.random.PRNGKey(1), red)
    (logits_red, value_red), (logits_blue, value_blue) = network.apply(params, red), network.apply(params, blue)
    assert not np.allclose(logits_red, logits_blue) and not np.allclose(value_red, value_blue)


def test_the_task_passes_the_instruction_only_when_the_env_has_it():
    shapes = {}
    for instruction in (False, True):
        agent = agents.make_agent(tiny_suite(instruction), hidden_size=16)
        inputs = jax.eval_shape(lambda key: agent.task.inputs(*agent.task.env.reset(key)), jax.random.PRNGKey(0))
        assert ("instruction" in inputs) == instruction
        if instruction:
            assert inputs["instruction"].shape == (1, INSTRUCTION_LENGTH)
            assert inputs["instruction"].dtype == jnp.int32
        params = jax.eval_shape(agent.init, jax.random.PRNGKey(0))
        shapes[instruction] = {jax.tree_util.keystr(path): leaf.shape
                               for path, leaf in jax.tree_util.tree_leaves_with_path(params)}
    without = shapes[False]
    # the frame's layers keep their shapes; the trunk's dense layer (Dense_0 without, Dense_1 with) takes
    # the instruction's features beside the frame's
    embeddings = {k: v for k, v in shapes[True].items() if "Embed_0" in k}
    assert list(embeddings.values()) == [(len(VOCABULARY), 16)]
    assert without["['params']['Dense_0']['kernel']"] == (32, 16)
    assert shapes[True]["['params']['Dense_1']['kernel']"] == (32 + 16, 16)
    assert {k: v for k, v in shapes[True].items() if "Conv" in k or "PolicyAndValue" in k} == \
        {k: v for k, v in without.items() if "Conv" in k or "PolicyAndValue" in k}


def test_mean_by_level_groups_each_env_under_its_level():
    means, counts = mean_by_level(np.array([1.0, 3.0, 10.0, 5.0]), np.array([0, 0, 2, 0]), 3)
    np.testing.assert_allclose(means[[0, 2]], [3.0, 10.0])
    assert np.isnan(means[1]) and counts.tolist() == [3, 0, 1]
    per_player, _ = mean_by_level(np.array([[1.0, 3.0], [5.0, 7.0]]), np.array([1, 1]), 2)
    np.testing.assert_allclose(per_player[1], 4.0)
    np.testing.assert_array_equal(level_rows(3, 2), [0, 0, 1, 1, 2, 2])


def test_evaluation_plays_each_env_on_its_level_with_either_policy():
    env = tiny_suite(True)
    agent = agents.make_agent(env, hidden_size=16)
    params = agent.init(jax.random.PRNGKey(0))
    rows = jnp.asarray(level_rows(len(env.levels), 3))[::-1]
    evaluate = jax.jit(functools.partial(evaluate_levels, agent, steps=3))
    for random in (False, True):
        out = evaluate(params, jax.random.PRNGKey(1), rows, random=jnp.bool_(random))
        assert out["return"].shape == (6, 1) and not out["ended"].any()   # 3 steps end no episode
        np.testing.assert_array_equal(out["level"], rows)
        # 12 s and 120 s of game time at 60 frames/s, 4 frames a step
        np.testing.assert_array_equal(out["episode_steps"], np.where(rows == 0, 180, 1800))

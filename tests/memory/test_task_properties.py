"""Every memory task, through its env: the stimuli its levels show stay in the split's set (10,000
episodes per task), and its privileged oracle reaches the documented success while a random policy
scores clearly below it."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.levels.dmlab import memory
from jaxlab.levels.dmlab.memory.splits import SPLIT_TRAIN_TASKS
from jaxlab.levels.dmlab.memory.tasks import SUCCESS_SECONDS

EPISODES_PER_SPLIT = 5_000          # train + holdout: 10,000 episodes per task
POLICY_BATCH = 8
POLICY_REPEAT = 4


def train_level(task: str) -> str:
    return task + ("_train_small" if task in SPLIT_TRAIN_TASKS else "_train")


@pytest.mark.parametrize("task", memory.TASK_NAMES)
def test_each_split_shows_only_its_own_stimuli_over_10000_episodes(task, quick_compile):
    spec = memory.task(task)
    shown = {}
    for level, stimulus_set in ((train_level(task), "train"), (task + "_holdout_interpolate", "holdout")):
        env = jaxlab.make("memory/" + level, observations=("Score",))
        keys = jax.random.split(jax.random.PRNGKey(1), EPISODES_PER_SPLIT)
        ids = quick_compile(jax.vmap(lambda k: env.episode_stimuli(env.init_state(k))), keys)(keys)
        ids = np.unique(np.asarray(ids))
        shown[stimulus_set] = set(ids[ids >= 0].tolist())
        allowed = set(spec.stimuli.ids(stimulus_set))
        assert shown[stimulus_set], f"{level}: no stimulus read back"
        assert shown[stimulus_set] <= allowed, f"{level}: shows {sorted(shown[stimulus_set] - allowed)}"
    assert not shown["train"] & shown["holdout"]


def _returns(env, key, quick_compile):
    """Episode returns of the oracle (first half of the batch) and of uniform random actions (second
    half), one compiled call; checks Score against the summed rewards on the way."""
    steps = env.episode_frames // POLICY_REPEAT
    is_oracle = jnp.arange(POLICY_BATCH) < POLICY_BATCH // 2

    def episode(k, oracle):
        state, _ = env.reset(k)

        def body(state, k_act):
            random = jax.random.uniform(k_act, (4,), minval=-1.0, maxval=1.0)
            state, ts = env.step(state, jnp.where(oracle, env.oracle_action(state), random))
            return state, ts.reward

        state, rewards = jax.lax.scan(body, state, jax.random.split(k, steps))
        return rewards.sum(), state.episode_return

    keys = jax.random.split(key, POLICY_BATCH)
    total, score = quick_compile(jax.vmap(episode), keys, is_oracle)(keys, is_oracle)
    np.testing.assert_allclose(np.asarray(score), np.asarray(total), rtol=1e-5, atol=1e-4)   # Score = sum
    total = np.asarray(total)
    return total[: POLICY_BATCH // 2].mean(), total[POLICY_BATCH // 2:].mean()


@pytest.mark.parametrize("task", memory.TASK_NAMES)
def test_the_oracle_reaches_the_documented_success_and_random_scores_clearly_below(task, quick_compile):
    env = jaxlab.make("memory/" + train_level(task), observations=("Score",), action_repeat=POLICY_REPEAT,
                      episode_length_seconds=SUCCESS_SECONDS)
    success = memory.task(task).success
    oracle, random = _returns(env, jax.random.PRNGKey(5), quick_compile)
    assert oracle >= success, f"oracle {oracle} < documented {success}"
    assert random < 0.5 * success, f"random {random} vs documented success {success}"

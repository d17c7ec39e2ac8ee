"""OptimisticAutoReset: equal to VmapAutoReset while few episodes end at once; a bounded number of
new episodes per step when many do."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.wrappers import OptimisticAutoReset, VmapAutoReset

STEPS_PER_EPISODE = 15     # 1 s at 60 fps, 4 frames a step


@pytest.fixture(scope="module")
def env():
    return jaxlab.make("nav_maze_random_goal_01", width=8, height=6, observations=("DEBUG.POS.TRANS",),
                       episode_length_seconds=1, action_repeat=4)


def _run(wrapper, states, steps):
    actions = jnp.zeros((states.done.shape[0], 7), jnp.int32).at[:, 3].set(1)

    def body(states, _):
        states, ts = wrapper.step(states, actions)
        return states, (ts.step_type, ts.reward, ts.observation["DEBUG.POS.TRANS"], states.goal_choice)

    return jax.jit(lambda s: jax.lax.scan(body, s, None, length=steps))(states)


def test_equals_vmap_auto_reset_when_episodes_end_one_at_a_time(env):
    states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 3))
    states = states.replace(frames=jnp.array([0, 20, 40], jnp.int32))     # ends 5 steps apart
    a = _run(VmapAutoReset(env), states, 2 * STEPS_PER_EPISODE + 5)
    b = _run(OptimisticAutoReset(env, resets_per_step=1), states, 2 * STEPS_PER_EPISODE + 5)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert (np.asarray(a[1][0]) == 0).sum() >= 3                            # several FIRST steps happened


def test_many_endings_share_the_few_new_episodes(env):
    states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(1), 4))
    exact = VmapAutoReset(env)
    optimistic = OptimisticAutoReset(env, resets_per_step=2)
    (_, (_, _, pos_exact, _)), (s_opt, (types, _, pos, goal)) = (_run(exact, states, STEPS_PER_EPISODE + 1),
                                                                       _run(optimistic, states, STEPS_PER_EPISODE + 1))
    assert np.all(np.asarray(types[-1]) == 0)                                # all four start again
    start, start_exact = np.asarray(pos[-1]), np.asarray(pos_exact[-1])
    np.testing.assert_array_equal(start[:2], start_exact[:2])               # the first two: their own episodes
    np.testing.assert_array_equal(start[2:], start[:2])                     # the rest: copies of those
    np.testing.assert_array_equal(np.asarray(goal[-1])[2:], np.asarray(goal[-1])[:2])
    assert (start_exact[2:] != start_exact[:2]).any()                        # (exact resets would differ)
    keys = np.asarray(jax.random.key_data(s_opt.key) if jnp.issubdtype(s_opt.key.dtype, jax.dtypes.prng_key)
                      else s_opt.key).reshape(4, -1)
    assert len({k.tobytes() for k in keys}) == 4                             # each plays on with its own key
    with pytest.raises(ValueError, match="resets_per_step"):
        OptimisticAutoReset(env, resets_per_step=0)

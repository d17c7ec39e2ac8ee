"""JUMP and CROUCH as DMLab combines them (upmove = jump - crouch): each alone jumps or crouches, both
together do neither."""
import jax
import jax.numpy as jnp

import jaxlab
from jaxlab.levels.dmlab.actions import CROUCH, JUMP


def test_jump_minus_crouch():
    env = jaxlab.make("nav_maze_static_01", observations=(), width=4, height=3)
    state, _ = env.reset(jax.random.PRNGKey(0))

    def after(jump, crouch, frames=4):
        action = jnp.zeros(7, jnp.int32).at[JUMP].set(jump).at[CROUCH].set(crouch)
        s = state
        for _ in range(frames):
            s, _ = step(s, action)
        return float(s.z), bool(s.crouch)

    step = jax.jit(env.step)
    z, crouched = after(1, 0)
    assert z > 0 and not crouched
    assert after(0, 1) == (0.0, True)
    assert after(1, 1) == (0.0, False)

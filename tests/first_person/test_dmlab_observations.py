"""DMLab's observations beyond RGB: BGR_INTERLEAVED, BGRD_INTERLEAVED (the colour channels reversed) and
FRAMES_REMAINING_AT_60 (frames at 60 per second before the time limit), from the same frames and clock."""
import jax
import jax.numpy as jnp
import numpy as np
import jaxlab

NAMES = ("RGBD_INTERLEAVED", "BGR_INTERLEAVED", "BGRD_INTERLEAVED", "FRAMES_REMAINING_AT_60")


def test_bgr_frames_and_the_frames_left():
    fps, action_repeat = 30, 4      # 8 frames at 60 per second go by per step
    env = jaxlab.make("nav_maze_static_01", observations=NAMES, width=16, height=12, fps=fps,
                      action_repeat=action_repeat, episode_length_seconds=2.0)
    spec = env.observation_spec()
    assert spec["BGRD_INTERLEAVED"].shape == (12, 16, 4) and spec["FRAMES_REMAINING_AT_60"].shape == (1,)
    state, ts = env.reset(jax.random.PRNGKey(3))
    step = jax.jit(env.step)
    left = [float(ts.observation["FRAMES_REMAINING_AT_60"][0])]
    for i in range(3):
        state, ts = step(state, jnp.asarray([0, 0, 0, 1, 0, 0, 0], jnp.int32))   # walk forward: frames change
        o = {k: np.asarray(v) for k, v in ts.observation.items()}
        assert (o["BGR_INTERLEAVED"] == o["RGBD_INTERLEAVED"][..., 2::-1]).all()
        assert (o["BGRD_INTERLEAVED"][..., :3] == o["BGR_INTERLEAVED"]).all()
        assert (o["BGRD_INTERLEAVED"][..., 3] == o["RGBD_INTERLEAVED"][..., 3]).all()
        left.append(float(o["FRAMES_REMAINING_AT_60"][0]))
    per_step = action_repeat * 60 / fps
    assert left == [120.0 - per_step * i for i in range(4)]

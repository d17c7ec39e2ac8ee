"""DMLab's observations beyond RGB: BGR_INTERLEAVED, BGRD_INTERLEAVED (the colour channels reversed),
FRAMES_REMAINING_AT_60 (frames at 60 per second before the time limit), from the same frames and clock, and
the debug cameras (the map from above, the player's view with and without the reticle)."""
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
    state, ts = jax.jit(env.reset)(jax.random.PRNGKey(3))
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


CAMERAS = ("DEBUG.CAMERA.TOP_DOWN", "DEBUG.CAMERA_INTERLEAVED.TOP_DOWN", "DEBUG.CAMERA.PLAYER_VIEW",
           "DEBUG.CAMERA_INTERLEAVED.PLAYER_VIEW_NO_RETICLE", "RGB_INTERLEAVED")


def test_debug_cameras_show_the_map_from_above_and_the_players_view(tmp_path):
    from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES, PICKUP_INDEX
    from jaxlab.render.first_person.topdown import FLOOR, WALL
    from jaxlab.render.first_person.topdown_camera import PLAYER_RGB
    path = tmp_path / "room.txt"
    path.write_text("*******\n*P   A*\n* *** *\n*     *\n*******\n")
    env = jaxlab.make(str(path), observations=CAMERAS, width=70, height=50)   # 10 pixels per cell
    spec = env.observation_spec()
    assert spec["DEBUG.CAMERA.TOP_DOWN"].shape == (3, 50, 70) and spec["DEBUG.CAMERA.PLAYER_VIEW"].shape == (3, 50, 70)
    assert spec["DEBUG.CAMERA_INTERLEAVED.TOP_DOWN"].shape == (50, 70, 3)
    _, ts = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), 2))
    o = {k: np.asarray(v) for k, v in ts.observation.items()}
    above = o["DEBUG.CAMERA_INTERLEAVED.TOP_DOWN"]
    assert (np.moveaxis(o["DEBUG.CAMERA.TOP_DOWN"], 1, -1) == above).all()

    def cell(r, c):
        return above[:, r * 10 + 2, c * 10 + 2]   # off the cell's centre, where the player and pickups sit
    assert (cell(0, 0) == WALL.astype(np.uint8)).all() and (cell(2, 2) == WALL.astype(np.uint8)).all()
    assert (cell(3, 3) == FLOOR).all()
    assert (above[:, 15, 55] == PICKUP_TYPES[PICKUP_INDEX["apple_reward"]].color).all()   # the apple's centre
    assert (above[:, 15, 15] == PLAYER_RGB).all()                                          # the player's

    view = np.moveaxis(o["DEBUG.CAMERA.PLAYER_VIEW"], 1, -1)
    plain = o["DEBUG.CAMERA_INTERLEAVED.PLAYER_VIEW_NO_RETICLE"]
    assert (plain == o["RGB_INTERLEAVED"]).all()
    changed = (view != plain).any(-1)
    assert (view[:, 23:26, 33:36] == 200).all() and not changed[:, np.r_[0:23, 26:50]].any()
    assert not changed[:, :, np.r_[0:33, 36:70]].any()

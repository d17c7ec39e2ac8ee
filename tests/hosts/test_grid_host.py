"""The host Lab2d (dmlab2d.Environment's interface) and the properties API,
compared with the dmlab2d package where it has the same level."""
import dm_env
import numpy as np
import pytest

import jaxlab
from jaxlab.errors import UnknownNameError
from jaxlab.grid import Lab2d
from jaxlab.levels.lab2d.properties import PropertyAttribute


@pytest.fixture(scope="module")
def pushbox_host():
    return Lab2d("pushbox", ["WORLD.RGB", "WORLD.TEXT", "1.POSITION"], seed=3)


@pytest.fixture(scope="module")
def dmlab2d_pushbox():
    import dmlab2d
    import dmlab2d.runfiles_helper  # noqa: F401
    return dmlab2d.Lab2d(dmlab2d.runfiles_helper.find(), {"levelName": "pushbox"})


def test_reset_and_step_like_dmlab2d(pushbox_host):
    env = pushbox_host
    ts = env.reset()
    assert ts.step_type == dm_env.StepType.FIRST and ts.reward is None
    assert list(ts.observation) == ["WORLD.RGB", "WORLD.TEXT", "1.POSITION"]
    assert ts.observation["WORLD.RGB"].shape == (80, 80, 3) and ts.observation["WORLD.RGB"].dtype == np.uint8
    rows = ts.observation["WORLD.TEXT"].splitlines()
    assert len(rows) == 10 and all(len(r) == 10 for r in rows)
    x, y = ts.observation["1.POSITION"]
    assert rows[y][x] == "P"                                  # POSITION is (x, y) = (column, row)
    ts = env.step({"MOVE": 0})
    assert ts.step_type == dm_env.StepType.MID and ts.reward == pytest.approx(-0.1)
    assert env.action_spec()["MOVE"].maximum == 4
    assert env.observation_spec()["WORLD.TEXT"].dtype == np.dtype(object)


def test_bad_host_actions_are_refused(pushbox_host):
    env = pushbox_host
    env.reset()
    with pytest.raises(ValueError, match=r"Lab2d.step: action 'MOVE': expected an integer in \[0, 4\], got 5"):
        env.step({"MOVE": 5})
    with pytest.raises(UnknownNameError, match="Did you mean 'MOVE'"):
        env.step({"move": 1})
    with pytest.raises(UnknownNameError, match="WORLD.RGB"):
        Lab2d("pushbox", ["WORLD.RBG"])


def test_same_settings_as_dmlab2d(pushbox_host, dmlab2d_pushbox):
    ours = dict(pushbox_host.list_property("settings"))
    theirs = {key: PropertyAttribute(int(attr)) for key, attr in dmlab2d_pushbox.list_property("settings")}
    assert ours == theirs
    for key, attr in ours.items():
        if attr == PropertyAttribute.READABLE_WRITABLE:
            assert float(pushbox_host.read_property(key)) == pytest.approx(float(dmlab2d_pushbox.read_property(key))) \
                if key != "settings.topology" else pushbox_host.read_property(key) == dmlab2d_pushbox.read_property(key)


def test_written_settings_apply_at_the_next_reset():
    env = Lab2d("pushbox", ["WORLD.RGB", "WORLD.TEXT"], seed=0)
    env.reset()
    env.write_property("settings.gridShape.width", "12")
    env.writeProperty("settings.episodeLengthFrames", "3")
    assert env.readProperty("settings.gridShape.width") == "12"
    assert env.step({"MOVE": 0}).observation["WORLD.RGB"].shape == (80, 80, 3)   # this episode is unchanged
    ts = env.reset()
    assert ts.observation["WORLD.RGB"].shape == (80, 96, 3)
    assert len(ts.observation["WORLD.TEXT"].splitlines()[0]) == 12
    steps = [env.step({"MOVE": 0}) for _ in range(3)]
    assert [s.last() for s in steps] == [False, False, True]


def test_bad_properties_are_refused_and_change_nothing():
    env = Lab2d("pushbox", ["WORLD.TEXT"])
    with pytest.raises(UnknownNameError, match="settings.numBoxes"):
        env.read_property("settings.numBox")
    with pytest.raises(ValueError, match="numBoxes"):
        env.write_property("settings.numBoxes", "many")
    with pytest.raises(ValueError):
        env.write_property("settings.gridShape.width", "2")      # too small for a room: the level refuses
    assert env.read_property("settings.gridShape.width") == "10"
    assert env.read_property("settings.numBoxes") == "4"


def test_every_level_runs_batched_with_player_views():
    import jax

    env = jaxlab.make("pushbox", layouts=8)
    assert "1.RGB" in env.observation_spec()
    states, ts = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), 2))
    step = jax.jit(jax.vmap(env.step))
    for move in (1, 2, 3):
        states, ts = step(states, {"MOVE": np.full(2, move, np.int32)})
    assert ts.observation["1.RGB"].shape == (2, 88, 88, 3)
    assert ts.observation["WORLD.RGB"].shape == (2, 80, 80, 3)

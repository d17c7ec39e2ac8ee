"""DMLab's ``api:lookat`` compiled onto the device (``compile_lua.dmlab.lookat``): a ``.map``'s
``trigger_lookat`` volume, the gaze resting on it, and the callback's calls checked against lupa running the
same script (helpers from ``test_dmlab_map_files``)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from compile_lua import CompileWarning
from compile_lua.compiled import compile_in_process
from compile_lua.loading import load_script
from compile_lua.dmlab.lookat import gaze
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab.quake_map import UnconvertibleMap
from test_dmlab_map_files import box, checkout, convert, entity, room

#: a 20 x 40 x 60 zone 250 units east of the spawn (50, 50), its middle at the eye's height (50 over the floor)
ZONE = entity("trigger_lookat", None, [box((300, 30, 20), (320, 70, 80), "common/caulk")], id="7")

GAZE_SCRIPT = """
    local tensor = require 'dmlab.system.tensor'
    local api = {}
    local looks, away, seen = 0, 0, -1
    local where = tensor.DoubleTensor(3)
    function api:nextMap() return 'gaze' end
    function api:updateSpawnVars(v)
      if v.classname == 'info_player_start' then v.angle = '0' v.randomAngleRange = '0' end
      return v
    end
    function api:lookat(id, lookedAt, position, playerId)
      if lookedAt then
        looks = looks + 1
        seen = id
        for i = 1, 3 do where(i):val(position[i]) end
      else
        away = away + 1
      end
    end
    function api:customObservationSpec()
      return {{name = 'LOOKS', type = 'Doubles', shape = {3}}, {name = 'WHERE', type = 'Doubles', shape = {3}}}
    end
    function api:customObservation(name)
      if name == 'WHERE' then return where end
      return tensor.DoubleTensor{looks, away, seen}
    end
    return api
"""


def test_a_lookat_volume_is_a_zone_in_the_level():
    """The zone keeps its id; its box moves with the level (x, y); its heights are over the floor, as the eye's
    (the room's floor is at z 0, so z 20..80 stays)."""
    converted = convert(room(extra=[ZONE]))
    (zone,) = converted.lookat_zones
    assert zone.id == 7 and zone.lo == (300.0, 30.0, 20.0) and zone.hi == (320.0, 70.0, 80.0)
    x0, y0, z0, x1, y1, z1 = converted.level_zone(zone)
    assert (x0, y0) == converted.level_xy(300, 30) and (x1, y1) == converted.level_xy(320, 70)
    assert (z0, z1) == (20.0, 80.0)


@pytest.mark.parametrize("zone, expected", [
    (entity("trigger_lookat", None, [box((300, 30, 20), (320, 70, 80))], id="x"), r"id 'x', not a whole number"),
    (entity("trigger_lookat", "0 0 0"), r"trigger_lookat at line \d+ has no brush or patch"),
])
def test_a_zone_without_a_box_or_a_number_for_id_is_refused(zone, expected):
    with pytest.raises(UnconvertibleMap, match=expected):
        convert(room(extra=[zone]))


def test_the_gaze_meets_the_nearest_zone_before_a_wall():
    """Two zones on the ray (the nearer one wins, hit at its face), one behind a wall cell, one off the ray."""
    boxes = jnp.asarray([[300, 30, 0, 320, 70, 60], [200, 40, 10, 210, 60, 40], [100, 200, 0, 120, 220, 60],
                         [600, 40, 0, 620, 60, 60]], jnp.float32)
    solid = jnp.zeros((3, 8), bool).at[:, 5].set(True)   # a wall from x = 500 to 600
    eye, ahead = jnp.asarray([50.0, 50.0, 25.0]), jnp.asarray([0.0, 0.0, 0.0])
    index, position = gaze(boxes, jnp.ones(4, bool), eye, ahead, (solid, jnp.int32(3)))
    assert int(index) == 1 and np.allclose(position, [0.0, 0.5, 0.5])
    index, _ = gaze(boxes[3:], jnp.ones(1, bool), eye, ahead, (solid, jnp.int32(3)))
    assert int(index) == -1   # only the wall is there
    index, _ = gaze(boxes, jnp.asarray([True, False, True, True]), eye, jnp.asarray([0.0, 45.0, 0.0]),
                    (solid, jnp.int32(3)))
    assert int(index) == -1   # 45 degrees to the left: nothing


def test_a_positive_pitch_looks_down_onto_a_low_zone():
    """DMLab's pitch is positive looking down (playerInfo().angles): a box on the floor 200 units ahead is missed
    looking level or up, met looking down at it (where the ray enters its box, worked out here)."""
    low = jnp.asarray([[240, 30, 0, 280, 70, 10]], jnp.float32)
    walls, eye = (jnp.zeros((3, 8), bool), jnp.int32(3)), jnp.asarray([50.0, 50.0, 26.0])
    down = float(np.degrees(np.arctan2(26.0 - 10.0, 250.0 - 64.0)))   # from the muzzle, 14 units ahead
    hits = [int(gaze(low, jnp.ones(1, bool), eye, jnp.asarray([p, 0.0, 0.0]), walls)[0]) for p in (0.0, -down, down)]
    assert hits == [-1, -1, 0]
    _, position = gaze(low, jnp.ones(1, bool), eye, jnp.asarray([down, 0.0, 0.0]), walls)
    r = np.radians(down)
    start_x, start_z = 50.0 + 14.0 * np.cos(r), 26.0 - 14.0 * np.sin(r)   # the muzzle, 14 units along the view
    top_x = start_x + (start_z - 10.0) / np.tan(r)                         # where the ray comes down to z 10
    front_z = start_z - (240.0 - start_x) * np.tan(r)                      # its height at the front face x 240
    want = [(top_x - 240.0) / 40.0, 0.5, 1.0] if top_x >= 240.0 else [0.0, 0.5, front_z / 10.0]
    assert np.allclose(position, want, atol=1e-3)


def _lupa_observations(path, calls):
    """Per frame, lupa's LOOKS and WHERE after the frame's lookat ``calls`` ([(id, lookedAt, position)])."""
    loaded = load_script(path)
    sandbox, api = loaded.sandbox, loaded.returned
    out = []
    for frame in calls:
        for ident, looked, position in frame:
            sandbox.call_method(api, "lookat", ident, looked, sandbox.table(list(position)), 1)
        out.append([np.asarray(sandbox.to_python(sandbox.call_method(api, "customObservation", name)), np.float64)
                    for name in ("LOOKS", "WHERE")])
    return out


def test_lookat_is_called_as_the_gaze_rests_and_leaves_as_lupa_runs_it(tmp_path):
    """Facing the zone for three frames: lookat(7, true, {0, 0.5, 0.5}) each frame (the ray leaves DMLab's eye
    50 units over the floor, at the zone's middle height); turning away: one lookat(7, false, {0, 0, 0});
    then nothing. Each frame's observations equal lupa's after the same calls."""
    path, game_scripts = checkout(tmp_path, maps={"gaze": room(extra=[ZONE])}, script=GAZE_SCRIPT)
    with pytest.warns(CompileWarning):
        compiled = compile_in_process(path, levels_dir=game_scripts)
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=("LOOKS", "WHERE"),
                         width=4, height=3)
    assert env.script.has_lookat
    turn = jnp.zeros(7, jnp.int32).at[0].set(-512)   # a quarter turn left in a frame or two
    actions = jnp.stack([jnp.zeros(7, jnp.int32)] * 3 + [turn] * 3)

    @jax.jit
    def run(key):
        def frame(state, action):
            state, ts = env.step(state, action)
            return state, (ts.observation["LOOKS"], ts.observation["WHERE"], state.yaw)
        return jax.lax.scan(frame, env.reset(key)[0], actions)[1]

    looks, where, yaw = jax.device_get(run(jax.random.PRNGKey(0)))
    assert abs(yaw[2]) < 1e-6 and yaw[3] > 45.0   # facing the zone, then turned away from it
    hit = (7, True, (0.0, 0.5, 0.5))
    want = _lupa_observations(path, [[hit]] * 3 + [[(7, False, (0.0, 0.0, 0.0))], [], []])
    for t, (lupa_looks, lupa_where) in enumerate(want):
        np.testing.assert_allclose(looks[t], lupa_looks, atol=1e-5, err_msg=f"frame {t}")
        np.testing.assert_allclose(where[t], lupa_where, atol=1e-5, err_msg=f"frame {t}")
    assert looks[-1].tolist() == [3.0, 1.0, 7.0]

"""What compiled DMLab callbacks read of the game as it plays (compile_lua.device.engine_reads): playerInfo's
fields, inFov and raycast against the level's walls, checked against the kernel's known state; events raised
during play are skipped with a warning; a decorator's time limit around a callback reading the player holds."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from compile_lua.device.engine_reads import in_fov, raycast
from compile_lua.errors import CompileWarning
from jaxlab.levels.dmlab.units import EYE_HEIGHT, LOOK_DEGREES_PER_PIXEL

SCRIPT = """
local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'
local tensor = require 'dmlab.system.tensor'
local events = require 'dmlab.system.events'
local limit = require 'limit'
local api = {}
local TARGET = {550, 150, 0}
function api:nextMap() return make_map.makeMap{mapName = 'reads', mapEntityLayer = '*******\\n*P * A*\\n*******'} end
function api:customObservationSpec() return {{name = 'SEEN', type = 'doubles', shape = {6}}} end
function api:customObservation(name)
  local p = game:playerInfo()
  return tensor.DoubleTensor{game:raycast(p.pos, TARGET), game:inFov(p.eyePos, TARGET, p.angles, 90) and 1 or 0,
                             p.height, p.eyePos[3], p.teleported and 1 or 0, p.anglesVel[2]}
end
function api:hasEpisodeFinished(seconds)
  if game:playerInfo().teleported then events:add('TELEPORTED') end
  return false
end
limit.decorate(api, 2)
return api
"""
#: a decorator in another file keeping the callback it wraps in a local of its name (as DMLab's timeout does)
LIMIT = """
local limit = {}
function limit.decorate(api, seconds)
  local hasEpisodeFinished = api.hasEpisodeFinished
  function api:hasEpisodeFinished(t) return hasEpisodeFinished(api, t) or t >= seconds end
end
return limit
"""


def test_in_fov_turns_the_direction_into_the_view_frame():
    f = jnp.float32
    origin = jnp.zeros(3, f)

    def seen(end, angles, fov):
        return bool(in_fov(origin, jnp.asarray(end, f), jnp.asarray(angles, f), fov))
    assert seen([100, 0, 0], [0, 0, 0], 90) and not seen([0, 100, 0], [0, 0, 0], 90)
    assert seen([100, 90, 0], [0, 0, 0], 90) and not seen([100, 110, 0], [0, 0, 0], 90)
    assert seen([0, 100, 0], [0, 90, 0], 90) and not seen([100, 0, 0], [0, 180, 0], 120)
    assert seen([100, 0, -100], [45, 0, 0], 60) and not seen([100, 0, -100], [0, 0, 0], 60)   # pitch looks down


def test_raycast_is_the_clear_fraction_of_the_segment_in_the_ground_plane():
    solid = jnp.asarray([[1, 1, 1, 1, 1], [1, 0, 1, 0, 1], [1, 1, 1, 1, 1]], bool)   # rows: y flipped
    rows = jnp.int32(3)
    f = jnp.float32
    assert float(raycast(solid, rows, jnp.asarray([150, 150, 20], f), jnp.asarray([350, 150, 0], f))) == 0.25
    assert float(raycast(solid, rows, jnp.asarray([150, 150, 20], f), jnp.asarray([160, 120, 90], f))) == 1.0
    assert float(raycast(solid, rows, jnp.asarray([150, 150, 0], f), jnp.asarray([150, 150, 0], f))) == 1.0


def test_a_compiled_observation_reads_the_player_and_the_walls(tmp_path):
    (tmp_path / "limit.lua").write_text(LIMIT)
    path = tmp_path / "level.lua"
    path.write_text(SCRIPT)
    with pytest.warns(CompileWarning, match=r"level.lua:17: events:add raises an event during play"):
        env = jaxlab.make(str(path), observations=("SEEN",), width=4, height=3, action_repeat=1)
    assert env.script.has_episode_finished and env.script.observes == ("SEEN",)
    step = jax.jit(env.step)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    start = jnp.asarray([150.0, 150.0], jnp.float32)
    look = np.zeros(7, np.int32)
    look[0] = 20   # LOOK_LEFT_RIGHT: turns right (yaw falls)
    for yaw, seen in ((0.0, 1.0), (180.0, 0.0)):
        state, ts = step(state.replace(pos=start, yaw=jnp.float32(yaw)), jnp.asarray(look))
        got = np.asarray(ts.observation["SEEN"])
        # the wall at x 300..400 stops the ray 150 of the 400 units to the target
        assert got[0] == pytest.approx(0.375) and got[1] == seen
        assert got[2] == EYE_HEIGHT and got[3] == EYE_HEIGHT and got[4] == 0.0
        assert got[5] == pytest.approx(-20 * LOOK_DEGREES_PER_PIXEL * 60)   # anglesVel: yaw degrees/s
    frames = 0
    while not bool(ts.last()) and frames < 200:
        state, ts = step(state, jnp.zeros(7, jnp.int32))
        frames += 1
    assert frames == 2 * 60 - 2   # the decorator's 2 s limit, asked with the player standing at the spawn

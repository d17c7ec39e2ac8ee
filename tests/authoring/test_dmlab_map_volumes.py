""".map sources' hurt zones and jump pads (``jaxlab.levels.dmlab.quake_volumes``), as DeepMind Lab's lt_chasm and
lt_space_bounce maps hold them, on a small map written here (helpers from ``test_dmlab_map_files``)."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from compile_lua import CompileWarning, LuaScriptError
from compile_lua.compiled import compile_in_process
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab import actions as A
from jaxlab.levels.dmlab.quake_map import UnconvertibleMap
from jaxlab.levels.dmlab.units import GRAVITY
from test_dmlab_map_files import box, checkout, convert, entity, heights_of, room

SCRIPT = "return {nextMap = function() return 'chasm' end}\n"
PAD_CENTRE = (65.0, 225.0, 24.0)       # the pad's volume: x 40..90, y 200..250, z 8..40
APEX = (250.0, 225.0, 100.0)           # its target_position


def chasm_room(dmg="1000", target="apex", apex=APEX, flags="0"):
    """A 600 x 292 room whose floor has a chasm at x 200..300 (lava 64 units down) with a trigger_hurt over its
    bottom, and a jump pad west of it thrown at a target_position over the chasm."""
    floor = [box((0, 0, -8), (200, 308, 0), "test/floor"), box((300, 0, -8), (616, 308, 0), "test/floor"),
             box((200, 0, -72), (300, 308, -64), "test/lava"), box((200, 0, -64), (300, 8, 0), "test/floor"),
             box((200, 300, -64), (300, 308, 0), "test/floor")]
    hurt = entity("trigger_hurt", brushes=[box((200, 8, -48), (300, 300, -32), "map/poltergeist")], dmg=dmg,
                  spawnflags=flags)
    pad = entity("trigger_push", brushes=[box((40, 200, 8), (90, 250, 40), "common/caulk")], target=target)
    text = room(interior=(600, 292), extra=[hurt, pad, entity("target_position", " ".join(map(str, apex)),
                                                              targetname="apex")])
    text = text.replace('"origin" "50 50 24"', '"origin" "100 100 24"')   # the spawn point clear of the wall
    return text.replace(box((0, 0, -8), (616, 308, 0), "test/floor"), "".join(floor))


def test_a_hurt_zone_and_a_jump_pad_become_volumes_over_ground_heights():
    """The zone keeps its box and damage (1000 points every 0.1 s), the pad the velocity of Quake III's
    AimAtTarget (apex at the target, gravity 800), its target is left out, and the chasm keeps its width on
    50-unit height cells (a pit under a hurt zone is not narrowed by the higher ground beside it)."""
    converted = convert(chasm_room())
    (zone,), (pad,) = converted.hurt_zones, converted.jump_pads
    assert zone.boxes == ((200.0, 8.0, -48.0, 300.0, 300.0, -32.0),) and zone.damage_per_second == 10000.0
    time = math.sqrt((APEX[2] - PAD_CENTRE[2]) / (0.5 * GRAVITY))
    assert pad.velocity == pytest.approx(((APEX[0] - PAD_CENTRE[0]) / time, 0.0, GRAVITY * time))
    assert "target_position" not in {v["classname"] for v in converted.spawn_vars}
    _, at = heights_of(converted)
    assert [at(x, 150) for x in (190, 210, 250, 290, 310)] == [0, -64, -64, -64, 0]


@pytest.mark.parametrize("case, expected", [
    ({"target": "nowhere"}, r"trigger_push at line \d+ has target 'nowhere', which names no entity"),
    ({"apex": (250.0, 225.0, 10.0)}, r"trigger_push at line \d+ aims at 'apex', which is not above the pad"),
])
def test_a_pad_without_a_target_above_it_is_refused(case, expected):
    with pytest.raises(UnconvertibleMap, match=expected):
        convert(chasm_room(**case))


def test_a_hurt_zone_that_starts_off_is_left_out_and_one_that_does_not_kill_is_refused_without_shields(tmp_path):
    assert convert(chasm_room(flags="1")).hurt_zones == ()
    path, game_scripts = checkout(tmp_path, maps={"chasm": chasm_room(dmg="5")}, script=SCRIPT)
    with pytest.raises(LuaScriptError, match=r"trigger_hurt at line \d+ does 5 points a hurt, which does not kill"):
        compile_in_process(path, levels_dir=game_scripts)


def test_walking_into_the_chasm_respawns_and_the_pad_throws_the_player_to_its_target(tmp_path):
    """Walking east off the floor, the player falls into the chasm, touches the hurt zone, pays -1 and is back
    at the spawn point; standing on the pad, it flies over the chasm (apex near the target) and lands on the
    floor beyond it."""
    path, game_scripts = checkout(tmp_path, maps={"chasm": chasm_room()}, script=SCRIPT)
    with pytest.warns(CompileWarning):
        compiled = compile_in_process(path, levels_dir=game_scripts)
    env = FirstPersonEnv(compiled.bank, observations=(), width=4, height=3)
    converted = convert(chasm_room())
    spawn = np.asarray(converted.level_xy(100, 100))

    @jax.jit
    def run(start, action):
        def frame(state, _):
            state, ts = env.step(state, action)
            return state, (ts.reward, state.pos, state.z, state.vz)
        first = env.reset(jax.random.PRNGKey(0))[0]
        return jax.lax.scan(frame, first.replace(pos=start, yaw=jnp.float32(0.0)), None, length=75)[1]

    forward = jnp.zeros(7, jnp.int32).at[A.MOVE_BACK_FORWARD].set(1)
    rewards, pos, z, _ = jax.device_get(run(jnp.asarray(converted.level_xy(150, 200), jnp.float32), forward))
    died = np.nonzero(rewards)[0]
    assert len(died) == 1 and rewards[died[0]] == -1 and z[died[0] - 1] < -16
    assert np.allclose(pos[died[0]], spawn) and z[died[0]] == 0

    rewards, pos, z, vz = jax.device_get(run(jnp.asarray(converted.level_xy(*PAD_CENTRE[:2]), jnp.float32),
                                             jnp.zeros(7, jnp.int32)))
    x = pos[:, 0] - converted.level_xy(0, 0)[0]
    landed = int(np.argmax((z == 0) & (vz == 0) & (np.arange(len(z)) > 0)))
    # the origin, 24 units over the feet, peaks at the target; the pad throws again each frame the box is in
    # its volume (as Quake III's does), which lifts the arc by up to a few tens of units
    assert (rewards >= 0).all() and APEX[2] - 24 <= z.max() <= APEX[2] + 8
    assert x[np.argmax(z)] == pytest.approx(APEX[0], abs=50) and (pos[:landed, 1] == pos[0, 1]).all()
    assert 400 < x[landed] < 550   # beyond the chasm (x 200..300), where the arc meets the floor

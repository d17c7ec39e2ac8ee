""".map sources' movers: a hidden platform (``jaxlab.levels.dmlab.quake_movers``), as DeepMind Lab's
em_watermaze builds one, on small maps written here (helpers from ``test_dmlab_map_files``)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from compile_lua import CompileWarning
from compile_lua.compiled import compile_in_process
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab.quake_map import UnconvertibleMap
from test_dmlab_map_files import box, checkout, convert, entity, room

PLATFORM_SCRIPT = """
    local game = require 'dmlab.system.game'
    local api = {}
    function api:nextMap() return 'plat' end
    function api:updateSpawnVars(v)
      api._paid = 0
      if v.random_platform then v.origin = '300 100 0' end
      return v
    end
    function api:canTrigger(id, target) return true end
    function api:trigger(id, target)
      if id == 0 and target == 'reward' then
        if api._paid >= 2 then game:finishMap() else api._paid = api._paid + 1 game:addScore(1) end
      end
      return false
    end
    return api
"""


def platform_room(button_at=(-32, -32), timer_target="reward", timers=1, button_target="timer"):
    """A flat room with a hidden platform drawn around (0, 0) and placed at (200, 150) by its origin: a
    func_plat (radius 32, rising 48 units at 480 units/s), a button on it raising it, another (100 high,
    lip 40, up at 600 units/s: 0.1 s) switching the func_timer on, whose target is the script's."""
    x, y = button_at
    plat = entity("func_plat", "200 150 0", [box((-32, -32, 0), (32, 32, 46), "test/panel")], targetname="plat",
                  height="48", speed="480", random_platform="1")
    raise_ = entity("func_button", "200 150 0", [box((-32, -32, 0), (32, 32, 24), "map/ghost")], target="plat",
                    angle="-2", speed="700", random_platform="1")
    press = entity("func_button", "200 150 0", [box((x, y, 0), (x + 64, y + 64, 100), "map/ghost")],
                   target=button_target, lip="40", angle="-1", speed="600", random_platform="1")
    timer = [entity("func_timer", "10 10 10", targetname="timer", target=timer_target, wait="0")] * timers
    return room(extra=[plat, raise_, press, *timer, entity("target_callback", targetname="reward")])


def test_a_hidden_platform_becomes_a_point_entity_with_its_timers_trigger():
    converted = convert(platform_room())
    found = converted.platform
    assert (found.radius, found.target, found.spawn_id) == (32.0, "reward", 0)
    assert found.seconds == pytest.approx(48 / 480 + (100 - 40) / 600)
    kept = [v["classname"] for v in converted.spawn_vars]
    assert kept.count("func_plat") == 1 and not {"func_button", "func_timer", "target_callback"} & set(kept)
    plat = next(v for v in converted.spawn_vars if v["classname"] == "func_plat")
    assert plat["origin"] == "200 150 0" and plat["random_platform"] == "1"
    assert any("hidden platform of radius 32" in note for note in converted.notes)


@pytest.mark.parametrize("case, expected", [
    ({"button_at": (100, -32)}, r"func_button at line \d+ does not stand on the func_plat"),
    ({"timers": 2}, r"func_timer at line \d+: only one func_plat"),
    ({"button_target": "elsewhere"}, r"func_button at line \d+ has target 'elsewhere', which names neither"),
    ({"timer_target": ""}, r"func_plat at line \d+ needs a func_button on it"),
])
def test_other_mover_layouts_are_refused_naming_the_line(case, expected):
    with pytest.raises(UnconvertibleMap, match=expected):
        convert(platform_room(**case))


def test_the_platform_fires_the_scripts_trigger_and_the_map_restart_resets_update_spawn_vars(tmp_path):
    """Standing on the platform (where updateSpawnVars put it) fires trigger(0, 'reward') every 0.2 s (12
    frames): +1, +1, then finishMap restarts the map, where updateSpawnVars's _paid is 0 again."""
    path, game_scripts = checkout(tmp_path, maps={"plat": platform_room()}, script=PLATFORM_SCRIPT)
    with pytest.warns(CompileWarning):
        compiled = compile_in_process(path, levels_dir=game_scripts)
    levels = compiled.bank.levels
    where = convert(platform_room()).level_xy(300, 100)
    assert np.allclose(np.asarray(levels.platform_pos)[0], where) and float(levels.platform_radius[0]) == 32.0
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=(), width=4, height=3)
    assert env.script.has_platform

    @jax.jit
    def run(key):
        def frame(state, _):
            state, ts = env.step(state.replace(pos=jnp.asarray(where, jnp.float32)), jnp.zeros(7, jnp.int32))
            return state, (ts.reward, state.frames)
        return jax.lax.scan(frame, env.reset(key)[0], None, length=60)[1]

    rewards, frames = jax.device_get(run(jax.random.PRNGKey(0)))
    assert np.nonzero(rewards)[0].tolist() == [11, 23, 47, 59] and (rewards[rewards != 0] == 1).all()
    assert frames[-1] == 60

"""DeepMind Lab's natlab maps (built BSP files only) drawn with jaxlab's natlab terrain
(compile_lua.dmlab.terrain_maps), their entities passed through the script's hooks; an entity's ``wait``
spawn var as DMLab's respawn delay."""
import zlib
from pathlib import Path

import jax
import numpy as np
import pytest

from compile_lua.compiled import compile_in_process
from compile_lua.dmlab.terrain_maps import terrain_map
from compile_lua.errors import LuaScriptError
from jaxlab.levels.dmlab.dmlab30 import natlab
from jaxlab.levels.dmlab.dmlab30.natlab_terrain import VARIANTS, natlab_layout
from jaxlab.levels.dmlab.heights import SKY_INDEX
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.kernels.first_person.env import FirstPersonEnv

HERE = Path(__file__).parent / "dmlab_terrain"
FPS = 60   # the compiler's frames per second for respawn delays
pytestmark = pytest.mark.filterwarnings("ignore::compile_lua.errors.CompileWarning")


def _layout(name, variant):
    return jax.tree.map(np.asarray, natlab_layout(jax.random.PRNGKey(zlib.crc32(name.encode())), VARIANTS[variant]))


@pytest.fixture(scope="module")
def forage():
    """forage.lua compiled: 6 episodes on its three natlab map names."""
    return compile_in_process(HERE / "forage.lua", episodes=6, seed=3)


def test_natlab_names_get_the_terrain_drawn_from_the_name_and_the_scripts_mushrooms(forage):
    levels, names = forage.bank.levels, forage.meta["maps"]
    assert len(set(names)) >= 2
    for e, name in enumerate(names):
        lay = _layout(name, "natlab_varying_map_regrowth")
        np.testing.assert_array_equal(np.asarray(levels.floor_z[e]), lay.floor_z)
        assert int(levels.sky[e]) == natlab.FIRST_DESERT_SKY + int(lay.time_of_day)
        taken = np.asarray(levels.pickup_takeable[e])
        mushrooms = lay.mushroom_valid
        np.testing.assert_allclose(np.asarray(levels.pickup_pos[e])[taken], lay.mushroom_pos[mushrooms], atol=1e-3)
        assert (np.asarray(levels.pickup_kind[e])[taken] == PICKUP_INDEX["mushroom"]).all()
        assert (np.asarray(levels.pickup_reward[e])[taken] == 1.0).all()
        want = np.where(lay.mushroom_respawn_seconds[mushrooms] > 0,
                        np.round(lay.mushroom_respawn_seconds[mushrooms] * FPS), -1)
        np.testing.assert_allclose(np.asarray(levels.pickup_respawn_frames[e])[taken], want, atol=1)
        drawn = np.asarray(levels.pickup_valid[e]) & ~taken
        np.testing.assert_allclose(np.asarray(levels.pickup_pos[e])[drawn], lay.obstacle_pos[lay.obstacle_valid])
        np.testing.assert_allclose(np.asarray(levels.obstacle_radius[e])[: len(lay.obstacle_radius)],
                                   np.asarray(natlab.solid_radius(lay)))
    first = {n: e for e, n in reversed(list(enumerate(names)))}
    for e, name in enumerate(names):   # the same name, the same map
        np.testing.assert_array_equal(np.asarray(levels.pickup_pos[e]), np.asarray(levels.pickup_pos[first[name]]))


def test_the_large_map_is_one_map_at_the_time_of_day_its_name_says():
    maps = {t: terrain_map(f"natlab_forage_ltm_{t}") for t in ("day", "dawn", "night")}
    for t, m in maps.items():
        assert int(m.decor["sky"]) == SKY_INDEX[f"desert_{t}"]
        np.testing.assert_array_equal(m.decor["floor_z"], maps["day"].decor["floor_z"])
        assert m.spawn_vars == maps["day"].spawn_vars
    fixed = _layout("any", "natlab_fixed_large_map")
    np.testing.assert_array_equal(maps["day"].decor["floor_z"], fixed.floor_z)
    assert sum(v["classname"] == "frag_mushroom_desert_01a" for v in maps["day"].spawn_vars) == 40
    assert terrain_map("natlab_forage_ltm_noon") is None and terrain_map("natlab_forage_stm_1") is None


def test_a_compiled_natlab_script_runs_under_jit_vmap(forage):
    env = FirstPersonEnv(forage.bank, observations=("RGB_INTERLEAVED",), width=16, height=12)
    state, first = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), 2))
    step = jax.jit(jax.vmap(env.step))
    state, ts = step(state, np.tile(np.asarray([[0, 0, 0, 1, 0, 0, 0]], np.int32), (2, 1)))
    frames = np.asarray(ts.observation["RGB_INTERLEAVED"])
    assert frames.shape == (2, 12, 16, 3) and frames.std() > 5


def test_an_entitys_wait_is_its_respawn_delay_and_its_count_its_reward(tmp_path):
    levels = compile_in_process(HERE / "waits.lua").bank.levels
    kinds, frames = np.asarray(levels.pickup_kind[0]), np.asarray(levels.pickup_respawn_frames[0])
    by_kind = {int(k): int(f) for k, f, ok in zip(kinds, frames, np.asarray(levels.pickup_valid[0])) if ok}
    assert by_kind == {PICKUP_INDEX["apple_reward"]: 5 * FPS, PICKUP_INDEX["lemon_reward"]: -1,
                       PICKUP_INDEX["strawberry_reward"]: 3 * FPS}
    paid = np.asarray(levels.pickup_reward[0])
    rewards = {int(k): float(r) for k, r, ok in zip(kinds, paid, np.asarray(levels.pickup_valid[0])) if ok}
    assert rewards == {PICKUP_INDEX["apple_reward"]: 1.0, PICKUP_INDEX["lemon_reward"]: -1.0,
                       PICKUP_INDEX["strawberry_reward"]: 7.0}   # the strawberry's count pays
    for good, wrong, message in (("'5'", "'soon'", "wait 'soon'"), ("'7'", "'many'", "count 'many'")):
        bad = tmp_path / "bad.lua"
        bad.write_text((HERE / "waits.lua").read_text().replace(good, wrong))
        with pytest.raises(LuaScriptError, match=f"updateSpawnVars.*{message}"):
            compile_in_process(bad)

"""DMLab callbacks that keep state (compile_lua.dmlab.playtime): compiled onto the device and run inside
``env.step``, checked against lupa running the same callbacks on the same events; static callbacks stay
tabulated; play-dependent callbacks jaxlab cannot compile are refused with file:line."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.device import DeviceRejection
from compile_lua.dmlab.tabulate import Tabulator
from compile_lua.errors import LuaScriptError
from compile_lua.loading import load_script

COUNTER = Path(__file__).parent / "dmlab_playtime" / "counter.lua"
N = 3            # the counter's level setting: the episode ends after N pickups
STEPS, BATCH = 6, 8
FPS = 60


def _lupa_run(loaded, tab, ids, spots, apple):
    """Rewards and episode ends of one event sequence, the callbacks run by lupa as DMLab calls them:
    ``pickup(id)`` when an apple is taken (each once: pickup returns nil, so it is gone), then
    ``hasEpisodeFinished(t)`` every frame; a finished episode pays nothing more."""
    loaded.sandbox.call_method(loaded.returned, "start", 0, 0)
    taken, done, rewards, ends = set(), False, [], []
    for frame, spot in enumerate(spots, 1):
        reward = 0.0
        if not done:
            if spot >= 0 and spot not in taken:
                taken.add(spot)
                _, score, _, _ = tab.call_recorded("pickup", ids[spot])
                reward = apple + score
            done = tab.call("hasEpisodeFinished", frame / FPS)
        rewards.append(reward)
        ends.append(done)
    return rewards, ends


def test_counter_runs_under_jit_vmap_as_lupa_does():
    env = jaxlab.make(str(COUNTER), level_settings={"pickups": str(N)}, observations=("DEBUG.POS.TRANS",),
                      width=4, height=3)
    assert env.script is not None and env.script.has_pickup and env.script.has_episode_finished
    levels = env.bank.levels
    places = jnp.concatenate([levels.spawn_pos[0, :1], levels.pickup_pos[0]])   # 0: the spawn, 1..4: apples
    ids = env.script.pickup_ids[0].tolist()
    apple = float(levels.pickup_reward[0, 0])
    loaded = load_script(COUNTER)
    loaded.sandbox.call_method(loaded.returned, "init", loaded.sandbox.table({"pickups": str(N)}))
    tab = Tabulator(loaded.sandbox, loaded.returned, str(COUNTER), lambda name: None)

    def run(states, spots):
        def one(states, spot):
            states = states.replace(pos=places[spot + 1])
            states, ts = jax.vmap(env.step)(states, jnp.zeros((BATCH, 7), jnp.int32))
            return states, (ts.reward, ts.step_type == 2, ts.discount)
        return jax.lax.scan(one, states, spots.T)[1]

    run = jax.jit(run)
    states, _ = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), BATCH))

    @settings(max_examples=4, deadline=None, database=None)
    @given(st.lists(st.lists(st.integers(-1, 3), min_size=STEPS, max_size=STEPS), min_size=BATCH, max_size=BATCH))
    def check(sequences):
        rewards, last, discount = jax.device_get(run(states, jnp.asarray(sequences, jnp.int32)))
        for b, spots in enumerate(sequences):
            want_rewards, want_ends = _lupa_run(loaded, tab, ids, spots, apple)
            np.testing.assert_allclose(rewards[:, b], want_rewards, rtol=1e-6)
            assert last[:, b].tolist() == want_ends
            # an episode the script ends is a termination (discount 0)
            assert all(d == (0.0 if e else 1.0) for d, e in zip(discount[:, b], want_ends))
    check()
    # at least one sequence reaches N pickups in a fixed example
    rewards, last, _ = jax.device_get(run(states, jnp.asarray([[0, 1, 2, 3, -1, -1]] * BATCH, jnp.int32)))
    assert rewards[:4, 0].tolist() == [2.0, 3.0, 4.0, 0.0] and last[:, 0].tolist() == [False, False] + [True] * 4


def test_counter_meta_start_state_per_episode_and_tabulated_fields():
    compiled = compile_in_process(COUNTER, {"pickups": "2"}, episodes=2)
    device = compiled.meta["device"]
    assert device["callbacks"] == ["pickup", "hasEpisodeFinished"]
    assert device["starts"] == [{"local.count": 0, "local.N": 2}] * 2
    assert device["pickup_ids"] == [[2, 3, 4, 5]] * 2
    levels = compiled.bank.levels
    # the compiled callbacks set no table: class reward only, respawn from the callback, no time limit from Lua
    assert np.asarray(levels.pickup_reward)[0, :4].tolist() == [1.0] * 4
    assert np.asarray(levels.episode_seconds).tolist() == [3600.0, 3600.0]
    assert "compiled onto the device: pickup, hasEpisodeFinished" in compiled_summary(compiled)


def compiled_summary(compiled):
    from compile_lua.dmlab.compiler import CompiledLevel
    return CompiledLevel(compiled.bank, compiled.meta).summary()


def _variant(tmp_path, old, new):
    text = COUNTER.read_text().replace(old, new)
    assert text != COUNTER.read_text()
    path = tmp_path / "level.lua"
    path.write_text(text)
    return path


@pytest.mark.filterwarnings("ignore::compile_lua.errors.CompileWarning")   # its hasEpisodeFinished never ends
def test_static_pickup_stays_tabulated(tmp_path):
    path = _variant(tmp_path, "  count = count + 1\n  game:addScore(count)", "  game:addScore(5)")
    compiled = compile_in_process(path, {"pickups": "2"})
    assert "device" not in compiled.meta and compiled.device_callbacks() is None
    assert np.asarray(compiled.bank.levels.pickup_reward)[0, :4].tolist() == [6.0] * 4


@pytest.mark.parametrize("old,new,line,construct", [
    ("return api", "function api:customObservation(name) return count end\nreturn api", 29,
     "api:customObservation reading play-time state (local.count)"),
    ("  return count >= N", "  return count", 25, "api:hasEpisodeFinished returning int32"),
    ("  game:addScore(count)", "  game:addScore(count)\n  return 'x' .. count", 23,
     "'..' over a value with no finite set cannot run on the device"),
    ("  game:addScore(count)", "  game:addScore(count)\n  return count > 1", 20, "api:pickup returning bool"),
])
def test_rejections_name_file_line_and_construct(tmp_path, old, new, line, construct):
    path = _variant(tmp_path, old, new)
    with pytest.raises(LuaScriptError) as err:
        compile_in_process(path, {"pickups": "2"})
    assert isinstance(err.value, DeviceRejection) or "cannot run on the device" in str(err.value)
    assert f"level.lua:{line}: " in str(err.value) and construct in str(err.value), str(err.value)

"""DMLab callbacks that keep state (compile_lua.dmlab.playtime): compiled onto the device and run inside
``env.step``, checked against lupa running the same callbacks on the same events; static callbacks stay
tabulated; play-dependent callbacks jaxlab cannot compile are refused with file:line."""
import math
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.device import DeviceRejection
from compile_lua.dmlab.episode import SCREEN
from compile_lua.dmlab.tabulate import Tabulator
from compile_lua.errors import CompileWarning, LuaScriptError
from compile_lua.loading import load_script
from jaxlab.bank_file import save_bank
from jaxlab.kernels.first_person import env as first_person_env
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.kernels.first_person.script import script_screen
from jaxlab.levels.dmlab.level_fields import screen_text

COUNTER = Path(__file__).parent / "dmlab_playtime" / "counter.lua"
SCORE = Path(__file__).parent / "dmlab_playtime" / "score.lua"
COUNTDOWN = Path(__file__).parent / "dmlab_playtime" / "countdown.lua"
DEADLINE = Path(__file__).parent / "dmlab_playtime" / "deadline.lua"
DECORATED_LEVEL = Path(__file__).parent / "dmlab_playtime" / "decorated_level" / "level.lua"
DELEGATING_LEVEL = Path(__file__).parent / "dmlab_playtime" / "delegating_level" / "level.lua"
FACTORY_LEVEL = Path(__file__).parent / "dmlab_playtime" / "factory_level" / "level.lua"
COLLECT_ALL = Path(__file__).parent / "dmlab_playtime" / "collect_all.lua"
QUEST = Path(__file__).parent / "dmlab_playtime" / "decorated_level" / "quest.lua"
QUEST_TWO_JUDGES = Path(__file__).parent / "dmlab_playtime" / "decorated_level" / "quest_two_judges.lua"
NAMED_KEYS = Path(__file__).parent / "dmlab_playtime" / "named_keys.lua"
N = 3            # the counter's level setting: the episode ends after N pickups
STEPS, BATCH = 6, 8
FPS = 60


def _lupa_run(loaded, tab, ids, spots, apple, observations=(), episode=0):
    """(reward, episode ended, {name: observation}) per frame of one event sequence, the callbacks run by lupa
    as DMLab calls them: ``pickup(id)`` when a present apple is touched and ``canPickup(id)`` allows it (it
    is back ``round(respawn * fps)`` frames later; nil: gone), ``hasEpisodeFinished(t)`` every frame,
    ``customObservation(name)`` after it; ``game:finishMap`` in ``pickup`` restarts the map (every pickup
    back). A finished episode pays nothing more."""
    loaded.sandbox.call_method(loaded.returned, "start", episode, 0)
    ready, done, out = {}, False, []
    for frame, spot in enumerate(spots, 1):
        reward = 0.0
        if not done:
            can = spot >= 0 and (not tab.has("canPickup") or tab.call("canPickup", ids[spot]) is not False)
            if can and ready.get(spot, 0) <= frame:
                respawn, score, finish, _ = tab.call_recorded("pickup", ids[spot])
                ready[spot] = frame + round(respawn * FPS) + 1 if respawn is not None and respawn > 0 else math.inf
                reward = apple + score
                if finish:   # game:finishMap restarts the map: every pickup is back
                    ready = {}
            if tab.has("hasEpisodeFinished"):
                done = bool(tab.call("hasEpisodeFinished", frame / FPS))   # DMLab reads its truth
        out.append((reward, done, {name: np.asarray(loaded.sandbox.to_python(tab.call("customObservation", name)))
                                   for name in observations}))
    return out


def _check_against_lupa(env, script, settings_table, steps, examples, fixed=None, level=None):
    """Random event sequences (per frame: stand on apple 0..3, or at the spawn: -1), BATCH at a time under
    ``jax.jit(jax.vmap(env.step))``, against :func:`_lupa_run` of each; ``fixed``: one more batch, always run.
    ``level``: the bank's episode to run (lupa's ``start(level, 0)``), else the one reset draws (a bank of one)."""
    levels, names, at = env.bank.levels, tuple(env.script.observes), level or 0
    places = jnp.concatenate([levels.spawn_pos[at, :1], levels.pickup_pos[at]])   # 0: the spawn, 1..4: apples
    ids = env.script.pickup_ids[at].tolist()
    apple = float(levels.pickup_reward[at, 0])
    loaded = load_script(script)
    if loaded.returned["init"] is not None:
        loaded.sandbox.call_method(loaded.returned, "init", loaded.sandbox.table(settings_table))
    tab = Tabulator(loaded.sandbox, loaded.returned, str(script), lambda name: None)

    def run(states, spots):
        def one(states, spot):
            states = states.replace(pos=places[spot + 1])
            states, ts = jax.vmap(env.step)(states, jnp.zeros((BATCH, 7), jnp.int32))
            return states, (ts.reward, ts.step_type == 2, ts.discount, {k: ts.observation[k] for k in names})
        return jax.lax.scan(one, states, spots.T)[1]

    run = jax.jit(run)
    keys = jax.random.split(jax.random.PRNGKey(0), BATCH)
    states = jax.jit(jax.vmap(env.reset))(keys)[0] if level is None else \
        jax.jit(jax.vmap(lambda k: env.init_state(k, jnp.int32(level))))(keys)

    @settings(max_examples=examples, deadline=None, database=None)
    @given(st.lists(st.lists(st.integers(-1, 3), min_size=steps, max_size=steps), min_size=BATCH, max_size=BATCH))
    def check(sequences):
        rewards, last, discount, obs = jax.device_get(run(states, jnp.asarray(sequences, jnp.int32)))
        for b, spots in enumerate(sequences):
            want = _lupa_run(loaded, tab, ids, spots, apple, names, at)
            np.testing.assert_allclose(rewards[:, b], [w[0] for w in want], rtol=1e-6)
            assert last[:, b].tolist() == [w[1] for w in want]
            # an episode the script ends is a termination (discount 0)
            assert discount[:, b].tolist() == [0.0 if w[1] else 1.0 for w in want]
            for name in names:
                np.testing.assert_allclose(obs[name][:, b], np.stack([w[2][name] for w in want]), rtol=1e-6)
    if fixed is not None:
        check = example(fixed)(check)
    check()
    return run, states


def test_counter_runs_under_jit_vmap_as_lupa_does():
    env = jaxlab.make(str(COUNTER), level_settings={"pickups": str(N)}, observations=(),
                      width=4, height=3)
    assert env.script.has_pickup and env.script.has_episode_finished and env.script.observes == ()
    run, states = _check_against_lupa(env, COUNTER, {"pickups": str(N)}, STEPS, 3)
    # a fixed sequence reaches N pickups: 1 + count each, then the end
    rewards, last, _, _ = jax.device_get(run(states, jnp.asarray([[0, 1, 2, 3, -1, -1]] * BATCH, jnp.int32)))
    assert rewards[:4, 0].tolist() == [2.0, 3.0, 4.0, 0.0] and last[:, 0].tolist() == [False, False] + [True] * 4


def test_score_observation_and_respawns_as_lupa_does():
    compiled = compile_in_process(SCORE)
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=("SCORE", "TAKEN"),
                         width=4, height=3)
    assert env.script.observes == ("SCORE", "TAKEN") and env.script.has_can_pickup
    assert not env.script.has_episode_finished
    assert env.observation_spec()["TAKEN"].dtype == np.uint8
    # apples 0, 1, 2 taken; apple 0 is back at frame 5 but canPickup refuses it (3 taken, not id 5); apple 3 is not
    refused = [0, 1, 2, -1, 0, 0, 3, 0]
    _check_against_lupa(env, SCORE, {}, 8, 3, fixed=[refused] + [[b % 4] * 8 for b in range(BATCH - 1)])


def test_fields_nil_until_play_sets_them_run_as_lupa_does():
    """api fields that are nil when the script has loaded and that play sets (the clock hasEpisodeFinished
    stores, a deadline pickup sets from it) are state that holds a number or nil: ``== nil`` and
    ``x and test`` read whether they hold one."""
    env = jaxlab.make(str(DEADLINE), observations=(), width=4, height=3)
    layout = env.script.translation.layout
    assert layout["api._now"] == ("maybe", ("float",)) and layout["api._endsAt"] == ("maybe", ("float",))
    # two pickups at frames 1 and 2: +10 then, the end from frame 4 (after 1/60 + 0.04 s)
    two = [0, 1, -1, -1, -1, -1, -1, -1]
    run, states = _check_against_lupa(env, DEADLINE, {}, 8, 3, fixed=[two] + [[b % 4] * 8 for b in range(BATCH - 1)])
    rewards, last, _, _ = jax.device_get(run(states, jnp.asarray([two] * BATCH, jnp.int32)))
    assert rewards[:2, 0].tolist() == [1.0, 11.0] and last[:, 0].tolist() == [False] * 3 + [True] * 5


def test_a_field_nil_until_play_sets_it_holds_one_kind_of_value(tmp_path):
    path = tmp_path / "level.lua"
    late = "api._endsAt = api._now + GRACE\n    if id == 3 then api._endsAt = 'soon' end"
    path.write_text(DEADLINE.read_text().replace("api._endsAt = api._now + GRACE", late))
    with pytest.raises(LuaScriptError, match=r"level.lua:24: assigning a string to api._endsAt cannot run on the "
                                             r"device: it is nil when the script has loaded and play sets it: such "
                                             r"a field holds numbers or strings from a finite set"):
        compile_in_process(path)


def test_callbacks_made_by_a_factory_module_run_as_lupa_does():
    """A one-line level over a DMLab-style factory: the pickup closure (its counter a local of the factory
    function, its constants the factory's argument and the module's locals) is translated from the
    factory module; the decorated hasEpisodeFinished (written in another module) stays tabulated."""
    compiled = compile_in_process(FACTORY_LEVEL, episodes=2)
    device = compiled.meta["device"]
    assert device["callbacks"] == ["pickup"] and device["factory"] == "createLevelApi"
    assert device["source_path"].endswith("factories/counting_factory.lua")
    assert device["starts"] == [{"local.taken": 0, "api._last": -1}] * 2
    env = jaxlab.make(str(FACTORY_LEVEL), observations=(), width=4, height=3)
    assert env.script.has_pickup and not env.script.has_episode_finished
    run, states = _check_against_lupa(env, FACTORY_LEVEL, {}, STEPS, 3)
    # the third pickup restarts the map (game:finishMap): apple 0 is back; the counter is not reset
    rewards, last, _, _ = jax.device_get(run(states, jnp.asarray([[0, 1, 2, 0, 3, -1]] * BATCH, jnp.int32)))
    assert rewards[:, 0].tolist() == [1.0, 11.0, 1.0, 1.0, 1.0, 0.0] and not last.any()


def test_a_decorated_callback_compiles_from_the_factory_and_keeps_the_decorators_time_limit():
    """A decorator that keeps the callback it wraps in a local of the callback's name (DeepMind Lab's
    style) counts for the factory: hasEpisodeFinished is translated from the factory, and the
    decorator's time limit, asked of the live callback on the host, is the episode's length."""
    compiled = compile_in_process(DECORATED_LEVEL, episodes=2)
    device = compiled.meta["device"]
    assert device["source_path"].endswith("factories/clock_factory.lua")
    assert set(device["callbacks"]) == {"pickup", "hasEpisodeFinished"}
    assert np.asarray(compiled.bank.levels.episode_seconds).tolist() == [100.0, 100.0]
    assert device["starts"] == [{"api._left": 2, "api._endsAt": None, "api._clock": None}] * 2
    env = jaxlab.make(str(DECORATED_LEVEL), observations=(), width=4, height=3)
    run, states = _check_against_lupa(env, DECORATED_LEVEL, {}, STEPS, 3)
    rewards, last, _, _ = jax.device_get(run(states, jnp.asarray([[2, 3, -1, -1, -1, -1]] * BATCH, jnp.int32)))
    assert rewards[:2, 0].tolist() == [1.0, 1.0] and last[:, 0].tolist() == [False] * 3 + [True] * 3


def test_a_callback_handed_to_a_modules_level_table_compiles_from_that_module():
    """An api whose pickup hands its work to ``kwargs.level:pickup(id)`` (DeepMind Lab's explore
    levels): the level table's method is translated from its own module, the table standing for the
    api, its fields the play-time state."""
    compiled = compile_in_process(DELEGATING_LEVEL, episodes=2)
    device = compiled.meta["device"]
    assert device["source_path"].endswith("factories/tally_level.lua") and device["api"] == "level"
    assert device["callbacks"] == ["pickup"]
    assert device["starts"] == [{"api._count": 0, "api._needed": 3}] * 2   # both set by level:start
    env = jaxlab.make(str(DELEGATING_LEVEL), observations=(), width=4, height=3)
    run, states = _check_against_lupa(env, DELEGATING_LEVEL, {}, STEPS, 3)
    rewards, last, _, _ = jax.device_get(run(states, jnp.asarray([[0, 1, 2, 0, 3, -1]] * BATCH, jnp.int32)))
    assert rewards[:, 0].tolist() == [2.0, 3.0, 4.0, 2.0, 3.0, 0.0] and not last.any()


def test_objects_a_factory_keeps_run_as_lupa_does():
    """Play-time helpers kept as objects (DeepMind Lab's style): a clock made each episode, whose methods sit
    behind its metatable in another module; a judge whose methods are closures over a module function's
    argument; the factory's argument, read for a field it lacks. Their methods are translated from the
    host's functions; their data is play-time state, each episode's own (the judge's goal), and the
    decorator's time limit is asked with the compiled callback left out (the clock is not run ahead)."""
    compiled = compile_in_process(QUEST, episodes=2)
    device = compiled.meta["device"]
    assert set(device["callbacks"]) == {"pickup", "hasEpisodeFinished"} and device["wrapped"] == ["hasEpisodeFinished"]
    assert [s["api._judge"]["_goal"] for s in device["starts"]] == [1, 2]
    assert [s["api._alarm"]["_now"] for s in device["starts"]] == [0, 0]
    assert np.asarray(compiled.bank.levels.episode_seconds).tolist() == [100.0, 100.0]
    env = jaxlab.make(str(QUEST), observations=(), width=4, height=3)
    run, states = _check_against_lupa(env, QUEST, {}, 8, 3)
    # apples 0..3 are groups 1, 2, 1, 2 (id % 2 + 1), the goal 1; each apple pays 1. A wrong one pays the penalty
    # (-round(10 / 3)) plus the alarm's rings so far (one every 2 frames, counted in hasEpisodeFinished after the
    # pickup); the second right one pays the bonus 10 and restarts the map, whose apples are then all back
    rewards, last, _, _ = jax.device_get(run(states, jnp.asarray([[0, 1, 2, 3, -1, 0, 1, -1]] * BATCH, jnp.int32)))
    assert rewards[:, 0].tolist() == [1.0, -2.0, 11.0, -1.0, 0.0, 11.0, 1.0, 0.0] and not last.any()


def test_objects_that_differ_between_episodes_are_variants_each_episode_runs_its_own():
    """A level whose episodes hand play another judge (other functions, other data) and a longer list of records:
    each judge, and each shape of the list, is a variant, translated once; the episode's variant is chosen on the device, each run as lupa runs it."""
    compiled = compile_in_process(QUEST_TWO_JUDGES, episodes=3)
    device = compiled.meta["device"]
    assert [s["variant.api._judge"] for s in device["starts"]] == [0, 1, 0]
    assert len(device["object_variants"]["api._judge"]) == 2
    # the list of the apples' records is one longer in odd episodes: another variant of that api field's data
    assert [s["variant.api._objects"] for s in device["starts"]] == [0, 1, 0]
    assert device["object_variants"]["api._objects"] == [0, -1]
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=(), width=4, height=3)
    # the generous judge's episode: each apple pays 1 + 1 + the rings so far + the spare record (1), and is back
    # 2 s later
    _check_against_lupa(env, QUEST_TWO_JUDGES, {}, 6, 2, fixed=[[0, 0, 1, 2, 3, 0]] * BATCH, level=1)


def test_a_set_keyed_by_pickup_id_finishes_the_map_when_every_counted_apple_is_taken():
    """``api._taken = {}`` at start, ``api._taken[id] = true`` in pickup, read (nil until set) in api:_allTaken's
    ipairs over the ids that count: the set is an array with a presence mask over the level's pickup ids
    (and 0); a finished round adds 10, restarts the map and empties the set; two rounds end the episode."""
    compiled = compile_in_process(COLLECT_ALL, episodes=2)
    device = compiled.meta["device"]
    assert device["pickup_ids"] == [[2, 3, 4, 5]] * 2
    assert device["starts"] == [{"api._taken": {}, "api._rounds": 0}] * 2
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=(), width=4, height=3)
    assert env.script.translation.layout["api._taken"] == ("keyed", "bool", 0, 6)
    # apples 0, 2, 3 (ids 2, 4, 5) end a round whatever else is taken; twice ends the episode
    rounds = [0, 2, 1, 3, -1, 0, 2, 3]
    run, states = _check_against_lupa(env, COLLECT_ALL, {}, 8, 3,
                                      fixed=[rounds] + [[b % 4] * 8 for b in range(BATCH - 1)])
    rewards, last, discount, _ = jax.device_get(run(states, jnp.asarray([rounds] * BATCH, jnp.int32)))
    assert rewards[:, 0].tolist() == [1.0, 1.0, 1.0, 11.0, 0.0, 1.0, 1.0, 11.0]
    assert last[:, 0].tolist() == [False] * 7 + [True] and discount[-1, 0] == 0.0
    # apple 1 (id 3) does not count: taking it again and again never finishes the round
    rewards, last, _, _ = jax.device_get(run(states, jnp.asarray([[1, -1, 1, 0, 2, -1, -1, -1]] * BATCH, jnp.int32)))
    assert rewards[:, 0].tolist() == [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0] and not last[:, 0].any()


def test_a_set_written_past_the_keys_it_can_hold_is_refused(tmp_path):
    path = tmp_path / "level.lua"
    path.write_text(COLLECT_ALL.read_text().replace("api._taken[id] = true", "api._taken[id * 1000] = true"))
    with pytest.raises(DeviceRejection, match=r"level.lua:28: a table written at keys 0 \.\. 5000 cannot run on the "
                                              r"device: a table written at play time spans at most 4096 keys"):
        compile_in_process(path)


def test_a_list_of_names_whose_length_changes_per_episode_reads_nil_past_its_end():
    """start sets a list of 3 names in episode 0 and 2 in episode 1: the state keeps 3 items, each a name or
    nil; pickup reads it at the pickup id (nil past the episode's end and at the 4th and 5th apples) and
    keeps the name in a field that is nil until then."""
    compiled = compile_in_process(NAMED_KEYS, episodes=2)
    device = compiled.meta["device"]
    names = ["maybe", ["string", ["blue", "green", "red"]]]
    assert device["layout"]["api._names"] == ["tuple", [names] * 3]
    assert device["layout"]["api._carried"] == names
    assert [s["api._names"] for s in device["starts"]] == [["red", "green", "blue"], ["red", "green"]]
    first = jaxlab.make(str(NAMED_KEYS), observations=(), width=4, height=3)   # lupa plays episode 0
    _check_against_lupa(first, NAMED_KEYS, {}, 6, 3, fixed=[[0, 1, 2, 3, 0, 3]] + [[3 - b % 4] * 6 for b in range(7)])
    hooks = compiled.device_callbacks()
    inputs = hooks.translation.inputs()

    def scores(level, apples):
        play, out = hooks.start(level, jax.random.PRNGKey(0)), []
        for apple in apples:
            play, _, score, _ = hooks.pickup(play, inputs, level, apple)
            out.append(float(score))
        return out
    assert scores(0, [0, 2, 3, 1, 3]) == [1.0, 1.0, 0.0, 10.0, 100.0]
    assert scores(1, [0, 2, 3, 1, 2]) == [1.0, 0.0, 0.0, 10.0, 100.0]   # the third name is nil in episode 1


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


def test_a_texture_update_in_a_compiled_callback_is_play_time_state(tmp_path):
    """game:updateTexture keeps the tensor's pixels as play-time state ``texture.<name>`` (no map surface shows
    'floor' here, so nothing draws it); the counter still counts."""
    text = COUNTER.read_text().replace("local api = {}", "local tensor = require 'dmlab.system.tensor'\n"
                                       "local BRIGHT = tensor.ByteTensor(2, 2, 4):fill(200)\nlocal api = {}")
    text = text.replace("  game:addScore(count)", "  game:addScore(count)\n  game:updateTexture('floor', BRIGHT)")
    path = tmp_path / "level.lua"
    path.write_text(text)
    compiled = compile_in_process(path, {"pickups": "2"})
    assert compiled.meta["device"]["callbacks"] == ["pickup", "hasEpisodeFinished"]
    assert compiled.meta["device"]["layout"]["texture.floor"] == ["tensor", "Byte", (2, 2, 4)]


@pytest.mark.parametrize("old,new,line,construct", [
    ("return api", "function api:customObservation(name) count = 0 end\nreturn api", 29,
     "api:customObservation changing local.count cannot run on the device"),
    ("return api", "function api:canPickup(id) count = 0 end\nreturn api", 29,
     "api:canPickup changing local.count cannot run on the device"),
    ("return api", "function api:screenMessages(args) return {{message = 'n' .. count}} end\nreturn api", 29,
     "'..' over a value with no finite set cannot run on the device"),
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


def _lupa_screen(moments):
    """Per (frames, pickups taken) moment, lupa's ``screenMessages(args)`` with the game clock at
    ``frames / FPS`` (a fresh script; ``pickup`` called as often as taken), as ``Level`` text fields."""
    loaded = load_script(COUNTDOWN)
    sb, game = loaded.sandbox, loaded.sandbox.require("dmlab.system.game")
    clock = sb.lua.eval("function(t) return function(self) return t end end")
    taken, out = 0, {}
    for frames, k in sorted(set(moments), key=lambda m: m[1]):
        while taken < k:
            sb.call_method(loaded.returned, "pickup", taken + 1)
            taken += 1
        game["episodeTimeSeconds"] = clock(frames / FPS)
        messages = sb.to_python(sb.call_method(loaded.returned, "screenMessages", sb.table(SCREEN)))
        out[frames, k] = screen_text([(m["message"], float(m["x"]), float(m["y"]), int(m.get("alignment", 0)))
                                      for m in messages], length=SCREEN["max_string_length"])
    return [out[m] for m in moments]


def test_countdown_screen_messages_are_drawn_as_lupa_writes_them(monkeypatch):
    compiled = compile_in_process(COUNTDOWN)
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=("RGB_INTERLEAVED",),
                         width=32, height=24)
    assert env.script.has_screen and compiled.bank.levels.text_chars.shape[1] == 0   # nothing tabulated
    start = env.init_state(jax.random.PRNGKey(0))   # (no frame drawn here)

    def at(frames, taken):
        return start.replace(frames=jnp.int32(frames),
                             script={"key": start.script["key"], "vars": {"local.taken": jnp.int32(taken)}})

    fields = ("text_chars", "text_pos", "text_align", "text_valid")
    screen = jax.jit(jax.vmap(lambda s: {k: v for k, v in script_screen(env.script, s, env.level(s), FPS)
                                         .__dict__.items() if k in fields}))

    @settings(max_examples=3, deadline=None, database=None)
    @given(st.lists(st.tuples(st.integers(0, 420), st.integers(0, 12)), min_size=4, max_size=4))
    def check(moments):
        got = jax.device_get(screen(jax.tree_util.tree_map(lambda *a: jnp.stack(a), *[at(*m) for m in moments])))
        for i, want in enumerate(_lupa_screen(moments)):
            for key in fields:
                np.testing.assert_array_equal(got[key][i], want[key], err_msg=f"{key} at {moments[i]}")
    check()
    # env.observe hands the renderer (tests/first_person/test_render*.py draw Level text) the compiled text
    monkeypatch.setattr(first_person_env, "observe", lambda level, state, *rest, **options: {"text": level.text_chars})
    want = _lupa_screen([(150, 3)])[0]["text_chars"]
    np.testing.assert_array_equal(env.observe(at(150, 3))["text"], want)
    assert "".join(map(chr, want[0][want[0] > 0])) == "time left: 3 s"


def test_a_saved_bank_of_such_a_script_is_refused_not_run_without_its_callbacks(tmp_path):
    compiled = compile_in_process(COUNTER, {"pickups": "2"})
    save_bank(tmp_path / "counter.jaxlab", compiled.bank, compiled.meta)
    with pytest.raises(ValueError, match=r"counter.jaxlab: .*run on the device \(pickup, hasEpisodeFinished\); "
                                         r"make the environment from the .lua script"):
        jaxlab.make(str(tmp_path / "counter.jaxlab"))


def test_start_giving_a_state_variable_another_kind_of_value_is_refused(tmp_path):
    path = _variant(tmp_path, "  count = 0\n", "  count = 0\n  if episode == 1 then count = 'many' end\n")
    assert compile_in_process(path, {"pickups": "2"}).meta["device"]["starts"][0]["local.count"] == 0
    with pytest.raises(DeviceRejection, match=r"level.lua: play-time state local.count that start sets to 'many' "
                                              r"cannot run on the device: after init it holds \['int'\]"):
        compile_in_process(path, {"pickups": "2"}, episodes=2)


def test_compiled_pickup_callbacks_get_the_player_as_dmlab_passes_it(tmp_path):
    """DMLab calls canPickup(id, playerId) and pickup(id, playerId) with the agent as player 1: a pickup
    callback compiled onto the device (it keeps a total) reads it as the tabulated canPickup does."""
    path = tmp_path / "players.lua"
    path.write_text("""
local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'
local api = {}
local total = 0
function api:nextMap() return make_map.makeMap('*****\\n*PAA*\\n*****', 'players') end
function api:canPickup(id, playerId) return playerId == 1 end
function api:pickup(id, playerId)
  total = total + playerId
  game:addScore(total * 10)
end
return api
""")
    env = jaxlab.make(str(path), observations=("DEBUG.POS.TRANS",), width=8, height=6, action_repeat=1)
    assert env.script.has_pickup and not env.script.has_can_pickup
    step = jax.jit(env.step)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    rewards = []
    for x in (250.0, 350.0):
        state, ts = step(state.replace(pos=jnp.asarray([x, 150.0], jnp.float32)), jnp.zeros(7, jnp.int32))
        rewards.append(float(ts.reward))
    assert rewards == [1.0 + 10.0, 1.0 + 20.0]   # each apple's 1, then the script's 10 x the player ids so far

"""DMLab's per-frame and event hooks (compile_lua.dmlab.hooks): modifyControl, rewardOverride and
canTrigger/trigger compiled onto the device and run in the first-person kernel's step, checked against lupa
running the same Lua on the same action and event sequences (with DMLab's rules for what the engine passes
and reads, written out here); their effect through ``jaxlab.make("x.lua")`` under jit(vmap); rejected
constructs name file:line."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.device import DeviceRejection
from compile_lua.device.source import outline
from compile_lua.device.translate import read_host_state
from compile_lua.dmlab.tabulate import Tabulator
from compile_lua.errors import LuaScriptError
from compile_lua.loading import load_script
from jaxlab.kernels.first_person.env import FirstPersonEnv

HERE = Path(__file__).parent / "dmlab_hooks"
FPS = 60
K = 0.11 * 60 / 1000   # DMLab: a LOOK pixel per frame in degrees per millisecond
BATCH = 6


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """make("x.lua") caches compiled banks under the test's tmp dir, not ~/.cache."""
    monkeypatch.setenv("JAXLAB_CACHE_DIR", str(tmp_path / "cache"))


def _lupa(script):
    """The script loaded in lupa, ``start(0, 0)`` run: (loaded, Tabulator, script outline)."""
    loaded = load_script(script)
    tab = Tabulator(loaded.sandbox, loaded.returned, str(script), lambda name: None)
    tab.call("start", 0, 0)
    return loaded, tab, outline(str(script), script.read_text())


def _lupa_vars(loaded, out):
    """The script's play-time variables in lupa now (``local.<name>``, ``api.<field>``)."""
    return read_host_state(loaded, out)


def _device_vars(play, b):
    """Env ``b``'s play-time variables in a batch of device play states, as Python numbers."""
    return {k: np.asarray(v)[b].item() for k, v in play["vars"].items()}


# -- modifyControl -----------------------------------------------------------------------------------------

def _engine_table(a):
    """DMLab's modifyControl argument for the agent's action ``a`` (7 ints)."""
    return {"lookDownUp": a[1] * K, "lookLeftRight": -a[0] * K, "moveBackForward": a[3] * 127,
            "strafeLeftRight": a[2] * 127, "crouchJump": (a[5] - a[6]) * 127, "buttonsDown": a[4]}


def _engine_reads(table, a):
    """The action DMLab applies after modifyControl returned ``table`` (None: ``a``), in the kernel's
    layout: look in pixels, moves as fractions of 127 (read into a signed char), jump/crouch from the up
    move (Quake: jump at >= 10, crouch below 0), fire from bit 0 of the buttons."""
    out = [float(x) for x in a]
    if table is None:
        return out

    def char(v):
        return (int(v) + 128) % 256 - 128   # int(): truncated toward zero, as lua_tointeger

    if "lookDownUp" in table:
        out[1] = table["lookDownUp"] / K
    if "lookLeftRight" in table:
        out[0] = -table["lookLeftRight"] / K
    for key, i in (("moveBackForward", 3), ("strafeLeftRight", 2)):
        if key in table:
            out[i] = max(-1.0, min(1.0, char(table[key]) / 127))
    if "crouchJump" in table:
        up = char(table["crouchJump"])
        out[5], out[6] = float(up >= 10), float(up < 0)
    if "buttonsDown" in table:
        out[4] = float(int(table["buttonsDown"]) % 2)
    return out


ACTION = st.tuples(st.sampled_from([-512, -20, 0, 7, 20, 512]), st.integers(-512, 512), st.integers(-1, 1),
                   st.integers(-1, 1), st.integers(0, 1), st.integers(0, 1), st.integers(0, 1))


def test_modify_control_changes_actions_as_lupa_does():
    script = HERE / "controls.lua"
    hooks = compile_in_process(script).device_callbacks()
    assert hooks.has_modify_control and not (hooks.has_pickup or hooks.has_triggers or hooks.has_reward_override)
    inputs = hooks.translation.inputs()

    @jax.jit
    def run(actions):   # int32[B, T, 7] -> (float32[B, T, 7] applied actions, final play states)
        def episode(seq):
            def frame(play, a):
                play, applied, score, finish = hooks.modify_control(play, inputs, a.astype(jnp.float32))
                return play, applied
            return jax.lax.scan(frame, hooks.start(0, jax.random.PRNGKey(0)), seq)[::-1]
        return jax.vmap(episode)(actions)

    @settings(max_examples=4, deadline=None, database=None)
    @given(st.lists(st.lists(ACTION, min_size=10, max_size=10), min_size=BATCH, max_size=BATCH))
    def check(sequences):
        applied, play = jax.device_get(run(jnp.asarray(sequences, jnp.int32)))
        for b, seq in enumerate(sequences):
            loaded, tab, out = _lupa(script)
            for t, a in enumerate(seq):
                table = loaded.sandbox.to_python(tab.call("modifyControl", loaded.sandbox.table(_engine_table(a))))
                np.testing.assert_allclose(applied[b, t], _engine_reads(table, a), rtol=1e-5, atol=1e-4,
                                           err_msg=f"frame {t} of {seq}")
            assert _device_vars(play, b) == _lupa_vars(loaded, out)
    check()


def test_modify_control_swaps_strafe_and_move_under_jit_vmap():
    """Forward strafes right and strafe right walks forward, at half speed: forward facing yaw y goes where
    strafing right facing y - 90 goes, at right angles to the way the player faces, at most 63/127 of the
    top speed (320 units/s)."""
    env = jaxlab.make(str(HERE / "swap.lua"), observations=(), width=4, height=3)
    assert env.script.has_modify_control
    yaws = jnp.asarray([0.0, 35.0, 0.0 - 90.0, 35.0 - 90.0])
    actions = jnp.asarray([[0, 0, 0, 1, 0, 0, 0]] * 2 + [[0, 0, 1, 0, 0, 0, 0]] * 2, jnp.int32)

    @jax.jit
    def walk(states):
        states = states.replace(yaw=yaws, pos=jnp.broadcast_to(jnp.asarray([350.0, 250.0]), (4, 2)))
        return jax.lax.scan(lambda s, _: (jax.vmap(env.step)(s, actions)[0], None), states, None, length=15)[0]

    got = walk(jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(3), 4))[0])
    np.testing.assert_allclose(got.pos[:2], got.pos[2:], atol=1e-3)
    moved = got.pos[:2] - 350.0 * jnp.asarray([1.0, 0.0]) - 250.0 * jnp.asarray([0.0, 1.0])
    rad = jnp.deg2rad(yaws[:2])
    facing, right = jnp.stack([jnp.cos(rad), jnp.sin(rad)], -1), jnp.stack([jnp.sin(rad), -jnp.cos(rad)], -1)
    assert (jnp.abs(jnp.sum(moved * facing, -1)) < 1e-3).all() and (jnp.sum(moved * right, -1) > 20).all()
    speed = jnp.linalg.norm(got.vel, axis=-1)
    assert ((speed > 100) & (speed <= 320 * 63 / 127 + 1e-3)).all(), speed


# -- rewardOverride ----------------------------------------------------------------------------------------

# rewards.lua's pickups in reading order: (class reward, reason) - the medkit pays none, so no call
REWARD_EVENTS = [(1, "PICKUP_REWARD"), (10, "PICKUP_GOAL"), (-1, "PICKUP_REWARD"), (0, None)]


@pytest.mark.filterwarnings("ignore::compile_lua.errors.CompileWarning")   # the medkit pays nothing
def test_reward_override_pays_as_lupa_says():
    script = HERE / "rewards.lua"
    hooks = compile_in_process(script).device_callbacks()
    assert hooks.has_reward_override and not hooks.has_pickup
    inputs = hooks.translation.inputs()

    @jax.jit
    def run(taken):   # int32[B, T] pickup indices -> (float32[B, T] rewards, bool[B, T] finishes, plays)
        def episode(seq):
            def event(play, i):
                play, change, finish = hooks.reward_override(play, inputs, 0, i)
                return play, (jnp.asarray([1.0, 10.0, -1.0, 0.0])[i] + change, finish)
            return jax.lax.scan(event, hooks.start(0, jax.random.PRNGKey(0)), seq)[::-1]
        return jax.vmap(episode)(taken)

    @settings(max_examples=4, deadline=None, database=None)
    @given(st.lists(st.lists(st.integers(0, 3), min_size=12, max_size=12), min_size=BATCH, max_size=BATCH))
    def check(sequences):
        (rewards, finishes), play = jax.device_get(run(jnp.asarray(sequences, jnp.int32)))
        assert not finishes.any()
        for b, seq in enumerate(sequences):
            loaded, tab, out = _lupa(script)
            for t, i in enumerate(seq):
                score, reason = REWARD_EVENTS[i]
                want = score
                if reason is not None:
                    kwargs = {"score": score, "reason": reason, "playerId": 1, "team": "free"}
                    result, added, _, _ = tab.call_recorded("rewardOverride", loaded.sandbox.table(kwargs))
                    want = (score if result is None else int(result)) + added
                assert rewards[b, t] == want, f"event {t} of {seq}"
            assert _device_vars(play, b) == _lupa_vars(loaded, out)
    check()


def test_reward_override_doubles_every_third_pickup_under_jit_vmap():
    env = jaxlab.make(str(HERE / "bonus.lua"), observations=(), width=4, height=3)
    assert env.script.has_reward_override
    apples = env.bank.levels.pickup_pos[0]
    orders = jnp.asarray([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]], jnp.int32)
    states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(1), 3))
    step = jax.jit(jax.vmap(env.step))
    rewards = []
    for t in range(4):
        states = states.replace(pos=apples[orders[:, t]])
        states, ts = step(states, jnp.zeros((3, 7), jnp.int32))
        rewards.append(ts.reward)
    assert jnp.stack(rewards, 1).tolist() == [[1.0, 1.0, 2.0, 1.0]] * 3


# -- canTrigger / trigger ----------------------------------------------------------------------------------

# doors.lua's map: a row of cells 100 units wide; its doors (targets door_4_1, door_6_1) are in columns 4
# and 6; a door's trigger holds a player within 150 units of its centre, fired again after 1 s
SPOTS = [150.0, 350.0, 550.0, 750.0]   # x of columns 1 (no door), 3 (door 4), 5 (both), 7 (door 6)
DOORS = [(450.0, "door_4_1"), (650.0, "door_6_1")]
FRAMES = 150


def _lupa_doors(spots):
    """Per frame: (reward, each door's last firing opened it) as DMLab fires the door triggers of
    doors.lua with the player at ``SPOTS[spot]``: ``canTrigger(0, target, 1)``, then ``trigger`` when it
    allows; a trigger fires again one second after it last fired."""
    loaded, tab, out = _lupa(HERE / "doors.lua")
    sb, game = loaded.sandbox, loaded.sandbox.require("dmlab.system.game")
    clock = sb.lua.eval("function(t) return function(self) return t end end")
    wait, opened, frames = [0, 0], [False, False], []
    for k, spot in enumerate(spots):
        game["episodeTimeSeconds"] = clock((k + 1) / FPS)
        reward = 0.0
        for d, (x, target) in enumerate(DOORS):
            wait[d] = max(wait[d] - 1, 0)
            if abs(SPOTS[spot] - x) < 150 and wait[d] == 0:
                allowed = tab.call("canTrigger", 0, target, 1)
                if allowed:
                    handled, added, _, _ = tab.call_recorded("trigger", 0, target, 1)
                    reward, allowed = reward + added, not handled
                opened[d], wait[d] = bool(allowed), FPS
        frames.append((reward, tuple(opened)))
    return frames, _lupa_vars(loaded, out)


@pytest.fixture(scope="module")
def doors_run():
    """(env, run): doors.lua's env and ``run(spots int32[B, T])`` under jit: the player put at
    ``SPOTS[spot]`` each frame -> (rewards float32[B, T], each door's flag bool[B, T, 2], door openness
    float32[B, T, 2], final states)."""
    compiled = compile_in_process(HERE / "doors.lua")
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=(), width=4, height=3)
    places = jnp.asarray([[x, 150.0] for x in SPOTS])

    @jax.jit
    def run(spots):
        def frame(states, spot):
            states, ts = jax.vmap(env.step)(states.replace(pos=places[spot]), jnp.zeros((BATCH, 7), jnp.int32))
            return states, (ts.reward, states.script["doors"]["open"], states.door_open)
        states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), BATCH))
        states, (rewards, opened, door_open) = jax.lax.scan(frame, states, spots.T)
        return rewards.T, opened.transpose(1, 0, 2), door_open.transpose(1, 0, 2), states
    return env, run


def test_door_triggers_fire_as_lupa_says(doors_run):
    env, run = doors_run
    assert env.script.has_triggers and env.script.trigger_targets == [(0, t) for _, t in DOORS]
    segment = st.tuples(st.integers(0, 3), st.integers(1, 50))

    @settings(max_examples=3, deadline=None, database=None)
    @given(st.lists(st.lists(segment, min_size=4, max_size=8), min_size=BATCH, max_size=BATCH))
    def check(plans):
        spots = [sum(([s] * n for s, n in plan), [])[:FRAMES] for plan in plans]
        spots = [row + [row[-1]] * (FRAMES - len(row)) for row in spots]
        rewards, opened, _, states = jax.device_get(run(jnp.asarray(spots, jnp.int32)))
        for b, row in enumerate(spots):
            want, final = _lupa_doors(row)
            assert rewards[b].tolist() == [w[0] for w in want], row
            assert [tuple(o) for o in opened[b].tolist()] == [w[1] for w in want], row
            assert _device_vars(states.script, b) == final
    check()


def test_a_door_its_trigger_keeps_shut_does_not_open_under_jit_vmap(doors_run):
    _, run = doors_run
    rewards, _, door_open, _ = jax.device_get(run(jnp.full((BATCH, FRAMES), 3, jnp.int32)))   # by door 6 only
    door6 = door_open[:, :, 1]
    assert (door6[:, :60] == 0).all()                  # canTrigger: not before 0.07 s; it fires again after 1 s
    assert (door6[:, 60:120] > 0).all()                # the second firing opens it (trigger returns false)
    assert (np.diff(door6[:, 119:140]) < 0).all()      # the third: trigger handles it (true): shut again,
    assert (rewards.sum(1) == 2.0).all() and (rewards[:, 120] == 2.0).all()   # and it pays


def test_a_text_maps_doors_reach_update_spawn_vars_as_func_door_entities():
    """door_entities.lua names the doors it is given (its asserts check their order, target names, angle and
    that the apple keeps its id), removes the third and lets canTrigger open only the red one."""
    compiled = compile_in_process(HERE / "door_entities.lua")
    level = compiled.bank.levels
    assert int(level.door_valid[0].sum()) == 2 and int(level.cells[0, 1, 8]) == 0   # the removed door: floor
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=(), width=4, height=3)
    step = jax.jit(jax.vmap(env.step))
    for x, opens in ((450.0, True), (650.0, False)):   # by door_4_1 (red), by door_6_1 (blue)
        states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 2))
        for _ in range(30):
            states, _ = step(states.replace(pos=jnp.asarray([[x, 150.0]] * 2)), jnp.zeros((2, 7), jnp.int32))
        door = 0 if x == 450.0 else 1
        assert bool((states.door_open[:, door] > 0).all()) == opens, x


def test_a_table_written_at_a_doors_name_during_play_opens_the_door_once():
    """opened_once.lua: the door opens for the carried key's colour (taken with the apple) and, once opened
    (a table that starts empty, written at the door's name in trigger), never again."""
    compiled = compile_in_process(HERE / "opened_once.lua")
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=(), width=4, height=3)
    step = jax.jit(jax.vmap(env.step))

    def run(xs):   # the player put at each x in turn, one frame each: the door's openness per frame
        states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 2))
        out = []
        for x in xs:
            states, _ = step(states.replace(pos=jnp.asarray([[x, 150.0]] * 2)), jnp.zeros((2, 7), jnp.int32))
            out.append(np.asarray(states.door_open[:, 0]))
        return np.stack(out, 1)

    assert (run([450.0] * 200) == 0).all()                    # no key: the door stays shut
    opened = run([350.0] * 5 + [450.0] * 40 + [150.0] * 200 + [450.0] * 200)   # the key, the door, away, back
    assert (opened[:, 5:45] > 0).any(1).all()                  # it opens for the key
    assert (opened[:, 244] == 0).all() and (opened[:, 245:] == 0).all()   # shut again, and never reopens


# -- rejections --------------------------------------------------------------------------------------------

def _variant(tmp_path, name, old, new):
    text = (HERE / name).read_text()
    assert old in text
    path = tmp_path / "level.lua"
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("name,old,new,line,construct", [
    ("doors.lua", "function api:canTrigger(spawnId, targetName)\n",
     "function api:canTrigger(spawnId, targetName)\n  do return nil end\n", 19,
     "api:canTrigger returning nil cannot run on the device: it must return a boolean"),
    ("doors.lua", "function api:trigger(spawnId, targetName)\n",
     "function api:trigger(spawnId, targetName)\n  do return fired end\n", 26, "api:trigger returning int32"),
    ("bonus.lua", "function api:rewardOverride(kwargs)\n", "function api:rewardOverride(kwargs)\n  do return 'x' end\n",
     15, "api:rewardOverride returning string"),
    ("bonus.lua", "  return kwargs.score\nend", "end", 15,
     "api:rewardOverride returning a value that may be nil cannot run on the device"),
    ("swap.lua", "  return actions\n", "  return 1\n", 11, "api:modifyControl returning int32"),
    ("swap.lua", "  return actions\n", "  actions.buttonsDown = true\n  return actions\n", 11,
     "api:modifyControl returning buttonsDown = bool"),
    ("swap.lua", "function api:modifyControl(actions)\n",
     "local function stop(a) a.crouchJump = 0 end\nfunction api:modifyControl(actions)\n"
     "  local box = {inner = actions}\n  stop(box.inner)\n", 11,
     "writing a field of a table in stop cannot run on the device"),
    ("swap.lua", "  actions.strafeLeftRight = move // 2\n", "  local same = actions\n  same.strafeLeftRight = move\n",
     15,
     "writing a field of a table that 2 names hold (actions, same) cannot run on the device"),
    ("swap.lua", "  actions.strafeLeftRight = move // 2\n", "  actions[1] = move\n", 14,
     "writing the key 1 of a record cannot run on the device"),
])
def test_rejections_name_file_line_and_construct(tmp_path, name, old, new, line, construct):
    path = _variant(tmp_path, name, old, new)
    with pytest.raises(DeviceRejection) as err:
        compile_in_process(path)
    assert f"level.lua:{line}: " in str(err.value) and construct in str(err.value), str(err.value)


def test_reward_override_needs_integer_pickup_scores(tmp_path):
    path = _variant(tmp_path, "bonus.lua", "function api:rewardOverride", """local pickups = require 'common.pickups'
function api:createPickup(name)
  return {name = 'Half', class_name = name, model_name = '', quantity = 0.5, type = pickups.type.REWARD}
end
function api:rewardOverride""")
    with pytest.raises(LuaScriptError, match=r"level.lua:\d+: api:rewardOverride .* integer score; pickup "
                                             r"'apple_reward' has quantity 0.5"):
        compile_in_process(path)


def test_a_dmlab_tensor_made_at_load_is_play_state_written_through_its_views_as_in_lupa():
    """canvas.lua keeps a ByteTensor the script made when it loaded and paints it through ``select`` views in
    modifyControl: on the device it is carried between frames (its kind and shape fixed) and each jump pays
    what lupa's run of the same Lua pays, leaving the same picture."""
    script = HERE / "canvas.lua"
    hooks = compile_in_process(script).device_callbacks()
    assert hooks.has_modify_control
    inputs = hooks.translation.inputs()
    jumps = [0, 1, 1, 0, 1, 0, 0, 1, 1, 1]

    def frame(play, jump):
        action = jnp.zeros(7, jnp.float32).at[5].set(jump)
        play, _, score, _ = hooks.modify_control(play, inputs, action)
        return play, score

    play, scores = jax.jit(lambda seq: jax.lax.scan(frame, hooks.start(0, jax.random.PRNGKey(0)), seq))(
        jnp.asarray(jumps, jnp.float32))
    loaded = load_script(script)
    tab, out = Tabulator(loaded.sandbox, loaded.returned, str(script), lambda name: None), outline(
        str(script), script.read_text())
    paid = []
    for jump in jumps:
        _, score, _, _ = tab.call_recorded("modifyControl",
                                           loaded.sandbox.table(_engine_table([0, 0, 0, 0, 0, jump, 0])))
        paid.append(score)
    np.testing.assert_allclose(np.asarray(scores), paid, rtol=1e-6)
    assert max(paid) > 0 and paid.count(0) == jumps.count(0)
    picture = _lupa_vars(loaded, out)["local.canvas"]
    assert picture.dtype == np.uint8 and picture.shape == (3, 4) and (picture == 200).any()
    np.testing.assert_array_equal(np.asarray(play["vars"]["local.canvas"]), picture)


def test_a_dmlab_tensor_of_a_kind_the_device_lacks_is_refused_at_its_line(tmp_path):
    """A CharTensor (int8; the device keeps Byte, Int32, Int64 and Double tensors) read by modifyControl is not
    play state: the compile stops at the line that uses it, naming the variable."""
    path = tmp_path / "chars.lua"
    path.write_text((HERE / "canvas.lua").read_text().replace("tensor.ByteTensor(3, 4)", "tensor.CharTensor(3, 4)"))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "paint(canvas)" in text)
    with pytest.raises(LuaScriptError, match=rf"chars.lua:{line}: .*'canvas'"):
        compile_in_process(path)

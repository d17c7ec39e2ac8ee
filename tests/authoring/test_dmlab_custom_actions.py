"""DMLab's custom discrete actions (compile_lua.dmlab.custom_actions): ``customDiscreteActionSpec`` appended to
the action spec of the env, the host ``Lab`` and ``DiscreteActions``; ``customDiscreteActions`` compiled onto
the device, called once per agent step before its frames and checked against lupa running the same Lua on the
same values; bad specs refused with the entry named."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.device import DeviceRejection
from compile_lua.device.source import outline
from compile_lua.device.translate import read_host_state
from compile_lua.dmlab.tabulate import Tabulator
from compile_lua.errors import LuaScriptError
from compile_lua.loading import load_script
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab.actions import ACTION_NAMES
from jaxlab.wrappers import DiscreteActions

SCRIPT = Path(__file__).parent / "dmlab_hooks" / "custom_actions.lua"
SPEC = [("BONUS", -2, 3), ("LEAVE", 0, 1)]
BATCH, STEPS, REPEAT = 4, 16, 2


@pytest.fixture(scope="module")
def run():
    """(env, run): custom_actions.lua's env (2 frames a step) and ``run(custom int32[B, T, 2])`` under jit(vmap):
    each step the player is put off its spawn point and stands still -> (rewards float32[B, T], LAST bool[B, T],
    respawned bool[B, T], final states)."""
    compiled = compile_in_process(SCRIPT)
    env = FirstPersonEnv(compiled.bank, script=compiled.device_callbacks(), observations=(), width=4, height=3,
                         action_repeat=REPEAT)
    spawn = env.bank.levels.spawn_pos[0, 0]
    away = spawn + jnp.asarray([200.0, 0.0])

    @jax.jit
    def go(custom):
        def step(states, values):
            states = states.replace(pos=jnp.where(states.done[:, None], states.pos, away))
            actions = jnp.concatenate([jnp.zeros((BATCH, 7), jnp.int32), values], axis=1)
            states, ts = jax.vmap(env.step)(states, actions)
            back = jnp.all(jnp.abs(states.pos - spawn) < 1e-3, axis=1)
            return states, (ts.reward, ts.step_type == 2, back)
        states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), BATCH))
        states, (rewards, last, back) = jax.lax.scan(step, states, custom.transpose(1, 0, 2))
        return rewards.T, last.T, back.T, states
    return env, go


def _lupa(values):
    """As DMLab runs custom_actions.lua for one episode of agent steps with custom ``values`` ([T][2]):
    per step until the episode ends, (reward, ended, map finished), and the play-time variables at the end."""
    loaded = load_script(SCRIPT)
    tab = Tabulator(loaded.sandbox, loaded.returned, str(SCRIPT), lambda name: None)
    tab.call("start", 0, 0)
    steps = []
    for t, v in enumerate(values):
        _, added, finished, _ = tab.call_recorded("customDiscreteActions", loaded.sandbox.table(list(v)))
        ended = any(bool(tab.call("hasEpisodeFinished", (t * REPEAT + f + 1) / 60)) for f in range(REPEAT))
        steps.append((added, ended, finished and not ended))
        if ended:
            break
    return steps, read_host_state(loaded, outline(str(SCRIPT), SCRIPT.read_text()))


def test_custom_actions_run_as_lupa_says(run):
    env, go = run
    assert env.custom_actions == tuple(SPEC)
    rng = np.random.default_rng(3)   # its draws finish maps 7 times and end 2 episodes with LEAVE past its max
    # values past the spec too (DMLab passes them as they are); mostly at rest, so episodes run a while
    custom = np.stack([rng.choice([0, 0, 0, 0, 0, -3, -2, 1, 3, 4], (BATCH, STEPS)),
                       rng.choice([0, 1, 2], (BATCH, STEPS), p=[.6, .35, .05])], -1)
    rewards, last, back, states = jax.device_get(go(jnp.asarray(custom, jnp.int32)))
    finishes = 0
    for b in range(BATCH):
        steps, final = _lupa(custom[b].tolist())
        n = len(steps)
        finishes += sum(s[2] for s in steps)
        assert rewards[b, :n].tolist() == [s[0] for s in steps], custom[b]
        assert last[b, :n].tolist() == [s[1] for s in steps], custom[b]
        assert back[b, :n].tolist() == [s[2] for s in steps], custom[b]
        assert (rewards[b, n:] == 0).all()
        device = {k: np.asarray(v)[b].tolist() for k, v in states.script["vars"].items()}
        assert device == {k: final[k] for k in device}
    assert finishes == 7


def test_spec_through_make_lab_and_discrete_actions(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXLAB_CACHE_DIR", str(tmp_path / "cache"))
    env = jaxlab.make(str(SCRIPT), observations=(), width=4, height=3)
    spec = env.action_spec()
    assert spec.shape == (9,) and spec.element_names == ACTION_NAMES + ("BONUS", "LEAVE")
    assert spec.minimum[7:].tolist() == [-2, 0] and spec.maximum[7:].tolist() == [3, 1]
    discrete = DiscreteActions(env)
    assert discrete.num_actions == 9 + 5 + 1   # IMPALA's nine, BONUS -2, -1, 1, 2, 3, LEAVE 1
    assert discrete.action_names[9:] == ("BONUS=-2", "BONUS=-1", "BONUS=1", "BONUS=2", "BONUS=3", "LEAVE=1")
    assert discrete.table[:9, 7:].tolist() == [[0, 0]] * 9 and discrete.table[11].tolist() == [0] * 7 + [1, 0]
    state, _ = discrete.reset(jax.random.PRNGKey(0))
    assert float(jax.jit(discrete.step)(state, 11)[1].reward) == 1.0

    lab = jaxlab.Lab(str(SCRIPT), [], {"width": "4", "height": "3"})
    assert lab.action_spec()[7:] == [{"name": "BONUS", "min": -2, "max": 3}, {"name": "LEAVE", "min": 0, "max": 1}]
    lab.reset(seed=1)
    assert lab.step(np.asarray([0] * 7 + [3, 0], np.intc)) == 3.0
    with pytest.raises(ValueError, match=r"'BONUS' \(element 7\).*\[-2, 3\]"):
        lab.step(np.asarray([0] * 7 + [4, 0], np.intc))
    with pytest.raises(ValueError, match=r"shape \(9,\)"):
        lab.step(np.zeros(7, np.intc))


BAD = {
    "no_name": ("{{min = 0, max = 1}}", "entry 1 is missing 'name = <string>'"),
    "no_max": ("{{name = 'A', min = 0}}", "action 'A' (entry 1) needs 'max = <integer>'"),
    "fraction": ("{{name = 'A', min = 0.5, max = 1}}", "action 'A' (entry 1) needs 'min = <integer>'"),
    "min_above_max": ("{{name = 'A', min = 2, max = 1}}", "action 'A' (entry 1) has min 2 > max 1"),
    "twice": ("{{name = 'A', min = 0, max = 1}, {name = 'A', min = 0, max = 2}}",
              "action 'A' (entry 2) is listed twice"),
    "built_in": ("{{name = 'FIRE', min = 0, max = 1}}", "action 'FIRE' (entry 1) is one of DMLab's built-in"),
    "not_a_list": ("'A'", "must return a list of {name = <string>"),
}
LEVEL = """local make_map = require 'common.make_map'
local api = {{}}
local count = 0
function api:nextMap() return make_map.makeMap{{mapName = 'bad', mapEntityLayer = '****\\n*P *\\n****'}} end
{spec}
{hook}
return api
"""
HOOK = "function api:customDiscreteActions(actions) count = count + actions[1] end"


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_specs_are_refused_naming_the_entry(tmp_path, case):
    spec, message = BAD[case]
    path = tmp_path / f"{case}.lua"
    path.write_text(LEVEL.format(spec=f"function api:customDiscreteActionSpec() return {spec} end", hook=HOOK))
    with pytest.raises(LuaScriptError, match="customDiscreteActionSpec: " + message.replace("(", r"\(")
                       .replace(")", r"\)").replace("{", r"\{")) as err:
        compile_in_process(path)
    assert err.value.path == str(path) and err.value.line == 5


def test_spec_without_the_callback_and_a_change_at_rest_are_refused(tmp_path):
    spec = "function api:customDiscreteActionSpec() return {{name = 'A', min = 0, max = 1}} end"
    path = tmp_path / "no_hook.lua"
    path.write_text(LEVEL.format(spec=spec, hook=""))
    with pytest.raises(LuaScriptError, match="no api:customDiscreteActions"):
        compile_in_process(path)
    path = tmp_path / "bumps.lua"
    path.write_text(LEVEL.format(spec=spec, hook="function api:customDiscreteActions(a) count = count + 1 end"))
    with pytest.raises(DeviceRejection, match=r"bumps.lua:6: api:customDiscreteActions changing local.count"):
        compile_in_process(path)

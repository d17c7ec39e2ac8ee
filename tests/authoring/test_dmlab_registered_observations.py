"""Custom observations a level registers with a decorator's table of functions (DMLab's
``decorators.custom_observations`` API: ``addSpec(name, type, shape, fn)``), compiled onto the device
(compile_lua.dmlab.registrations): each answer, step by step, is what the level's Lua computes in lupa for the
same player pose and the same engine answers, and a view rendered from the player's eye
(``game:renderCustomView``) is the player's own frame; the decorator's own observation stays tabulated."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from compile_lua.device.engine_reads import in_fov, raycast
from compile_lua.loading import load_script
from jaxlab.kernels.first_person.script import level_walls

LEVEL = Path(__file__).parent / "dmlab_playtime" / "registered_level" / "level.lua"
NAMES = ("IN_VIEW", "CLEARANCE", "POSE", "VIEW", "NOTE", "CLOCK", "RGB_INTERLEAVED")
#: the engine reads on the host: answers the test computes, looked up by the target (and field of view)
READS = """
return function(game, answers)
  rawset(game, 'inFov', function(_, from, to, angles, fov) return answers[fov .. ':' .. to[1] .. ',' .. to[2]] end)
  rawset(game, 'raycast', function(_, from, to) return answers[to[1] .. ',' .. to[2]] end)
end
"""


def _host_level(targets):
    """The level loaded in lupa, ``init`` and ``nextMap`` run and the map's ``targets`` given to
    ``updateSpawnVars`` in the compile's order: (sandbox, api, game module)."""
    loaded = load_script(LEVEL)
    sb, api = loaded.sandbox, loaded.returned
    sb.call_method(api, "init", sb.table({}))
    sb.call_method(api, "nextMap")
    for x, y, z in targets:
        sb.call_method(api, "updateSpawnVars", sb.table({"classname": "apple_reward", "origin": f"{x} {y} {z}"}))
    return sb, api, sb.require("dmlab.system.game")


def _host_answers(sb, api, game, pose, targets, walls):
    """IN_VIEW and CLEARANCE as the Lua computes them with the player at ``pose`` (x, y, z, pitch, yaw, roll)."""
    f = jnp.float32
    pos, angles = jnp.asarray(pose[:3], f), jnp.asarray(pose[3:], f)
    answers = {}
    for x, y, z in targets:
        end = jnp.asarray([x, y, z], f)
        answers[f"{x},{y}"] = float(raycast(*walls, pos, end))
        for fov in (90, 120):
            answers[f"{fov}:{x},{y}"] = bool(in_fov(pos, end, angles, fov))
    sb.lua.execute(READS)(game, sb.table(answers))
    game["_player"] = sb.table({"pos": [float(v) for v in pose[:3]], "angles": [float(v) for v in pose[3:]]})
    return {name: np.asarray(sb.to_python(sb.call_method(api, "customObservation", name)))
            for name in ("IN_VIEW", "CLEARANCE")}


def test_registered_observations_compile_and_match_the_lua_step_by_step():
    env = jaxlab.make(str(LEVEL), observations=NAMES, width=8, height=6, action_repeat=1)
    assert env.script.observes == ("CLOCK", "IN_VIEW", "CLEARANCE", "POSE", "VIEW")   # NOTE: the decorator's own
    targets = [tuple(int(v) for v in np.asarray(t).reshape(-1)) for t in env.script.starts["local.targets"]]
    assert targets == [(150, 250, 30), (550, 250, 30), (550, 150, 30)]
    sb, api, game = _host_level(targets)
    step = jax.jit(env.step)
    state, ts = jax.jit(env.reset)(jax.random.PRNGKey(3))
    turn = np.zeros(7, np.int32)
    seen = set()
    for i in range(8):
        obs = {k: np.asarray(v) for k, v in ts.observation.items()}
        assert bytes(obs["NOTE"]) == b"registered" and obs["CLOCK"][0] == pytest.approx(i / 60)
        pose = obs["POSE"]
        assert pose[:3].tolist() == pytest.approx(np.append(np.asarray(state.pos), state.z).tolist())
        host = _host_answers(sb, api, game, pose, targets, level_walls(env.level(state), state.door_open))
        assert obs["IN_VIEW"].dtype == np.uint8 and obs["IN_VIEW"].tolist() == host["IN_VIEW"].tolist()
        assert obs["CLEARANCE"].tolist() == pytest.approx(host["CLEARANCE"].tolist())
        assert obs["VIEW"].tolist() == obs["RGB_INTERLEAVED"].tolist()   # the view from the player's eye
        seen.add(tuple(obs["IN_VIEW"].tolist()))
        turn[:2] = 512, (-1) ** (i // 3) * 100   # turns right, past each target, looking up and down
        state, ts = step(state, jnp.asarray(turn))
    assert len(seen) > 2   # the targets came into and out of view

"""DMLab's INSTR of a compiled level (compile_lua.dmlab.instruction): a decorator's setter (an api function
written in another module) writes a local of its module that the decorator's customObservation('INSTR') reads;
a pickup that calls it changes INSTR as the level plays, checked against lupa running the same Lua."""
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.dmlab.instruction import CALLBACK
from compile_lua.errors import CompileWarning
from compile_lua.loading import load_script
from jaxlab.levels.dmlab.instructions import decode, encode_known

LEVEL = Path(__file__).parent / "dmlab_playtime" / "instruction_level" / "level.lua"


def _lupa_instructions(ids, spots):
    """INSTR after each frame as lupa gives it: ``pickup(id)`` when the player stands on a pickup not yet taken
    (``spots``: pickup index per frame, -1 at the spawn), then ``customObservation('INSTR')``."""
    loaded = load_script(LEVEL)
    api, sandbox = loaded.returned, loaded.sandbox
    sandbox.call_method(api, "start", 0, 0)
    sandbox.call_method(api, "nextMap")
    taken, out = set(), []
    for spot in spots:
        if spot >= 0 and spot not in taken:
            taken.add(spot)
            sandbox.call_method(api, "pickup", ids[spot])
        out.append(sandbox.call_method(api, "customObservation", "INSTR"))
    return out


def test_a_pickup_changes_the_instruction_through_a_decorators_setter_as_lupa_does():
    with pytest.warns(CompileWarning, match=r"INSTR cannot carry every word.*'Pick the apple' \(apple\)"):
        compiled = compile_in_process(LEVEL, episodes=1)
    device = compiled.meta["device"]
    assert {"pickup", CALLBACK} <= set(device["callbacks"])
    cells = [k for k in device["layout"] if k.startswith("upvalue.")]
    assert len(cells) == 1 and cells[0].endswith("instruction_channel.lua:current")
    assert decode(compiled.bank.levels.instr[0]) == "Pick the"   # the episode's start, tabulated

    env = jaxlab.make(str(LEVEL), observations=("INSTR",), width=4, height=3)
    levels = env.bank.levels
    places = jnp.concatenate([levels.spawn_pos[0, :1], levels.pickup_pos[0]])
    ids = env.script.pickup_ids[0].tolist()
    spots = [-1, 2, -1, 0, 0, 3, 1]

    def run(state):
        def one(state, spot):
            state, ts = env.step(state.replace(pos=places[spot + 1]), jnp.zeros(7, jnp.int32))
            return state, ts.observation["INSTR"]
        return jax.lax.scan(one, state, jnp.asarray(spots, jnp.int32))[1]

    state, first = env.reset(jax.random.PRNGKey(0))
    tokens = jax.device_get(jax.jit(run)(state))
    assert decode(first.observation["INSTR"]) == "Pick the"
    want = _lupa_instructions(ids, spots)
    assert want[0] == "Pick the apple" and len(set(want)) > 2   # lupa's instruction does change
    assert decode(tokens) == [decode(encode_known(text)[0]) for text in want]

"""DMLab's INSTR of a compiled level (compile_lua.dmlab.instruction): a decorator's setter (an api function
written in another module) writes a local of its module that the decorator's customObservation('INSTR') reads;
a pickup that calls it changes INSTR as the level plays, checked against lupa running the same Lua."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.dmlab.instruction import CALLBACK, instruction_rows
from compile_lua.errors import CompileWarning, LuaScriptError
from compile_lua.loading import load_script
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab.instructions import INSTRUCTION_LENGTH, VOCABULARY, decode, encode, level_words

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
    with pytest.warns(CompileWarning, match="setInstruction is not a DMLab callback"):
        compiled = compile_in_process(LEVEL, episodes=1)
    assert not [w for w in compiled.meta["warnings"] if "INSTR" in w]   # no word of INSTR is left out
    device = compiled.meta["device"]
    assert {"pickup", CALLBACK} <= set(device["callbacks"])
    cells = [k for k in device["layout"] if k.startswith("upvalue.")]
    assert len(cells) == 1 and cells[0].endswith("instruction_channel.lua:current")
    words = compiled.meta["instruction_words"]
    assert words == ["apple", "dax7"]   # the level's own words, after the vocabulary's
    assert compiled.bank.levels.instr[0, 2] == len(VOCABULARY)
    assert decode(compiled.bank.levels.instr[0], words) == "Pick the apple"   # the episode's start, tabulated
    with pytest.raises(ValueError, match=r"Level.instr token ids must lie in \[0, 68\]"):
        FirstPersonEnv(compiled.bank, observations=())   # without the level's words

    env = jaxlab.make(str(LEVEL), observations=("INSTR",), width=4, height=3)
    spec = env.observation_spec()["INSTR"]
    assert (spec.minimum, spec.maximum) == (0, len(VOCABULARY) + 1)   # the largest token id: 'dax7'
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
    want = _lupa_instructions(ids, spots)
    assert want[0] == "Pick the apple" and "Pick the dax7" in want and len(set(want)) > 2   # lupa's does change
    assert env.decode(first.observation["INSTR"]) == want[0]   # the start (no pickup at the spawn)
    assert env.decode(tokens) == want


def test_the_host_gives_a_compiled_levels_own_words_as_lupa_does():
    """``Lab.observations()["INSTR"]`` decodes the level's own words: at the start, and after walking onto the
    apple next to the spawn point."""
    env = jaxlab.make(str(LEVEL), observations=("INSTR",), width=4, height=3)
    levels, ids = env.bank.levels, env.script.pickup_ids[0].tolist()
    near = int(np.argmin(np.linalg.norm(np.asarray(levels.pickup_pos[0] - levels.spawn_pos[0, :1]), axis=1)))
    lab = jaxlab.Lab(str(LEVEL), ["INSTR"], {"width": "4", "height": "3"})
    lab.reset(seed=0)
    start = lab.observations()["INSTR"]
    for _ in range(40):
        if lab.observations()["INSTR"] != start:
            break
        lab.step(np.array([0, 0, 0, 1, 0, 0, 0], np.intc), num_steps=4)
    assert [start, lab.observations()["INSTR"]] == _lupa_instructions(ids, [-1, near])


def test_a_levels_own_words_follow_the_vocabulary_and_an_instruction_has_at_most_its_length():
    words = level_words(["Pick the dax?", "zup Pick the apple2"])
    assert words == ("dax", "zup")   # 'apple2' is the vocabulary's
    tokens = encode("zup the dax?", words)
    assert tokens[:4].tolist() == [len(VOCABULARY) + 1, VOCABULARY.index("the"), len(VOCABULARY), VOCABULARY.index("?")]
    assert decode(tokens, words) == "zup the dax?"
    with pytest.raises(ValueError, match="unknown instruction word 'dax'"):
        encode("dax")
    long = " ".join(["the"] * (INSTRUCTION_LENGTH - 1)) + " dax?"
    with pytest.raises(LuaScriptError, match=rf"level.lua:7: INSTR: instruction 'the the .* has {INSTRUCTION_LENGTH + 1} tokens"):
        instruction_rows([long], words, "level.lua", 7)

"""DMLab-30's language levels: the instruction is true of every generated episode (10,000 per level,
one batched call each), and taking objects pays as DMLab's reward controllers say."""
from __future__ import annotations

import collections
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.levels.dmlab.dmlab30.language import GENERATORS
from jaxlab.levels.dmlab.language_objects import LANGUAGE_SHAPES
from first_person.language_reading import (batch_to_numpy, floor_colours, instruction, level_at, reachable,
                                                 things)

EPISODES = 10_000
SHAPES = set(LANGUAGE_SHAPES)


@pytest.fixture(scope="module")
def started():
    """name -> (env, states, first TimeSteps) of EPISODES episodes of the level (INSTR only, 8x6 pixels),
    reset in one batched call made once for the module: the instruction checks read every episode, the
    taking tests play the first few (one compile of the level's episode draw for both)."""
    made = {}

    def get(name):
        if name not in made:
            env = jaxlab.make("contributed/dmlab30/" + name, observations=("INSTR",), width=8, height=6)
            made[name] = (env, *jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(11), EPISODES)))
        return made[name]

    return get


def _first(tree, n: int):
    return jax.tree_util.tree_map(lambda a: a[:n], tree)


@pytest.fixture(scope="module", params=sorted(GENERATORS))
def drawn(request, started):
    """(name, the EPISODES levels of ``started`` as numpy)."""
    return request.param, batch_to_numpy(started(request.param)[1].episode_level)


def _penalty(total, distractors) -> float:
    return -math.floor(total / distractors + 0.5)


def _matches(thing, words) -> bool:
    """The thing fits a description of shape and/or colour words."""
    return all(w in (thing.shape, thing.colour) for w in words if w not in ("object",))


def _check_described(level, objs, text):
    assert len(objs) == 2 and text in SHAPES
    goal, = [o for o in objs if o.reward == 10.0]
    other, = [o for o in objs if o.reward == -10.0]
    assert goal.shape == text and other.shape != text and goal.goal and other.goal


def _check_located(level, objs, text):
    words = text.split()
    assert words[:2] == ["Pick", "the"] and words[3:6] == ["object", "in", "the"] and words[7] == "room"
    colour, floor = words[2], words[6]
    floors = floor_colours(level)
    assert len(set(floors.values())) == len(floors)            # every room its own floor colour
    named = [o for o in objs if o.colour == colour and floors[o.room] == floor]
    assert len(named) == 1 and named[0].reward == 10.0        # the located object is in the named room
    rest = [o for o in objs if o is not named[0]]
    assert all(o.reward == _penalty(10, len(rest)) for o in rest) and all(o.goal for o in objs)


def _check_quantitative(level, objs, text):
    yes, = [o for o in objs if o.takeable and o.colour == "white" and o.shape == "ball"]
    no, = [o for o in objs if o.takeable and o.colour == "black" and o.shape == "ball"]
    shown = [o for o in objs if not o.takeable]
    assert {o.room for o in shown} <= {4} and yes.room == 1 and no.room == 2 and yes.reward == -no.reward
    words = text.rstrip("?").split()
    if words[:2] == ["Are", "all"]:
        shape, colour = words[2], words[4]
        truth = all(o.colour == colour for o in shown if o.shape == shape) and any(o.shape == shape for o in shown)
    elif words[:2] == ["Is", "any"]:
        truth = any(o.shape == words[2] and o.colour == words[3] for o in shown)
    elif words[:2] == ["Is", "anything"]:
        truth = any(o.colour == words[2] for o in shown)
    else:
        assert words[:2] == ["Are", "most"]
        shape, colour = words[2], words[4]
        truth = (sum(o.shape == shape and o.colour == colour for o in shown)
                 > sum(o.shape == shape and o.colour != colour for o in shown))
    assert yes.reward == (10.0 if truth else -10.0)
    return words[0] + " " + words[1], truth


def _near(objs, first, second):
    """The objects fitting ``first`` with another object fitting ``second`` in their room."""
    return [o for o in objs if _matches(o, first)
            and any(p is not o and p.room == o.room and _matches(p, second) for p in objs)]


def _check_execute(level, objs, text):
    words = text.split()
    goal = [o for o in objs if o.reward == 10.0]
    if words[0] == "Every":
        named = words[1:2]
        fits = [o for o in objs if _matches(o, named)]
        assert len(fits) >= 2 and all(o.reward == 1.0 and o.counted and not o.goal for o in fits)
        rest = [o for o in objs if o not in fits]
        assert rest and all(o.reward == _penalty(len(fits) + 10, len(rest)) and o.goal for o in rest)
        assert level.end_after_pickups == len(fits) and level.counted_bonus == 10.0
        return "every"
    assert len(goal) == 1 and all(o.goal for o in objs)
    rest = [o for o in objs if o is not goal[0]]
    assert all(o.reward == _penalty(10, len(rest)) for o in rest)
    if "near" in words:
        at = words.index("near")
        assert _near(objs, words[:at], words[at + 1:]) == goal
        return "near"
    assert _matches(goal[0], words) and not any(_matches(o, words) for o in rest)
    return "pick"


CHECKS = {"language_select_described_object": _check_described, "language_select_located_object": _check_located,
          "language_answer_quantitative_question": _check_quantitative,
          "language_execute_random_task": _check_execute}


def test_the_instruction_is_true_of_every_generated_episode(drawn):
    name, batch = drawn
    tally = collections.Counter()
    for i in range(EPISODES):
        level = level_at(batch, i)
        objs = things(level)
        text = instruction(level)
        assert text, f"episode {i}: no instruction"
        seen = reachable(level)
        assert all(seen[o.cell] for o in objs if o.takeable), f"episode {i}: an object out of reach"
        tally[CHECKS[name](level, objs, text)] += 1
    if name == "language_answer_quantitative_question":
        # DMLab draws the counts so that each question is about as often true as false ("most": 4 of 8)
        for question in ("Are all", "Is any", "Is anything", "Are most"):
            yes, no = tally[(question, True)], tally[(question, False)]
            assert yes + no > EPISODES / 5 and 0.35 < yes / (yes + no) < 0.65, (question, yes, no)
    if name == "language_execute_random_task":
        # the table's weights: pick 8, every 6, near 5 of 19
        share = {k: v / EPISODES for k, v in tally.items()}
        assert abs(share["pick"] - 8 / 19) < 0.03 and abs(share["every"] - 6 / 19) < 0.03
        assert abs(share["near"] - 5 / 19) < 0.03


def _take(env, state, target):
    """One step with the player put on ``target`` (float32[2] units), standing still."""
    state = state.replace(pos=jnp.asarray(target, jnp.float32), vel=jnp.zeros(2, jnp.float32))
    return env.step(state, jnp.zeros(7, jnp.int32))


@pytest.mark.parametrize("name", ["language_select_described_object", "language_select_located_object",
                                  "language_answer_quantitative_question"])
def test_the_right_object_pays_and_a_wrong_one_costs_then_a_new_task(name, started):
    env, states, _ = started(name)
    states = _first(states, 8)
    levels = batch_to_numpy(states.episode_level)
    targets, expected = [], []
    for i in range(8):
        level = level_at(levels, i)
        objs = [o for o in things(level) if o.takeable]
        pick = objs[i % len(objs)]   # the right object in some envs, a wrong one in others
        n = int(np.flatnonzero(level.pickup_valid & level.pickup_takeable)[i % len(objs)])
        targets.append(level.pickup_pos[n])
        expected.append(pick.reward)
    after, ts = jax.jit(jax.vmap(lambda s, t: _take(env, s, t)))(states, jnp.asarray(np.stack(targets)))
    np.testing.assert_array_equal(np.asarray(ts.reward), np.asarray(expected, np.float32))
    assert (np.asarray(ts.reward) > 0).any() and (np.asarray(ts.reward) < 0).any()
    # the task ended: a newly drawn one, the episode going on
    assert not np.asarray(ts.last()).any()
    before, now = np.asarray(states.episode_level.pickup_kind), np.asarray(after.episode_level.pickup_kind)
    assert (before != now).any(axis=1).all()


def test_execute_random_task_counts_every_object_and_restarts_on_any_pickup(started):
    env, states, ts0 = started("language_execute_random_task")
    states, ts0 = _first(states, 64), _first(ts0, 64)
    levels = batch_to_numpy(states.episode_level)
    every = [i for i in range(64) if instruction(level_at(levels, i)).startswith("Every")]
    assert len(every) >= 4
    take = jax.jit(lambda s, t: _take(env, s, t))
    i = every[0]
    state = jax.tree_util.tree_map(lambda a: a[i], states)
    level = level_at(levels, i)
    counted = np.flatnonzero(level.pickup_valid & level.pickup_counts)
    rewards = []
    for n in counted:
        state, ts = take(state, level.pickup_pos[n])
        rewards.append(float(ts.reward))
    # every object of the named shape or colour pays 1; the last one also the bonus, and the task restarts
    assert rewards == [1.0] * (len(counted) - 1) + [11.0]
    assert (np.asarray(state.episode_level.pickup_kind) != level.pickup_kind).any()
    assert int(state.pickups_taken) == 0
    # a distractor ends the task at once with its penalty
    j = every[1]
    state = jax.tree_util.tree_map(lambda a: a[j], states)
    level = level_at(levels, j)
    wrong = np.flatnonzero(level.pickup_valid & ~level.pickup_counts)[0]
    state, ts = take(state, level.pickup_pos[wrong])
    assert float(ts.reward) == level.pickup_reward[wrong] < 0
    assert (np.asarray(state.episode_level.pickup_kind) != level.pickup_kind).any()
    # INSTR says the new task's instruction
    assert env.decode(ts.observation["INSTR"]) == instruction(level_at(batch_to_numpy(
        jax.tree_util.tree_map(lambda a: a[None], state.episode_level)), 0))
    texts = [env.decode(ts0.observation["INSTR"][k]) for k in range(64)]
    assert len(set(texts)) > 32


def test_instruction_tokens_outside_the_vocabulary_are_refused():
    from jaxlab.levels.dmlab.instructions import VOCABULARY, compose, decode

    with pytest.raises(ValueError, match="token ids must lie in"):
        decode(np.asarray([1, len(VOCABULARY)]))
    with pytest.raises(jaxlab.UnknownNameError, match="'hat'"):
        compose(["Pick the", "hatt"])
    assert decode(np.asarray(compose(["Is anything", 3, "?"]))) == "Is anything " + VOCABULARY[3] + "?"

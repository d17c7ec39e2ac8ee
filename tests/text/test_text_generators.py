"""The seeded text-quest generators (``jaxlab.levels.text.generators``).

Every family, every level band and setting: the specs compile, and every
walkthrough wins when played by the jnp kernel, all games at once in one
jitted, vmapped scan over a bank. Plus: determinism per seed, variety
across seeds, option errors, well-formed worlds (no constraint of the
house logic broken) and each family's own facts.
"""
from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxlab.bank import Bank
from jaxlab.errors import UnknownNameError
from jaxlab.levels.text.generators import FAMILIES, family_options, make_spec, theme
from jaxlab.levels.text.generators import coin_collector, simple, treasure_hunter
from jaxlab.levels.text.logic_text import parse_logic
from jaxlab.text import compile_spec
from text_play import play

COIN_LEVELS = (1, 2, 9, 37, 100, 101, 103, 150, 200, 201, 202, 240)
HUNTER_LEVELS = (1, 4, 7, 10, 11, 14, 17, 20, 21, 24, 27, 30)
SIMPLE = [(r, g, t) for r in simple.REWARDS for g in simple.GOALS for t in (False, True)]
CUSTOM = [dict(), dict(world_size=1, nb_objects=3, quest_length=3), dict(world_size=2, nb_objects=2, quest_length=1),
          dict(world_size=4, nb_objects=8, quest_length=6, quest_breadth=2),
          dict(world_size=8, nb_objects=16, quest_length=9, quest_breadth=3),
          dict(world_size=12, nb_objects=20, quest_length=12), dict(world_size=6, nb_objects=30, quest_length=4)]


def _run(specs, commands):
    """Compile ``specs`` and play ``commands[i]`` in game i, all in one scan.

    Returns numpy ``(won, lost, score, moves)`` per game and step, and ``max_score`` per game.
    """
    compiled = [compile_spec(s) for s in specs]
    ids = np.full((len(specs), max(len(c) for c in commands)), -1, np.int32)
    for row, ((_, info), played) in enumerate(zip(compiled, commands)):
        ids[row, :len(played)] = [info.command_id(c) for c in played]
        missing = [c for c, i in zip(played, ids[row]) if i < 0]
        assert not missing, (specs[row].name, missing)
    bank = Bank.stack([g for g, _ in compiled])
    out = jax.device_get(play(bank, np.arange(len(specs), dtype=np.int32), ids))
    return (out["won"], out["lost"], out["score"], out["moves"]), out["max_score"]


def _all_specs():
    specs = [make_spec("tw-coin_collector", 7 * i, level=lv) for i, lv in enumerate(COIN_LEVELS)]
    specs += [make_spec("tw-treasure_hunter", seed, level=lv) for i, lv in enumerate(HUNTER_LEVELS)
              for seed in (3 * i + 1, 1000 + i)]
    specs += [make_spec("tw-simple", i, rewards=r, goal=g, test=t) for i, (r, g, t) in enumerate(SIMPLE)]
    specs += [make_spec("tw-custom", 11 + i, **opts) for i, opts in enumerate(CUSTOM)]
    specs += [make_spec("tw-custom", 500 + seed, world_size=2 + seed % 6, nb_objects=5 + seed % 9,
                        quest_length=1 + seed % 6, quest_breadth=1 + (seed % 6 > 2)) for seed in range(6)]
    specs += [make_spec("tw-cooking", 600 + seed, recipe=1 + seed, take=seed, go=(1, 6, 9, 12)[seed], open=True,
                        cook=True, cut=seed > 0) for seed in range(4)]   # every option: test_text_cooking
    return specs


def test_every_walkthrough_wins_in_one_batched_scan():
    specs = _all_specs()
    assert {"-".join(s.name.split("-")[:2]) for s in specs} == set(FAMILIES)
    assert all(s.walkthrough for s in specs)
    (won, lost, score, moves), max_score = _run(specs, [s.walkthrough for s in specs])
    for row, spec in enumerate(specs):
        n = len(spec.walkthrough)
        where = spec.name
        assert not won[row, 0] and not lost[row, 0], f"{where}: decided before any command"
        assert not won[row, :n].any(), f"{where}: won before the walkthrough's last command"
        assert won[row, n] and not lost[row, :n + 1].any(), where
        assert score[row, n] == max_score[row] > 0, (where, score[row, n], max_score[row])
        assert (np.diff(score[row, :n + 1]) >= 0).all(), where
        assert moves[row, n] == n, f"{where}: some walkthrough command was not admissible"


def test_same_seed_same_spec_and_seeds_vary():
    cases = [("tw-coin_collector", dict(level=150)), ("tw-treasure_hunter", dict(level=25)),
             ("tw-simple", dict(rewards="balanced", goal="brief")), ("tw-custom", dict(quest_length=4))]
    for family, opts in cases:
        assert make_spec(family, 5, **opts) == make_spec(family, 5, **opts), family
        worlds = {(make_spec(family, seed, **opts).facts, make_spec(family, seed, **opts).walkthrough)
                  for seed in range(5)}
        assert len(worlds) >= 4, f"{family}: seeds 0-4 give only {len(worlds)} different games"


def test_option_errors():
    with pytest.raises(UnknownNameError, match="tw-coin_collector") as err:
        make_spec("tw-coin_colector")
    assert isinstance(err.value, ValueError)
    with pytest.raises(UnknownNameError, match="Did you mean 'level'"):
        make_spec("tw-treasure_hunter", levle=3)
    with pytest.raises(UnknownNameError, match="Did you mean 'quest_length'"):
        make_spec("tw-custom", quest_lenght=3)
    for family, bad, span in [("tw-coin_collector", 0, "1..300"), ("tw-coin_collector", 301, "1..300"),
                              ("tw-treasure_hunter", 31, "1..30"), ("tw-treasure_hunter", 2.5, "1..30")]:
        with pytest.raises(ValueError, match=f"level must be an integer in {span}"):
            make_spec(family, level=bad)
    with pytest.raises(UnknownNameError, match="Did you mean 'sparse'"):
        make_spec("tw-simple", rewards="sparce")
    with pytest.raises(ValueError, match="test must be True or False"):
        make_spec("tw-simple", test="yes")
    with pytest.raises(UnknownNameError, match="theme value 'space'.*Known: house"):
        make_spec("tw-custom", theme="space")
    with pytest.raises(ValueError, match="world_size must be an integer in 1..30"):
        make_spec("tw-custom", world_size=0)
    with pytest.raises(ValueError, match="quest_breadth must be in 1..quest_length"):
        make_spec("tw-custom", quest_length=2, quest_breadth=3)
    with pytest.raises(ValueError, match="seed must be an integer"):
        make_spec("tw-simple", seed=-1)
    assert family_options("tw-simple") == {"rewards": "dense", "goal": "detailed", "test": False}
    assert set(FAMILIES) == {"tw-coin_collector", "tw-treasure_hunter", "tw-simple", "tw-custom", "tw-cooking"}


# -- well-formed worlds (host only) --------------------------------------------

def _violations(spec):
    """Constraints of the spec's logic that its initial facts break: [(constraint, binding)]."""
    logic = parse_logic(spec.logic)
    types = dict(spec.entity_types)
    by_name = {}
    for name, args in spec.facts:
        by_name.setdefault(name, []).append(args)
    out = []

    def search(constraint, preds, binding):
        if not preds:
            out.append((constraint, binding))
            return
        pred = preds[0]
        for args in by_name.get(pred.name, ()):
            new = dict(binding)
            for ph, ent in zip(pred.params, args):
                if new.get(ph.name, ent) != ent or (ph.name not in new and (
                        ent in new.values() or types[ent] not in logic.subtypes(ph.type))):
                    break
                new[ph.name] = ent
            else:
                if len(args) == len(pred.params):
                    search(constraint, preds[1:], new)

    for name, rule in logic.constraints.items():
        search(name, rule.pre, {})
    return out


FAMILY_OPTIONS = st.one_of(
    st.tuples(st.just("tw-coin_collector"), st.builds(dict, level=st.integers(1, 300))),
    st.tuples(st.just("tw-treasure_hunter"), st.builds(dict, level=st.integers(1, 30))),
    st.tuples(st.just("tw-simple"), st.builds(dict, rewards=st.sampled_from(simple.REWARDS),
                                              goal=st.sampled_from(simple.GOALS), test=st.booleans())),
    st.tuples(st.just("tw-custom"), st.builds(dict, world_size=st.integers(2, 10), nb_objects=st.integers(5, 20),
                                              quest_length=st.integers(1, 5), quest_breadth=st.integers(1, 2))),
    st.tuples(st.just("tw-cooking"), st.builds(dict, recipe=st.integers(1, 5), go=st.sampled_from((1, 6, 9, 12)),
                                               open=st.booleans(), cook=st.booleans(), cut=st.booleans())),
)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(FAMILY_OPTIONS, st.integers(0, 2**31))
def test_worlds_are_well_formed(case, seed):
    family, opts = case
    if opts.get("quest_breadth", 1) > opts.get("quest_length", 1):
        opts["quest_breadth"] = 1
    spec = make_spec(family, seed, **opts)
    assert not _violations(spec), (spec.name, _violations(spec)[:3])
    ids = {e for _, args in spec.facts for e in args}
    assert ids <= set(spec.entity_types), spec.name
    for ident, kind in spec.entity_types.items():
        assert ident in ("P", "I") or ident.startswith(kind + "_"), ident
    named = [n for n in spec.entity_names.values() if n is not None]
    assert len(named) == len(set(named)), f"{spec.name}: two entities share a name"
    assert spec.name.startswith(family) and spec.name.endswith(f"seed{seed}")


def test_constraint_check_sees_a_broken_world():
    spec = make_spec("tw-treasure_hunter", 0, level=15)
    assert not _violations(spec)
    thing = next(e for e, t in spec.entity_types.items() if t in ("o", "k", "f"))
    twice = dataclasses.replace(spec, facts=spec.facts + (("in", (thing, "I")),))  # held and lying somewhere
    assert [name for name, _ in _violations(twice)] in (["carried_and_boxed"], ["carried_and_shelved"],
                                                        ["carried_and_lying"])


# -- each family's own facts ---------------------------------------------------

def _rooms(spec):
    return [e for e, t in spec.entity_types.items() if t == "r"]


def test_coin_collector_facts():
    for level in (1, 5, 99, 100, 101, 160, 201, 233, 300):
        spec = coin_collector.make(level, level=level)
        length = (level - 1) % 100 + 1
        assert len(spec.walkthrough) == length and spec.walkthrough[-1] == "take coin"
        assert all(c.startswith("go ") for c in spec.walkthrough[:-1])
        assert len(_rooms(spec)) == length * (1 + (level - 1) // 100)
        assert [e for e, t in spec.entity_types.items() if t not in ("r", "P", "I")] == ["o_0"]
        assert not any(name in ("link", "locked", "closed") for name, _ in spec.facts)


def test_treasure_hunter_facts():
    for first, last, rooms in ((1, 10, 5), (11, 20, 10), (21, 30, 20)):
        lengths = [treasure_hunter.quest_length(lv) for lv in range(first, last + 1)]
        assert lengths == sorted(lengths) and lengths[0] < lengths[-1]
        for level in range(first, last + 1, 3):
            spec = treasure_hunter.make(level, level=level)
            kinds = [t for t in spec.entity_types.values()]
            facts = {name for name, _ in spec.facts}
            assert len(_rooms(spec)) == rooms and len(spec.walkthrough) == lengths[level - first]
            (target,) = [args[0] for n, args in spec.quests[0].win_events[0].condition if n == "in" and args[1] == "I"]
            assert spec.entity_names[target] in spec.objective and spec.walkthrough[-1].startswith(
                f"take {spec.entity_names[target]}")
            if rooms == 5:
                assert "d" not in kinds and "c" not in kinds and "s" not in kinds
            elif rooms == 10:
                assert "d" in kinds and "locked" not in facts and "unlock" not in " ".join(spec.walkthrough)
            else:
                assert "locked" in facts and "match" in facts and "k" in kinds
    hard = [treasure_hunter.make(seed, level=28) for seed in range(6)]
    assert sum(c.startswith("unlock") for s in hard for c in s.walkthrough) >= 3


def test_taking_the_wrong_object_loses_and_eating_the_food_loses():
    """Walk to the treasure hunter's wrong object and take it; fetch tw-simple's food and eat it."""
    specs, commands = [], []
    for seed, level in enumerate((3, 8, 12, 19)):
        spec = treasure_hunter.make(seed, level=level)
        (wrong,) = [args[0] for ev in spec.quests[0].fail_events for name, args in ev.condition if name == "in"]
        walker = _walker(spec)
        walker.travel(_room_of(spec, wrong))
        walker.take(wrong)
        specs.append(spec)
        commands.append(walker.commands)
    food_spec = make_spec("tw-simple", 4, rewards="sparse")
    (food,) = [args[0] for q in food_spec.quests for ev in q.fail_events for name, args in ev.condition]
    taken = food_spec.walkthrough.index(next(c for c in food_spec.walkthrough if c.startswith(
        f"take {food_spec.entity_names[food]}")))
    specs.append(food_spec)
    commands.append(list(food_spec.walkthrough[:taken + 1]) + [f"eat {food_spec.entity_names[food]}"])
    (won, lost, _, moves), _ = _run(specs, commands)
    for row, (spec, played) in enumerate(zip(specs, commands)):
        n = len(played)
        assert moves[row, n] == n, (spec.name, played)
        assert lost[row, n] and not lost[row, n - 1] and not won[row, n], (spec.name, played)


def test_simple_rewards_goals_and_held_out_food():
    counts = {}
    for rewards in simple.REWARDS:
        spec = make_spec("tw-simple", 2, rewards=rewards)
        counts[rewards] = sum(1 for q in spec.quests if q.win_events)
    assert counts["sparse"] == 1 and counts["balanced"] == 3 and counts["dense"] > counts["balanced"]
    for test, words in ((False, theme.FOODS), (True, theme.TEST_FOODS)):
        for seed in range(4):
            spec = make_spec("tw-simple", seed, test=test)
            foods = [spec.entity_names[e] for e, t in spec.entity_types.items() if t == "f"]
            assert foods and set(foods) <= set(words)
    assert not set(theme.FOODS) & set(theme.TEST_FOODS)
    detailed, brief, silent = (make_spec("tw-simple", 1, goal=g) for g in simple.GOALS)
    assert silent.objective == "" and brief.objective.count(".") < 4
    assert detailed.objective.count(".") >= len(detailed.walkthrough)
    food = detailed.quests[-1].fail_events[0].condition[0][1][0]
    assert detailed.entity_names[food] in brief.objective


def test_custom_sizes():
    for seed, (size, count, length, breadth) in enumerate([(3, 6, 4, 1), (7, 12, 8, 2), (10, 25, 10, 3)]):
        spec = make_spec("tw-custom", seed, world_size=size, nb_objects=count, quest_length=length,
                         quest_breadth=breadth)
        things = [e for e, t in spec.entity_types.items() if t in ("c", "s", "o", "k", "f")]
        assert len(_rooms(spec)) == size and len(things) == count and len(spec.walkthrough) == length
        assert len(spec.quests) == 1 and len(spec.quests[0].win_events[0].plan) == length


def _walker(spec):
    from jaxlab.levels.text.generators.plays import Walker

    return Walker(parse_logic(spec.logic), spec.facts, spec.entity_types, spec.entity_names)


def _room_of(spec, thing):
    where = {args[0]: args[1] for name, args in spec.facts if name in ("at", "in", "on")}
    while spec.entity_types[where[thing]] != "r":
        thing = where[thing]
    return where[thing]


# -- TextWorld agrees ------------------------------------------------------------

def _textworld_json(spec):
    """The spec as a TextWorld game file's JSON (world, quests with their plans, infos, logic)."""

    def fact(f):
        return {"name": f[0], "arguments": [{"name": e, "type": spec.entity_types[e]} for e in f[1]]}

    def event(ev):
        actions = [{"name": "step", "preconditions": [fact(f) for f in pre],
                    "postconditions": [fact(f) for f in pre + add]} for pre, add in ev.plan]
        return {"commands": [], "actions": actions,
                "condition": {"name": "goal", "preconditions": [fact(f) for f in ev.condition], "postconditions": []}}

    quests = [{"desc": "", "reward": q.reward, "commands": [], "optional": q.optional, "repeatable": q.repeatable,
               "win_events": [event(e) for e in q.win_events], "fail_events": [event(e) for e in q.fail_events]}
              for q in spec.quests]
    infos = [[e, {"id": e, "type": t, "name": spec.entity_names.get(e)}] for e, t in spec.entity_types.items()]
    return {"version": 1, "world": [fact(f) for f in spec.facts], "grammar": {}, "quests": quests, "infos": infos,
            "KB": {"logic": spec.logic, "text_grammars_path": ""}, "metadata": {"walkthrough": list(spec.walkthrough)},
            "objective": spec.objective}


def test_textworld_plays_the_generated_games_the_same():
    """TextWorld's own engine, given our logic and worlds, admits every walkthrough command and ends won."""
    textworld = pytest.importorskip("textworld")
    from textworld.generator.game import GameProgression
    from textworld.generator.inform7 import Inform7Game

    cases = [("tw-coin_collector", dict(level=130)), ("tw-treasure_hunter", dict(level=5)),
             ("tw-treasure_hunter", dict(level=16)), ("tw-treasure_hunter", dict(level=29)),
             ("tw-simple", dict(rewards="dense")), ("tw-simple", dict(rewards="balanced", test=True)),
             ("tw-custom", dict(quest_length=6, quest_breadth=2)), ("tw-custom", dict(world_size=8, quest_length=9))]
    for seed, (family, opts) in enumerate(cases):
        spec = make_spec(family, seed, **opts)
        game = textworld.Game.deserialize(_textworld_json(spec))
        progression, inform7 = GameProgression(game), Inform7Game(game)
        assert not progression.completed, spec.name
        for command in spec.walkthrough:
            texts = inform7.gen_commands_from_actions(progression.valid_actions)
            assert command in texts, (spec.name, command, sorted(texts))
            progression.update(progression.valid_actions[texts.index(command)])
        assert progression.completed and not progression.failed, spec.name
        assert progression.score == game.max_score == sum(q.reward for q in spec.quests), spec.name


def test_house_logic_has_textworld_rules():
    """house.twl is our own text, but its rules, commands and reverse rules mean what TextWorld's house logic means."""
    pytest.importorskip("textworld")
    from textworld.generator.data import KnowledgeBase

    theirs = parse_logic(KnowledgeBase.default().logic.serialize())
    ours = parse_logic(make_spec("tw-custom").logic)

    def meaning(logic, name):
        rule = logic.rules[name]
        as_set = lambda preds: frozenset((p.name, tuple((x.name, x.type) for x in p.params)) for p in preds)  # noqa
        return as_set(rule.pre), as_set(rule.post), logic.commands[name], logic.reverse_rules.get(name)

    assert set(ours.rules) == set(theirs.rules)
    for name in theirs.rules:
        assert meaning(ours, name) == meaning(theirs, name), name

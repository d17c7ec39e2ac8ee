"""Differential tests of jaxlab.text against the ``textworld`` package.

Games are generated with textworld's Python API (coin collector, treasure
hunter at easy/medium/hard levels, tw-simple, custom games, and a few
hand-built food quests that exercise losing; tw-cooking has its own 80 games
in ``test_text_cooking_textworld``), saved as JSON, imported with
``load_textworld`` and played in both: along the walkthrough and along a
seeded random walk that also plays inadmissible commands and keeps going
after the game is won or lost. At every step the admissible-command set,
score, won, lost and moves must agree. jaxlab runs all episodes at once in
one jitted scan over a padded bank.
"""
from __future__ import annotations

import chex
import jax
import numpy as np
import pytest

textworld = pytest.importorskip("textworld")

from textworld.generator import QuestGenerationError, make_game  # noqa: E402
from textworld.generator.game import GameOptions  # noqa: E402

from jaxlab.bank import Bank  # noqa: E402
from jaxlab.kernels.text import kernel  # noqa: E402
from jaxlab.text import TextEnv, load_textworld, load_textworld_bank  # noqa: E402
from jaxlab.wrappers import AutoReset  # noqa: E402
from textworld_reference import assert_plays_alike, make_challenge_game, textworld_episode  # noqa: E402

COIN_LEVELS = (1, 2, 3, 5, 8, 13, 21, 34, 55, 64, 101, 110, 130, 150, 201, 225)   # (100: a 100-room path costs TextWorld 20 s)
HUNTER_LEVELS = (1, 3, 5, 7, 10, 11, 13, 15, 17, 20, 21, 22, 23, 24)
SIMPLE = (("dense", "detailed"), ("dense", "none"), ("balanced", "brief"), ("balanced", "detailed"),
          ("sparse", "none"), ("sparse", "brief"))
NUM_CUSTOM = 14
RANDOM_STEPS = 25


def _challenge(name, settings, seed, path):
    make_challenge_game(name, settings, seed).save(str(path))


def _custom(seed, path) -> bool:
    options = GameOptions()
    options.seeds = seed
    options.nb_rooms = 2 + seed % 5
    options.nb_objects = 6 + seed % 9
    length = 1 + seed % 5
    options.chaining.min_length = options.chaining.max_length = options.chaining.max_depth = length
    try:
        game = make_game(options)
    except QuestGenerationError:
        return False
    game.save(str(path))
    return True


def _quest_from_commands(game, commands):
    """A one-event quest whose plan is ``commands`` (TextWorld's actions, found without compiling)."""
    from textworld.generator.game import Event, GameProgression, Quest
    from textworld.generator.inform7 import Inform7Game

    progression, inform7, actions = GameProgression(game, track_quests=False), Inform7Game(game), []
    for command in commands:
        texts = inform7.gen_commands_from_actions(progression.valid_actions)
        action = progression.valid_actions[texts.index(command)]
        progression.update(action)
        actions.append(action)
    return Quest(win_events=[Event(actions)])


def _food_games(folder):
    """Hand-built quests whose food can be eaten: TextWorld makes them unfinishable (lost)."""
    from textworld import GameMaker

    plans = [["take apple", "go east", "put apple on table"],
             ["open chest", "take apple", "insert apple into chest"],
             ["take apple", "take pear", "go east", "put pear on table", "put apple on table"],
             ["open chest", "take apple", "insert apple into chest", "take apple from chest", "go east",
              "put apple on table"]]
    paths = []
    for i, commands in enumerate(plans):
        maker = GameMaker()
        kitchen, den = maker.new_room("kitchen"), maker.new_room("den")
        maker.connect(kitchen.east, den.west)
        maker.set_player(kitchen)
        table = maker.new(type="s", name="table")
        den.add(table)
        chest = maker.new(type="c", name="chest")
        kitchen.add(chest)
        maker.add_fact("closed", chest)
        for name in ("apple", "pear"):
            food = maker.new(type="f", name=name)
            kitchen.add(food)
            maker.add_fact("edible", food)
        maker.quests = [_quest_from_commands(maker.build(), commands)]
        path = folder / f"food_{i}.json"
        maker.build().save(str(path))
        paths.append(("food", path))
    return paths


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """[(family, path)]: at least 50 generated games, each from its own seed."""
    folder = tmp_path_factory.mktemp("textworld_games")
    out = []
    for level in COIN_LEVELS:
        path = folder / f"coin_{level}.json"
        _challenge("tw-coin_collector", {"level": level}, 100 + level, path)
        out.append(("coin_collector", path))
    for level in HUNTER_LEVELS:
        path = folder / f"hunter_{level}.json"
        _challenge("tw-treasure_hunter", {"level": level}, 200 + level, path)
        out.append(("treasure_hunter", path))
    for i, (rewards, goal) in enumerate(SIMPLE):
        path = folder / f"simple_{rewards}_{goal}.json"
        _challenge("tw-simple", {"rewards": rewards, "goal": goal, "test": False}, 300 + i, path)
        out.append(("simple", path))
    seed, made = 400, 0
    while made < NUM_CUSTOM:
        path = folder / f"custom_{seed}.json"
        made += _custom(seed, path)
        if path.exists():
            out.append(("custom", path))
        seed += 1
    out += _food_games(folder)
    return out


def test_differential_against_textworld(games):
    families = {}
    for family, _ in games:
        families[family] = families.get(family, 0) + 1
    assert len(games) - families.get("food", 0) >= 50, families
    bank, infos = load_textworld_bank([path for _, path in games])

    episodes = []  # (game index, kind, commands, records)
    for g, (family, path) in enumerate(games):
        walkthrough = list(infos[g].walkthrough)
        assert walkthrough, path
        played, records = textworld_episode(path, commands=walkthrough)
        assert records[-1][2], f"{path}: TextWorld's walkthrough does not win"
        episodes.append((g, "walkthrough", played, records))
        steps = RANDOM_STEPS * (3 if family == "food" else 1)
        played, records = textworld_episode(path, steps=steps, seed=1000 + g, invalid_ids=infos[g].commands)
        episodes.append((g, "random walk", played, records))

    assert_plays_alike(bank, infos, [path.name for _, path in games], episodes)
    assert sum(len(e[3]) for e in episodes) > 2000
    assert any(r[3] for e in episodes for r in e[3]), "no episode was lost: losing is not exercised"


def test_max_score_and_info(games):
    for _, path in games[:: 5]:
        game, info = load_textworld(path)
        tw_game = textworld.Game.load(str(path))
        assert float(game.max_score) == tw_game.max_score
        assert info.walkthrough == tuple(tw_game.metadata["walkthrough"])
        assert info.path == str(path)
        assert list(info.commands) == sorted(info.commands)


def test_env_walkthrough_autoreset_and_vmap(games):
    picks = [path for _, path in games[:: 7]][:6]
    bank, infos = load_textworld_bank(picks)
    env = TextEnv(bank, infos, name="textworld")
    assert env.num_games == len(picks)
    step, admissible, auto_step = jax.jit(env.step), jax.jit(lambda s: env.observe(s)["admissible"]), \
        jax.jit(AutoReset(env).step)
    for g, info in enumerate(infos):
        state = env.init_state(jax.random.PRNGKey(g), game_index=g)
        total = 0.0
        for command in info.walkthrough:
            assert bool(admissible(state)[info.command_id(command)]), command
            state, ts = step(state, env.command_id(g, command))
            total += float(ts.reward)
        assert bool(ts.last()) and bool(ts.observation["won"]) and float(ts.discount) == 0.0
        assert total == float(ts.observation["score"]) == float(ts.observation["max_score"])
        frozen, again = step(state, 0)
        assert bool(again.last()) and float(again.reward) == 0.0 and int(frozen.moves) == int(state.moves)
        fresh, first = auto_step(state, 0)
        assert bool(first.first()) and int(fresh.moves) == 0 and not bool(fresh.done)

    # vmap: a batch of random-command episodes equals the same episodes one by one (jitted).
    keys = jax.random.split(jax.random.PRNGKey(7), 5)
    actions = jax.random.randint(jax.random.PRNGKey(8), (12, 5), 0, env.num_commands)

    def run(key, acts):
        state, ts = env.reset(key)

        def one(state, a):
            state, ts = env.step(state, a)
            return state, (ts.reward, ts.observation["score"], ts.observation["admissible"])

        return jax.lax.scan(one, state, acts)[1]

    batched = jax.jit(jax.vmap(run))(keys, actions.T)
    one = jax.jit(run)
    for i in range(5):
        single = one(keys[i], actions[:, i])
        chex.assert_trees_all_equal(single, jax.tree.map(lambda b: b[i], batched))
    chex.assert_trees_all_equal(batched, jax.jit(jax.vmap(run))(keys, actions.T))


def test_specs_and_invalid_commands(games):
    game, info = load_textworld(games[0][1])
    env = TextEnv(Bank.stack([game]), [info], max_steps=3)
    spec = env.action_spec()
    assert spec.num_values == len(info.commands)
    step = jax.jit(env.step)
    state, ts = jax.jit(env.reset)(jax.random.PRNGKey(0))
    for name, s in env.observation_spec().items():
        s.validate(np.asarray(ts.observation[name]))
    before = state
    for bad in (-1, 10_000):
        state, ts = step(state, bad)
        assert int(state.moves) == 0 and float(ts.reward) == 0.0
        np.testing.assert_array_equal(np.asarray(state.facts), np.asarray(before.facts))
    state, ts = step(state, -1)
    assert bool(ts.extras["truncated"]) and bool(ts.last()) and float(ts.discount) == 1.0


def test_bank_padding_keeps_play(games):
    (_, a), (_, b) = games[0], games[-1]
    (ga, ia), (gb, _) = load_textworld(a), load_textworld(b)
    padded = Bank.stack([ga, gb]).get(0)
    s1, s2 = kernel.initial_state(ga, jax.random.PRNGKey(0)), kernel.initial_state(padded, jax.random.PRNGKey(0))
    step, admissible = jax.jit(kernel.step), jax.jit(kernel.admissible)
    for command in ia.walkthrough:
        s1, _ = step(ga, s1, ia.command_id(command))
        s2, _ = step(padded, s2, ia.command_id(command))
        k = len(ia.commands)
        mine = np.asarray(admissible(ga, s1.facts))
        np.testing.assert_array_equal(mine, np.asarray(admissible(padded, s2.facts))[:k])
        assert not np.asarray(admissible(padded, s2.facts))[k:].any()
        assert (float(s1.score), bool(s1.won)) == (float(s2.score), bool(s2.won))


def test_hand_written_semantics_match_textworld(tmp_path):
    """The quest-semantics cases of test_text_logic (our own small logic) played in TextWorld too."""
    import test_text_logic as hand

    here, cake_hall = hand.fact("here", "Me", "hall"), hand.fact("at", "cake", "hall")
    carried, there = hand.fact("carried", "cake", "Bag"), hand.fact("here", "Me", "yard")
    east = hand.fact("east", "yard", "hall")
    plan = [hand.action("pick", [here, cake_hall], [here, carried]),
            hand.action("go/east", [here, east], [east, there]),
            hand.action("put_down", [there, carried], [there, hand.fact("at", "cake", "yard")])]
    planned = hand.quest([hand.event(hand.fact("at", "cake", "yard"), there, actions=plan)])
    again = hand.quest([hand.event(there)], optional=True, repeatable=True)
    cases = [
        (hand.game_json(), ["pick up gold coin", "go east", "pick up gold coin", "put down gold coin",
                            "pick up cake", "go west"]),
        (hand.game_json(), ["pick up cake", "go east", "put down cake", "pick up cake", "munch cake"]),
        (hand.game_json(quests=[hand.GET_COIN, again]), ["go east", "wait", "dance", "go west", "wait", "go east"]),
        (hand.game_json(quests=[hand.DONT_EAT]), ["pick up cake"]),
        (hand.game_json(quests=[]), ["go east"]),
        (hand.game_json(quests=[planned, hand.GET_COIN]), ["pick up cake", "munch cake"]),
        (hand.game_json(quests=[planned, hand.GET_COIN]),
         ["pick up cake", "go east", "put down cake", "pick up cake", "munch cake"]),
    ]
    for i, (data, commands) in enumerate(cases):
        path = hand.write(tmp_path, data, f"hand_{i}.json")
        _, records = textworld_episode(path, commands=commands)
        game, info = load_textworld(path)
        assert hand.play(game, info, commands) == [(set(r[0]), *r[1:5]) for r in records], (i, commands)
        assert float(game.max_score) == textworld.Game.load(str(path)).max_score

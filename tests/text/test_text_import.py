"""Differential tests of jaxlab.text against the ``textworld`` package.

Games are generated with textworld's Python API (coin collector, treasure
hunter at easy/medium/hard levels, tw-simple, tw-cooking across its options
and splits, custom games, and a few hand-built food quests that exercise
losing), saved as JSON, imported with
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

from textworld.challenges import CHALLENGES  # noqa: E402
from textworld.envs.tw import TextWorldEnv  # noqa: E402
from textworld.generator import QuestGenerationError, make_game  # noqa: E402
from textworld.generator.game import GameOptions  # noqa: E402

from jaxlab.bank import Bank  # noqa: E402
from jaxlab.kernels.text import kernel
from jaxlab.text import TextEnv, load_textworld, load_textworld_bank  # noqa: E402
from jaxlab.wrappers import AutoReset  # noqa: E402
from text_play import assert_same_facts, play  # noqa: E402

COIN_LEVELS = (1, 2, 3, 5, 8, 13, 21, 34, 55, 100, 101, 110, 130, 150, 201, 225)
HUNTER_LEVELS = (1, 3, 5, 7, 10, 11, 13, 15, 17, 20, 21, 22, 23, 24)
SIMPLE = (("dense", "detailed"), ("dense", "none"), ("balanced", "brief"), ("balanced", "detailed"),
          ("sparse", "none"), ("sparse", "brief"))
NUM_CUSTOM = 14
# tw-cooking: (recipe, take, go, open, cook, cut, split); each option on and off, each split, 8 times
COOKING = [(1 + i % 3, min(1 + i % 3, 1 + (i // 3) % 3), (1, 6, 9)[(i // 2) % 3], bool(i & 1), bool(i & 2), bool(i & 4),
            ("train", "valid", "test")[(i // 8) % 3]) for i in range(24)]
RANDOM_STEPS = 25
INFOS = dict(admissible_commands=True, score=True, max_score=True, won=True, lost=True, moves=True)


def _challenge(name, settings, seed, path):
    options = GameOptions()
    options.seeds = seed
    CHALLENGES[name][1](settings=settings, options=options).save(str(path))


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
    for i, (recipe, take, go, open_, cook, cut, split) in enumerate(COOKING):
        path = folder / f"cooking_{i}_{split}.json"
        for recipe_seed in range(600 + 10 * i, 610 + 10 * i):   # TextWorld's generator fails on a few seeds
            try:
                _challenge("tw-cooking", {"recipe": recipe, "take": take, "go": go, "open": open_, "cook": cook,
                                          "cut": cut, "drop": False, "recipe_seed": recipe_seed, "split": split},
                           recipe_seed, path)
                break
            except ValueError:
                continue
        out.append(("cooking", path))
    seed, made = 400, 0
    while made < NUM_CUSTOM:
        path = folder / f"custom_{seed}.json"
        made += _custom(seed, path)
        if path.exists():
            out.append(("custom", path))
        seed += 1
    out += _food_games(folder)
    return out


class TextWorldAsPlayed(TextWorldEnv):
    """TextWorld's engine for a game's JSON, answering a command as TextWorld plays the compiled game.

    When several valid actions answer one command (tw-cooking's ``prepare meal``: make/recipe/1 to
    make/recipe/N for a recipe of N ingredients), TextWorld's Inform7 tracker takes the one with the
    most preconditions (``Inform7Game.detect_action``), which uses every ingredient; the bare JSON
    engine takes the first it lists. ``test_the_reference_plays_as_the_compiled_game`` checks this
    against compiled games.
    """

    def _gather_infos(self):
        super()._gather_infos()
        actions, texts = self.state["_valid_actions"], self.state["_valid_commands"]
        best = {}
        for i, (action, text) in enumerate(zip(actions, texts)):
            if text not in best or len(action.preconditions) > len(actions[best[text]].preconditions):
                best[text] = i
        # ``step`` plays the action at the first position of the command's text
        self.state["_valid_commands"] = [text if best[text] == i else None for i, text in enumerate(texts)]


def _textworld_episode(path, commands=None, steps=0, seed=0, invalid_ids=None):
    """Play in TextWorld: the given commands, or a random walk of ``steps``.

    Returns (commands played, per-step records [reset, after each command]): admissible commands,
    score, won, lost, moves and the true facts (``(predicate, entity ids)``).
    A random walk plays an admissible command, or 1 time in 8 an inadmissible
    one (``invalid_ids`` gives jaxlab's command strings to draw from).
    """
    env = TextWorldAsPlayed(textworld.EnvInfos(**INFOS))
    env.load(str(path))
    state = env.reset()
    rng = np.random.default_rng(seed)

    def record(state):
        # TextWorld reports no score at reset; read the progression's.
        score = state["score"] if state.get("score") is not None else env._game_progression.score
        facts = frozenset((f.name, tuple(v.name for v in f.arguments)) for f in state["_facts"])
        return (frozenset(state["admissible_commands"]), float(score), bool(state["won"]), bool(state["lost"]),
                int(state["moves"]), facts)

    records, played = [record(state)], []
    for i in range(len(commands) if commands is not None else steps):
        if commands is not None:
            command = commands[i]
        elif rng.random() < 0.125:
            others = [c for c in invalid_ids if c not in state["admissible_commands"]] or ["dance"]
            command = others[rng.integers(len(others))]
        else:
            command = state["admissible_commands"][rng.integers(len(state["admissible_commands"]))]
        state, _, _ = env.step(command)
        played.append(command)
        records.append(record(state))
    return played, records


def test_differential_against_textworld(games):
    families = {}
    for family, _ in games:
        families[family] = families.get(family, 0) + 1
    assert len(games) - families.get("food", 0) >= 50, families
    assert families["cooking"] >= 20, families
    bank, infos = load_textworld_bank([path for _, path in games])

    episodes = []  # (game index, kind, commands, records)
    for g, (family, path) in enumerate(games):
        walkthrough = list(infos[g].walkthrough)
        assert walkthrough, path
        played, records = _textworld_episode(path, commands=walkthrough)
        assert records[-1][2], f"{path}: TextWorld's walkthrough does not win"
        episodes.append((g, "walkthrough", played, records))
        steps = RANDOM_STEPS * (3 if family == "food" else 1)
        played, records = _textworld_episode(path, steps=steps, seed=1000 + g, invalid_ids=infos[g].commands)
        episodes.append((g, "random walk", played, records))

    length = max(len(e[2]) for e in episodes)
    ids = np.full((len(episodes), length), -1, np.int32)
    for row, (g, _, played, _) in enumerate(episodes):
        ids[row, :len(played)] = [infos[g].command_id(c) for c in played]
    index = np.array([e[0] for e in episodes], np.int32)
    out = jax.device_get(play(bank, index, ids))
    adm, score, won, lost, moves, reward, facts = (
        out[k] for k in ("admissible", "score", "won", "lost", "moves", "reward", "facts"))

    compared = 0
    for row, (g, kind, played, records) in enumerate(episodes):
        commands = np.array(infos[g].commands)
        for t, (tw_adm, tw_score, tw_won, tw_lost, tw_moves, tw_facts) in enumerate(records):
            where = f"{games[g][1].name} {kind} step {t} ({played[t - 1] if t else 'reset'!r})"
            mine = set(commands[adm[row, t, :len(commands)]].tolist())
            assert mine == set(tw_adm), (where, sorted(mine - tw_adm), sorted(tw_adm - mine))
            assert_same_facts(infos[g], facts[row, t], records[0][5], tw_facts, where)
            assert (score[row, t], won[row, t], lost[row, t], moves[row, t]) == (tw_score, tw_won, tw_lost, tw_moves), \
                (where, (score[row, t], won[row, t], lost[row, t], moves[row, t]), (tw_score, tw_won, tw_lost, tw_moves))
            if t:
                assert reward[row, t] == tw_score - records[t - 1][1], where
            compared += 1
    assert compared > 2000
    assert any(r[3] for e in episodes for r in e[3]), "no episode was lost: losing is not exercised"


def test_the_reference_plays_as_the_compiled_game(games, tmp_path):
    """TextWorldAsPlayed (the JSON engine, choosing as TextWorld's tracker does) plays multi-ingredient
    cooking walkthroughs that cook as TextWorld plays the games compiled with Inform7: the same
    admissible commands, score, won, lost and facts at every step ("prepare meal" uses every
    ingredient; "cook" picks among raw, needs-cooking and burning rules)."""
    from textworld.generator import compile_game

    def multi_and_cooked(path):   # cooking picks among three rules per appliance, preparing among N
        meta = textworld.Game.load(str(path)).metadata
        return len(meta["ingredients"]) >= 2 and any(c.startswith("cook ") for c in meta["walkthrough"])

    multi = [path for family, path in games if family == "cooking" and multi_and_cooked(path)][:2]
    assert len(multi) == 2
    for path in multi:
        game = textworld.Game.load(str(path))
        options = GameOptions()
        options.path, options.force_recompile = str(tmp_path / (path.stem + ".z8")), True
        compiled = textworld.start(compile_game(game, options), request_infos=textworld.EnvInfos(**INFOS, facts=True))
        state = compiled.reset()
        walkthrough = game.metadata["walkthrough"]
        _, records = _textworld_episode(path, commands=walkthrough)
        for t, command in enumerate([None] + list(walkthrough)):
            if command is not None:
                state, _, _ = compiled.step(command)
            score = state["score"] if state.get("score") is not None else 0.0
            facts = {(f.name, tuple(v.name for v in f.arguments)) for f in state["_facts"]}
            assert (set(state["admissible_commands"]), float(score), state["won"], state["lost"], facts) == \
                (set(records[t][0]), *records[t][1:4], set(records[t][5])), (path.name, t, command)
        assert state["won"]
        prepared = records[1 + list(walkthrough).index("prepare meal")][5]
        assert len([f for f in prepared if f[0] == "in" and f[1][1] == "I"]) == 1, "only the meal is carried"


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
    step = jax.jit(env.step)
    for g, info in enumerate(infos):
        state = env.init_state(jax.random.PRNGKey(g), game_index=g)
        total = 0.0
        for command in info.walkthrough:
            assert bool(env.observe(state)["admissible"][info.command_id(command)]), command
            state, ts = step(state, env.command_id(g, command))
            total += float(ts.reward)
        assert bool(ts.last()) and bool(ts.observation["won"]) and float(ts.discount) == 0.0
        assert total == float(ts.observation["score"]) == float(ts.observation["max_score"])
        frozen, again = step(state, 0)
        assert bool(again.last()) and float(again.reward) == 0.0 and int(frozen.moves) == int(state.moves)
        auto = AutoReset(env)
        fresh, first = jax.jit(auto.step)(state, 0)
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
    state, ts = env.reset(jax.random.PRNGKey(0))
    for name, s in env.observation_spec().items():
        s.validate(np.asarray(ts.observation[name]))
    before = state
    for bad in (-1, 10_000):
        state, ts = env.step(state, bad)
        assert int(state.moves) == 0 and float(ts.reward) == 0.0
        np.testing.assert_array_equal(np.asarray(state.facts), np.asarray(before.facts))
    state, ts = env.step(state, -1)
    assert bool(ts.extras["truncated"]) and bool(ts.last()) and float(ts.discount) == 1.0


def test_bank_padding_keeps_play(games):
    (_, a), (_, b) = games[0], games[-1]
    (ga, ia), (gb, _) = load_textworld(a), load_textworld(b)
    padded = Bank.stack([ga, gb]).get(0)
    s1, s2 = kernel.initial_state(ga, jax.random.PRNGKey(0)), kernel.initial_state(padded, jax.random.PRNGKey(0))
    for command in ia.walkthrough:
        s1, _ = kernel.step(ga, s1, ia.command_id(command))
        s2, _ = kernel.step(padded, s2, ia.command_id(command))
        k = len(ia.commands)
        np.testing.assert_array_equal(np.asarray(kernel.admissible(ga, s1.facts)),
                                      np.asarray(kernel.admissible(padded, s2.facts))[:k])
        assert not np.asarray(kernel.admissible(padded, s2.facts))[k:].any()
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
        _, records = _textworld_episode(path, commands=commands)
        game, info = load_textworld(path)
        assert hand.play(game, info, commands) == [(set(r[0]), *r[1:5]) for r in records], (i, commands)
        assert float(game.max_score) == textworld.Game.load(str(path)).max_score

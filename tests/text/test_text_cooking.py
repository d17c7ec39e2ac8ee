"""tw-cooking: every option combination and split has a walkthrough that plays, walkthroughs win on
device, the splits' recipes are disjoint, the losing conditions lose, and TextWorld's own engine plays
the generated games step for step as jaxlab does."""
from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest

import jaxlab
from jaxlab.errors import UnknownNameError
from jaxlab.hosts.text.game_api import Game
from jaxlab.levels.text.generators import cooking, make_spec
from jaxlab.text import BatchEnv, EnvInfos, load_textworld_bank, make, start
from test_text_generators import _run, _violations

COMBINATIONS = [dict(recipe=r, take=t, go=g, open=o, cook=c, cut=u, drop=d, split=s)
                for r in range(1, cooking.MAX_RECIPE + 1) for t in range(r + 1) for g in cooking.GO
                for o, c, u, d in itertools.product((False, True), repeat=4) for s in (None,) + cooking.SPLITS]
# a covering subset played on device: every value of every option, each split with cooking and cutting
ON_DEVICE = [dict(recipe=1 + i % 5, take=min(1 + i % 5, (i // 5) % 6), go=cooking.GO[i % 4], open=bool(i & 1),
                  cook=bool(i & 2) or i % 3 == 0, cut=bool(i & 4) or i % 3 == 1, drop=bool(i & 8),
                  split=((None,) + cooking.SPLITS)[(i // 2) % 4]) for i in range(24)]
INFOS = EnvInfos(admissible_commands=True, score=True, won=True, lost=True, moves=True)


def test_every_option_combination_and_split_has_a_walkthrough_that_plays():
    """5,120 combinations: the generator's walker plays each walkthrough under the game's logic (it
    raises on a command that would not be admissible: with ``drop``, a take with the inventory full),
    the world is well formed, the recipe follows the options and uses only its split's preparations."""
    assert len(COMBINATIONS) == 5120
    for seed, opts in enumerate(COMBINATIONS):
        spec = make_spec("tw-cooking", seed, recipe_seed=seed, **opts)
        recipe = spec.metadata["ingredients"]
        assert len(recipe) == opts["recipe"] and len({r[0] for r in recipe}) == opts["recipe"], spec.name
        assert spec.walkthrough[-2:] == ("prepare meal", "eat meal"), spec.name
        named = [n for n in spec.entity_names.values() if n is not None]
        assert len(named) == len(set(named)), f"{spec.name}: two entities share a name"
        for food, how, cut in recipe:
            assert (how is not None) <= opts["cook"] and (cut is not None) <= opts["cut"], spec.name
            if opts["split"] is not None:
                assert cooking.preparation_split(food, how, cut) == opts["split"], (spec.name, food, how, cut)
        if seed % 97 == 0:  # the full constraint check is slower: a spread sample
            assert not _violations(spec), (spec.name, _violations(spec)[:3])


def test_splits_hold_disjoint_preparations_and_every_split_can_fill_the_largest_recipe():
    cases = {s: set() for s in cooking.SPLITS}
    for name, cookable, cuttable, needs in cooking.FOODS:
        for how in cooking.COOKINGS + (None,):
            for cut in cooking.CUTS + (None,):
                cases[cooking.preparation_split(name, how, cut)].add((name, how, cut))
    assert not (cases["train"] & cases["valid"]) and not (cases["train"] & cases["test"])
    for split in cooking.SPLITS:
        for cook, cut in itertools.product((False, True), repeat=2):
            spec = make_spec("tw-cooking", 1, recipe=cooking.MAX_RECIPE, cook=cook, cut=cut, split=split, go=6)
            assert {tuple(r) for r in spec.metadata["ingredients"]} <= cases[split]


def test_walkthroughs_win_on_device():
    specs = [make_spec("tw-cooking", 100 + i, recipe_seed=200 + i, **opts) for i, opts in enumerate(ON_DEVICE)]
    assert {s.metadata["settings"]["split"] for s in specs} == {None, "train", "valid", "test"}
    (won, lost, score, moves), max_score = _run(specs, [s.walkthrough for s in specs])
    for row, spec in enumerate(specs):
        n = len(spec.walkthrough)
        assert not won[row, :n].any() and won[row, n] and not lost[row, :n + 1].any(), spec.name
        assert score[row, n] == max_score[row] > 0 and moves[row, n] == n, spec.name


def _lost_after(env, commands):
    """The state after ``commands`` (each admissible) from a new episode of the host env ``env``."""
    state = env.reset()
    for command in commands:
        assert command in state["admissible_commands"], (command, state["admissible_commands"])
        state, _, _ = env.step(command)
    return state


def test_burning_the_wrong_cut_and_eating_lose():
    specs = (make_spec("tw-cooking", 3, recipe=2, go=1, cook=True, cut=True, recipe_seed=s) for s in range(50))
    spec = next(s for s in specs if all(step is not None for step in s.metadata["ingredients"][0]))
    game = make("tw-cooking", seed=3, **{k: v for k, v in spec.metadata["settings"].items()})
    (a, a_how, a_cut), (b, _, _) = game.spec.metadata["ingredients"]
    cook = f"cook {a} with {'stove' if a_how == 'fried' else 'oven'}"
    env = start(game, INFOS)   # one host env (one compile), reset for each episode
    burned = _lost_after(env, [cook, cook])
    assert burned["lost"] and not burned["won"]
    wrong = next(c for c in cooking.CUTS if c != a_cut)
    cut_wrong = _lost_after(env, ["take knife from counter", f"{cooking.VERB[wrong]} {a} with knife"])
    assert cut_wrong["lost"]
    assert _lost_after(env, [f"eat {b}"])["lost"]                 # an ingredient is gone
    assert _lost_after(env, ["prepare meal"])["lost"]             # the meal before the recipe's steps
    fine = _lost_after(env, ["take knife from counter", f"{cooking.VERB[a_cut]} {a} with knife"])
    assert not fine["lost"] and fine["score"] == 1


def test_eating_a_food_that_needs_cooking_raw_loses():
    for seed in range(40):
        game = make("tw-cooking", recipe=1, go=1, cook=True, seed=seed)
        raw = [n for n, _, _, needs in cooking.FOODS if needs and n in game.spec.entity_names.values()
               and n not in [r[0] for r in game.spec.metadata["ingredients"]]]
        where = {game.spec.entity_names[e]: e for e in game.spec.entity_types}
        carried = [n for n in raw if ("in", (where[n], "I")) in game.spec.facts]
        lying = [n for n in raw if n not in carried]
        if lying:
            break
    else:
        pytest.fail("no seed puts a food that needs cooking in the kitchen")
    env = start(game, INFOS)
    state = env.reset()
    take = next(c for c in state["admissible_commands"] if c.startswith(f"take {lying[0]}"))
    state, _, _ = env.step(take)
    state, _, _ = env.step(f"eat {lying[0]}")
    assert state["lost"]


def test_textworld_plays_generated_cooking_games_the_same(tmp_path):
    """Saved in TextWorld's format and played by TextWorld's engine: along the walkthrough and random
    walks (some commands inadmissible), admissible commands, score, won, lost, moves and the facts of
    the state agree at every step; jaxlab plays every episode in one batched scan."""
    pytest.importorskip("textworld")
    from textworld_reference import assert_plays_alike, textworld_episode

    paths, episodes = [], []
    # without drop=True: TextWorld's engine does not finish starting a game whose inventory has several
    # slots (its quest dependency tree grows without end; its own generator notes this for its drop games)
    for i, opts in enumerate([opts for opts in ON_DEVICE if not opts["drop"]][::2]):
        game = make("tw-cooking", seed=300 + i, recipe_seed=400 + i, **opts)
        paths.append(str(game.save(tmp_path / f"cooking{i}.json")))
    bank, infos = load_textworld_bank(paths)
    for g, path in enumerate(paths):
        played, records = textworld_episode(path, commands=list(infos[g].walkthrough))
        assert records[-1][2], f"{path}: TextWorld's walkthrough does not win"
        episodes.append((g, "walkthrough", played, records))
        for k in range(2):
            episodes.append((g, f"random walk {k}",
                             *textworld_episode(path, steps=30, seed=50 * g + k, invalid_ids=infos[g].commands)))
    assert_plays_alike(bank, infos, paths, episodes)
    assert sum(len(e[3]) for e in episodes) > 300
    assert sum(e[3][-1][3] for e in episodes) >= 2, "fewer than two random walks lost: losing is not exercised"


def test_a_limited_inventory_holds_the_recipe_and_no_more():
    """drop=True, TextWorld's meaning: a recipe of 2 carried from the start fills the inventory, so the
    knife cannot be taken until an ingredient is put down; preparing the meal leaves room for one
    more thing besides it; a lone ingredient to cut leaves room for the knife."""
    spec = make_spec("tw-cooking", 3, recipe=2, take=0, go=1, cut=True, drop=True)
    assert spec.name.startswith("tw-cooking-recipe2+take0+cut+drop")
    env = start(Game.from_spec(spec), INFOS)
    state = env.reset()
    first, second = (food for food, _, _ in spec.metadata["ingredients"])
    assert "take knife from counter" not in state["admissible_commands"]
    state, _, _ = env.step(f"drop {second}")
    assert "take knife from counter" in state["admissible_commands"]
    state, _, _ = env.step("take knife from counter")
    assert f"take {second}" not in state["admissible_commands"]          # full again
    state, _, _ = env.step("drop knife")
    assert f"take {second}" in state["admissible_commands"]

    walkthrough = spec.walkthrough
    at = walkthrough.index("take knife from counter")
    assert walkthrough[at - 1].startswith("drop ") and walkthrough[at + 2] == "drop knife"
    lone = make_spec("tw-cooking", 4, recipe=1, take=0, go=1, cut=True, drop=True)
    assert "drop" not in " ".join(c for c in lone.walkthrough if "knife" not in c)   # room for the knife


def test_jaxlab_make_and_option_errors():
    env = jaxlab.make("tw-cooking", recipe=3, take=3, go=9, open=True, cook=True, cut=True, drop=True, seed=0)
    state, ts = jax.jit(env.reset)(jax.random.PRNGKey(0))
    state, ts = jax.jit(env.step)(state, np.int32(0))
    assert ts.observation["feedback"].shape[0] > 0
    with pytest.raises(ValueError, match="drop"):
        make_spec("tw-cooking", drop="yes")
    with pytest.raises(ValueError, match="go must be one of"):
        make_spec("tw-cooking", go=5)
    with pytest.raises(ValueError, match="take must be an integer in 0..2"):
        make_spec("tw-cooking", recipe=2, take=3)
    with pytest.raises(UnknownNameError, match="valid"):
        make_spec("tw-cooking", split="vaild")
    with pytest.raises(UnknownNameError, match="recipe_seed"):
        make_spec("tw-cooking", recipe_sed=1)


def test_the_inventory_names_each_ingredient_by_its_state_as_the_recipe_asks():
    """Before "prepare meal", every ingredient the walkthrough prepared is listed in the inventory as
    TextWorld's cooking games name it: cut, then cooked, then the food ("a sliced fried carrot"); raw
    foods that need cooking read "raw" until cooked, and burning one reads "burned". The seven games
    play side by side in one ``BatchEnv`` (one compiled step)."""
    specs = [make_spec("tw-cooking", 300 + i, recipe_seed=400 + i, **opts) for i, opts in enumerate(ON_DEVICE[:6])]
    burnt = make_spec("tw-cooking", 7, recipe=1, take=1, go=1, cook=True, cut=False)
    food, how, _ = burnt.metadata["ingredients"][0]
    assert how is not None
    cook = next(c for c in burnt.walkthrough if c.startswith("cook "))
    before_cook = burnt.walkthrough.index(cook)
    plans = [list(spec.walkthrough[:-2]) for spec in specs] + [list(burnt.walkthrough[:before_cook]) + [cook, cook]]
    env = BatchEnv([Game.from_spec(spec) for spec in specs + [burnt]], EnvInfos(inventory=True), batch_size=7)
    env.reset()
    inventories = [[] for _ in plans]   # per game: the inventory after each of its commands
    feedbacks = [[] for _ in plans]
    for t in range(max(map(len, plans))):
        # a game whose plan is played looks around (that changes nothing)
        feedback, _, _, infos = env.step([plan[t] if t < len(plan) else "look" for plan in plans])
        for g, plan in enumerate(plans):
            if t < len(plan):
                inventories[g].append(" ".join(infos["inventory"][g].lower().split()))
                feedbacks[g].append(feedback[g].lower())

    checked = 0
    for spec, inventory in zip(specs, inventories):
        for food_name, cooking_, cut in spec.metadata["ingredients"]:
            name = " ".join(w for w in (cut, cooking_, food_name) if w)
            assert f" {name}" in inventory[-1], (spec.name, name, inventory[-1])
            checked += bool(cooking_ or cut)
    assert checked >= 3  # most of these recipes cook or cut something

    inventory, feedback = inventories[-1], feedbacks[-1]
    assert f"a {how} {food}" not in inventory[before_cook - 1]
    assert f"you {how} the {food}." in feedback[before_cook] and f"{how} {food}" in inventory[before_cook]
    assert f"you burned the {food}!" in feedback[before_cook + 1]   # once too often
    assert f"burned {food}" in inventory[before_cook + 1] and f"{how} {food}" not in inventory[before_cook + 1]

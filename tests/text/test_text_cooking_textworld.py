"""tw-cooking games made by TextWorld's own generator, played by TextWorld and by jaxlab, step by step.

80 games across every option of TextWorld's tw-cooking challenge (``recipe`` 1-5, ``take`` 0-5,
``go`` 1/6/9/12, ``open``, ``cook``, ``cut`` and ``drop`` on and off, the three splits), each with
its own seed; in each, the walkthrough and two random walks that also play inadmissible commands and
go on after the game is won or lost. TextWorld plays the game's JSON as it plays the compiled game
(``textworld_reference.TextWorldAsPlayed``); jaxlab plays every episode in one jitted batch.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

textworld = pytest.importorskip("textworld")

from jaxlab.text import load_textworld, load_textworld_bank  # noqa: E402
from textworld_reference import INFOS, assert_plays_alike, make_challenge_game, textworld_episode  # noqa: E402

NUM_GAMES = 80
RANDOM_WALKS, RANDOM_STEPS = 2, 8
ROOMS = (1, 6, 9, 12)
SPLITS = ("train", "valid", "test")
SWITCHES = ("open", "cook", "cut", "drop")


def _settings(i: int, rng) -> dict:
    """Game i's settings but the recipe seed: recipe and rooms in turn, the rest drawn from ``rng``."""
    recipe = 1 + i % 5
    return dict({k: bool(rng.integers(2)) for k in SWITCHES}, recipe=recipe, take=int(rng.integers(0, recipe + 1)),
                go=ROOMS[(i // 5) % 4], split=SPLITS[i % 3])


def _overfull(game) -> bool:
    """Whether a drop game starts with more things carried than its inventory has slots.

    TextWorld's generator makes a few whose walkthrough does not win in TextWorld (about 1 in 200):
    with ``take=0`` it puts every ingredient in the inventory besides the foods already there and
    marks only as many slots used as there are, so the walkthrough's drops free slots that nothing
    held, and after ``prepare meal`` no slot may be left used for ``eat meal`` (which frees one).
    """
    facts = game.world.facts
    carried = sum(f.name == "in" and f.arguments[1].name == "I" for f in facts)
    slots = sum(f.name in ("used", "free") and f.arguments[0].type == "slot" for f in facts)
    return slots > 0 and carried > slots


@pytest.fixture(scope="module")
def cooking_games(tmp_path_factory):
    """{"winnable": [(settings, seed, path, walkthrough)] (NUM_GAMES tw-cooking games as JSON, each
    from its own seed, and their walkthrough as ``textworld_episode`` played it), "unwinnable": the
    same for the games set aside because TextWorld's walkthrough does not win them in TextWorld}."""
    folder, rng = tmp_path_factory.mktemp("tw_cooking"), np.random.default_rng(26)
    out = {"winnable": [], "unwinnable": []}
    for i in range(NUM_GAMES):
        seed = 1000 * i
        # TextWorld's generator cannot use a few seeds, and cannot make some settings at all (most
        # recipes of 4 or 5 to cut and not cook in the valid and test splits): draw again
        drawn = None
        while len(out["winnable"]) == i:
            drawn = _settings(i, rng) if seed % 10 == 0 or drawn is None else drawn
            # TextWorld draws a recipe of its own only when some ingredients are to be taken
            settings = dict(drawn, recipe_seed=seed + 1 if drawn["take"] else 0)
            seed += 1
            try:
                game = make_challenge_game("tw-cooking", settings, seed)
            except ValueError:
                continue
            path = folder / f"cooking_{i}_{seed}.json"
            game.save(str(path))
            walkthrough = textworld_episode(path, commands=game.metadata["walkthrough"])
            kind = "winnable" if walkthrough[1][-1][2] else "unwinnable"
            assert kind == "winnable" or _overfull(game), f"{path.name}: TextWorld's walkthrough does not win"
            out[kind].append((settings, seed, path, walkthrough))
    return out


def test_the_games_cover_every_option(cooking_games):
    assert len(cooking_games["winnable"]) == NUM_GAMES
    seen = {k: {s[k] for s, *_ in cooking_games["winnable"]} for k in ("recipe", "take", "go", "split", *SWITCHES)}
    assert seen == {"recipe": {1, 2, 3, 4, 5}, "take": {0, 1, 2, 3, 4, 5}, "go": set(ROOMS), "split": set(SPLITS),
                    **{k: {False, True} for k in SWITCHES}}, seen
    pairs = {(k, s["drop"], s["recipe"], s[k]) for s, *_ in cooking_games["winnable"] for k in ("open", "cook", "cut")}
    assert len(pairs) == 3 * 2 * 5 * 2, "drop on and off meets every recipe size with each other switch on and off"


def test_quick_games_are_textworld_s(cooking_games, tmp_path):
    """Made without compiling and with the knowledge base parsed once, a game is the one TextWorld
    makes: tw-cooking games with and without drop, and the other challenges the text tests make."""
    winnable = cooking_games["winnable"]
    games = [next(("tw-cooking", s, seed, path) for s, seed, path, _ in winnable[3:] if s["drop"] == drop)
             for drop in (False, True)]
    for i, (challenge, settings) in enumerate([("tw-coin_collector", {"level": 5}),
                                               ("tw-treasure_hunter", {"level": 5}),
                                               ("tw-simple", {"rewards": "balanced", "goal": "brief", "test": False})]):
        path = tmp_path / f"quick_{i}.json"
        make_challenge_game(challenge, settings, 7 + i).save(str(path))
        games.append((challenge, settings, 7 + i, path))
    for challenge, settings, seed, path in games:
        make_challenge_game(challenge, settings, seed, quick=False).save(str(tmp_path / "again.json"))
        assert json.loads((tmp_path / "again.json").read_text()) == json.loads(path.read_text()), (challenge, settings)


def test_every_cooking_game_plays_as_in_textworld(cooking_games):
    """The NUM_GAMES winnable games, and the unwinnable ones that TextWorld's generator made on the
    way (``_overfull``; their walkthroughs lose in both alike)."""
    games = cooking_games["winnable"] + cooking_games["unwinnable"]
    names = [path.name for _, _, path, _ in games]
    bank, infos = load_textworld_bank([path for _, _, path, _ in games])
    episodes = []   # (game index, kind, commands, TextWorld's records)
    for g, (_, _, path, (played, records)) in enumerate(games):
        assert tuple(played) == infos[g].walkthrough, path.name
        winnable = g < NUM_GAMES
        assert records[-1][2] or not winnable, f"{path.name}: TextWorld's walkthrough does not win"
        episodes.append((g, "walkthrough" if winnable else "unwinnable walkthrough", played, records))
        for k in range(RANDOM_WALKS):
            played, records = textworld_episode(path, steps=RANDOM_STEPS, seed=100 * g + k,
                                                invalid_ids=infos[g].commands)
            episodes.append((g, f"random walk {k}", played, records))
    out = assert_plays_alike(bank, infos, names, episodes)
    for row, (g, kind, played, _) in enumerate(episodes):
        if kind == "walkthrough":
            assert out["won"][row, len(played)] and out["score"][row, len(played)] == out["max_score"][row], names[g]
    assert sum(len(e[3]) for e in episodes) > 35 * NUM_GAMES, "fewer than 35 steps a game"
    assert sum(e[3][-1][3] for e in episodes) >= 10, "fewer than ten random walks lost: losing is not exercised"


def test_the_reference_plays_as_the_compiled_game(cooking_games, tmp_path):
    """TextWorldAsPlayed (the JSON engine, choosing as TextWorld's tracker does) plays multi-ingredient
    cooking walkthroughs that cook as TextWorld plays the games compiled with Inform7: the same
    admissible commands, score, won, lost and facts at every step ("prepare meal" uses every
    ingredient; "cook" picks among raw, needs-cooking and burning rules)."""
    from textworld.generator import compile_game
    from textworld.generator.game import GameOptions

    def multi_and_cooked(settings, path):   # cooking picks among three rules per appliance, preparing among N
        meta = textworld.Game.load(str(path)).metadata
        return settings["recipe"] >= 2 and not settings["drop"] and \
            any(c.startswith("cook ") for c in meta["walkthrough"])

    multi = [path for settings, _, path, _ in cooking_games["winnable"] if multi_and_cooked(settings, path)][:2]
    assert len(multi) == 2
    for path in multi:
        game = textworld.Game.load(str(path))
        options = GameOptions()
        options.path, options.force_recompile = str(tmp_path / (path.stem + ".z8")), True
        compiled = textworld.start(compile_game(game, options), request_infos=textworld.EnvInfos(**INFOS, facts=True))
        state = compiled.reset()
        walkthrough = game.metadata["walkthrough"]
        _, records = textworld_episode(path, commands=walkthrough)
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
        _, info = load_textworld(path)
        assert info.walkthrough == tuple(walkthrough)

"""The drop-in for ``textworld.gym`` and TextWorld's EnvInfos: the same training loop, written
against ``textworld.gym``, runs on ``jaxlab.text.gym`` by changing only the import, and both report
the same scores, dones, admissible commands and game infos at every step; ``jaxlab-tw extract``
writes what ``tw-extract`` writes."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

textworld = pytest.importorskip("textworld")
import textworld.gym  # noqa: E402
from textworld.challenges import CHALLENGES  # noqa: E402
from textworld.generator.game import GameOptions  # noqa: E402

import jaxlab.text.gym as jaxlab_gym  # noqa: E402
from jaxlab.errors import UnknownNameError  # noqa: E402
from jaxlab.hosts.text.cli import main as tw_main  # noqa: E402
from jaxlab.text import EnvInfos, TextWorldFormatError, start  # noqa: E402

# every field TextWorld 1.7's EnvInfos has, read from the package itself
TEXTWORLD_FIELDS = [n for n in textworld.EnvInfos.__slots__ if n != "extras"]
# fields that depend on the game alone: they must equal TextWorld's on a .json game
GAME_FIELDS = ("max_score", "objective", "entities", "typed_entities", "verbs", "command_templates",
               "possible_commands", "possible_admissible_commands", "admissible_commands", "won", "lost", "moves")


@pytest.fixture(scope="module")
def gamefiles(tmp_path_factory):
    """Five games: three tw-cooking (with a recipe in their metadata), two coin collectors."""
    folder = tmp_path_factory.mktemp("gym_games")
    made = [("tw-cooking", {"recipe": 1 + i, "take": 1 + i, "go": (1, 6, 9)[i], "open": True, "cook": i > 0,
                            "cut": i > 1, "drop": False, "recipe_seed": 70 + i, "split": "train"}, 70 + i)
            for i in range(3)]
    made += [("tw-coin_collector", {"level": level}, 80 + level) for level in (3, 15)]
    paths = []
    for i, (family, settings, seed) in enumerate(made):
        options = GameOptions()
        options.seeds = seed
        path = folder / f"game_{i}.json"
        CHALLENGES[family][1](settings=settings, options=options).save(str(path))
        paths.append(str(path))
    return paths


def training_loop(gym, request_infos, gamefiles, batch_size, auto_reset, steps=45):
    """A loop as a TextWorld user writes it (``gym`` is ``textworld.gym`` or its drop-in): a seeded
    random agent over the admissible commands. Returns per-step (scores, dones, admissible, recipe)."""
    env_id = gym.register_games(gamefiles, request_infos=request_infos, batch_size=batch_size,
                                auto_reset=auto_reset, max_episode_steps=15)
    env = gym.make(env_id)
    obs, infos = env.reset()
    rng = np.random.default_rng(0)
    trace = []
    for _ in range(steps):
        if batch_size is None:
            command = sorted(infos["admissible_commands"])[rng.integers(len(infos["admissible_commands"]))]
            obs, score, done, infos = env.step(command)
            scores, dones, admissible, recipes = [score], [done], [infos["admissible_commands"]], \
                [infos["extra.recipe"]]
            if done:
                obs, infos = env.reset()
        else:
            commands = [sorted(a)[rng.integers(len(a))] for a in infos["admissible_commands"]]
            obs, scores, dones, infos = env.step(commands)
            admissible, recipes = infos["admissible_commands"], infos["extra.recipe"]
            if all(dones) and not auto_reset:
                obs, infos = env.reset()
        trace.append((tuple(map(float, scores)), tuple(map(bool, dones)), tuple(tuple(sorted(a)) for a in admissible),
                      tuple(map(str, recipes))))
        assert isinstance(obs, str if batch_size is None else (list, tuple))
    env.close()
    return trace


@pytest.mark.parametrize("batch_size,auto_reset", [(None, False), (3, True), (3, False)])
def test_a_textworld_gym_loop_runs_unchanged(gamefiles, batch_size, auto_reset):
    ours = training_loop(jaxlab_gym, EnvInfos(admissible_commands=True, extras=["recipe"]), gamefiles, batch_size,
                         auto_reset)
    theirs = training_loop(textworld.gym, textworld.EnvInfos(admissible_commands=True, extras=["recipe"]), gamefiles,
                           batch_size, auto_reset)
    for t, (mine, tw) in enumerate(zip(ours, theirs)):
        assert mine == tw, f"step {t}: {mine[:2]} vs TextWorld {tw[:2]}"
    assert any(any(step[1]) for step in theirs), "no game ended: resets are not exercised"


def test_every_textworld_envinfos_field_is_accepted_and_reported(gamefiles):
    assert len(TEXTWORLD_FIELDS) >= 25
    env = jaxlab_gym.make(jaxlab_gym.register_games(
        gamefiles[:1], request_infos=textworld.EnvInfos(**{n: True for n in TEXTWORLD_FIELDS}, extras=["recipe"]),
        batch_size=2))
    _, infos = env.reset()
    missing = [n for n in TEXTWORLD_FIELDS if n != "feedback" and n not in infos]
    assert not missing, missing
    for name in TEXTWORLD_FIELDS:
        assert getattr(EnvInfos(**{name: True}), name) is True


def test_game_infos_equal_textworlds(gamefiles):
    for i, path in enumerate(gamefiles):
        extras = ["walkthrough", "uuid"] + (["recipe"] if i < 3 else [])   # the first three are cooking games
        asked = dict({n: True for n in GAME_FIELDS}, extras=extras)
        theirs = textworld.start(path, request_infos=textworld.EnvInfos(**asked)).reset()
        ours = start(path, request_infos=EnvInfos(**asked)).reset()
        for name in GAME_FIELDS + tuple("extra." + e for e in extras):
            assert ours[name] == theirs[name], (path, name, ours[name], theirs[name])


def test_unknown_ids_fields_and_missing_extras_are_named(gamefiles):
    env_id = jaxlab_gym.register_games(gamefiles[3:], name="coins")
    with pytest.raises(UnknownNameError, match=env_id):
        jaxlab_gym.make(env_id.replace("coins", "coin"))
    with pytest.warns(UserWarning, match="walkthrough"):     # a key the game lacks reads None, as in TextWorld
        _, infos = jaxlab_gym.make(jaxlab_gym.register_games(
            gamefiles[3:4], request_infos=EnvInfos(extras=["recipe"]))).reset()
    assert infos["extra.recipe"] is None
    with pytest.raises(UnknownNameError, match="admissible_commands"):
        EnvInfos(admissible_command=True)
    with pytest.raises(TypeError, match="extras"):
        EnvInfos(extras="recipe")
    with pytest.raises(TypeError, match="wrappers"):
        jaxlab_gym.register_games(["x.json"], wrappers=[])


def test_compiled_game_paths_read_the_json_beside_them_and_copy_is_independent(gamefiles, tmp_path):
    beside = tmp_path / "g.json"
    beside.write_text(open(gamefiles[3]).read())
    (tmp_path / "g.z8").write_bytes(b"compiled")
    (tmp_path / "lonely.z8").write_bytes(b"compiled")
    env = start(str(tmp_path / "g.z8"), request_infos=EnvInfos(admissible_commands=True, moves=True))
    first = env.reset()
    with pytest.raises(TextWorldFormatError, match="lonely.z8"):
        start(str(tmp_path / "lonely.z8"))
    twin = env.copy()
    state, _, _ = env.step(sorted(first["admissible_commands"])[0])
    assert state["moves"] == 1 and twin.state["moves"] == 0
    assert twin.step(sorted(first["admissible_commands"])[0])[0]["moves"] == 1


@pytest.mark.parametrize("what", ["vocab", "entities", "walkthroughs", "commands"])
def test_extract_writes_what_tw_extract_writes(gamefiles, tmp_path, what):
    tw_extract = Path(sys.executable).parent / "tw-extract"
    if not tw_extract.exists():
        pytest.skip("tw-extract is not installed beside this Python")
    theirs, ours = tmp_path / f"theirs_{what}.txt", tmp_path / f"ours_{what}.txt"
    subprocess.run([str(tw_extract), what, *gamefiles, "--output", str(theirs)], check=True, capture_output=True)
    assert tw_main(["extract", what, *gamefiles, "--output", str(ours)]) == 0
    assert ours.read_text() == theirs.read_text()


def test_wrong_commands_and_pool_indices_are_refused_by_name(gamefiles):
    single = jaxlab_gym.make(jaxlab_gym.register_games(gamefiles[3:]))
    single.reset()
    with pytest.raises(TypeError, match="command string"):
        single.step(["look"])
    batch = jaxlab_gym.make(jaxlab_gym.register_games(gamefiles[3:], batch_size=2))
    batch.reset()
    with pytest.raises(TypeError, match="list of 2 commands"):
        batch.step("look")
    with pytest.raises(ValueError, match=r"2 pool indices in \[0, 2\)"):
        batch.batch_env.reset([0, 5])

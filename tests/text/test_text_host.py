"""The TextWorld-shaped host API: make/save/load, start + EnvInfos, BatchEnv, jaxlab.make, and the
``jaxlab-tw`` CLI. Generated games saved in TextWorld's format are also played by the ``textworld``
package, which must agree with jaxlab step by step."""
from __future__ import annotations

import json

import jax
import numpy as np
import pytest

import jaxlab
from jaxlab.errors import UnknownNameError
from jaxlab.hosts.text.cli import main as tw_main
from jaxlab.text import BatchEnv, EnvInfos, TextEnv, TextWorldFormatError, load, make, start

INFOS = EnvInfos(admissible_commands=True, score=True, max_score=True, won=True, lost=True, moves=True,
                 description=True, inventory=True, location=True, facts=True, last_command=True,
                 objective=True, entities=True, verbs=True, policy_commands=True, intermediate_reward=True,
                 extras=["walkthrough"])


@pytest.fixture(scope="module")
def games():
    """A few generated games of different families."""
    return [make("tw-coin_collector", level=3, seed=1), make("tw-treasure_hunter", level=12, seed=2),
            make("tw-simple", rewards="dense", goal="detailed", seed=3),
            make("tw-custom", world_size=3, nb_objects=5, quest_length=3, seed=4)]


def test_start_walkthrough_wins_with_typed_commands(games):
    game = games[0]
    env = start(game, INFOS)
    state = env.reset()
    assert state["max_score"] == game.max_score > 0
    assert state["objective"] == game.objective and state["extra.walkthrough"] == list(game.walkthrough)
    assert state["location"] in state["description"]
    assert set(state["admissible_commands"]) <= set(game.info.commands)
    assert state["moves"] == 0 and not state["done"]
    total = 0.0
    assert state["policy_commands"] == list(game.walkthrough) and state["intermediate_reward"] == 0
    for t, command in enumerate(game.walkthrough):
        assert command in state["admissible_commands"], command
        assert state["policy_commands"] == list(game.walkthrough[t:])
        before = state["score"]
        state, score, done = env.step(command.upper() + "!")  # typed loosely
        total += score - before
        assert state["intermediate_reward"] == 1.0  # each walkthrough step shortens the policy (or wins)
        assert state["last_command"] == command.upper() + "!"
    assert done and state["won"] and not state["lost"]
    assert total == state["score"] == game.max_score
    assert state["moves"] == len(game.walkthrough)
    assert any(f[0] == "in" and f[1][1] == "I" for f in state["facts"])  # the coin is carried


def test_bad_commands_get_refusals_and_change_nothing(games):
    env = start(games[1], INFOS)
    state = env.reset()
    for command in ("dance wildly", "take unicorn", "", "open the the the", "go up"):
        after, score, done = env.step(command)
        assert after["moves"] == state["moves"] and after["facts"] == state["facts"], command
        assert after["feedback"].strip(), command
        assert not done and score == state["score"]
    assert env.step("dance")[0]["feedback"] != env.step("take unicorn")[0]["feedback"]


def test_infos_errors_and_unknown_names():
    with pytest.raises(UnknownNameError, match="admissible_commands"):
        EnvInfos(admissible_command=True)
    with pytest.warns(UserWarning, match="walkthrough"):   # as TextWorld: None, here with a suggestion
        state = start(make("tw-coin_collector", level=1), EnvInfos(extras=["walkthru"])).reset()
    assert state["extra.walkthru"] is None
    with pytest.raises(UnknownNameError, match="level"):
        make("tw-coin_collector", levle=3)
    with pytest.raises(UnknownNameError, match="tw-coin_collector"):
        make("tw-coin_colector", level=3)
    with pytest.raises(UnknownNameError):
        jaxlab.make("tw-coin_colector")


def test_save_load_round_trip_and_corrupt_files(games, tmp_path):
    for i, game in enumerate(games):
        path = game.save(tmp_path / f"g{i}.json")
        again = load(path)
        assert again.info.commands == game.info.commands and again.walkthrough == game.walkthrough
        assert again.max_score == game.max_score
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1, "world": [')
    with pytest.raises(TextWorldFormatError, match="broken.json.*line 1"):
        load(broken)
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"version": 7, "world": [], "quests": [], "infos": [], "KB": {"logic": ""}}))
    with pytest.raises(TextWorldFormatError, match="version"):
        start(str(odd))


def test_generated_games_play_the_same_in_textworld(games, tmp_path):
    """jaxlab's generated games, saved in TextWorld's format, are real TextWorld games: along the
    walkthrough and a random walk, TextWorld's admissible commands, score, won and lost match."""
    textworld = pytest.importorskip("textworld")
    asked = textworld.EnvInfos(admissible_commands=True, score=True, won=True, lost=True, moves=True,
                               policy_commands=True, intermediate_reward=True)
    rng = np.random.default_rng(0)
    compared = 0
    for i, game in enumerate(games):
        path = str(game.save(tmp_path / f"tw{i}.json"))
        for walk in (list(game.walkthrough), None):  # the walkthrough, then a random walk
            theirs, ours = textworld.start(path, request_infos=asked), start(game, INFOS)
            a, b = theirs.reset(), ours.reset()
            for t in range(len(walk) if walk else 20):
                assert set(a["admissible_commands"]) == set(b["admissible_commands"]), (game.name, t)
                assert (bool(a["won"]), bool(a["lost"])) == (b["won"], b["lost"]), (game.name, t)
                options = b["admissible_commands"]
                command = walk[t] if walk else options[rng.integers(len(options))]
                a, _, _ = theirs.step(command)
                b, _, _ = ours.step(command)
                assert (float(a["score"]), int(a["moves"])) == (b["score"], b["moves"]), (game.name, t, command)
                if walk:  # along the walkthrough the winning policy and intermediate reward agree exactly
                    assert (a["policy_commands"] or []) == b["policy_commands"], (game.name, t)
                    assert a["intermediate_reward"] == b["intermediate_reward"], (game.name, t)
                compared += 1
                if b["done"]:  # jaxlab's episode ends here; TextWorld would keep counting moves
                    break
            if walk:
                assert a["won"] and b["won"], game.name
    assert compared > 60


def test_commands_that_are_not_strings_are_refused_by_name_and_play_nothing(games):
    env = start(games[1], INFOS)
    state = env.reset()
    for bad in (None, 123, b"look", ["look"], 1.5):
        with pytest.raises(TypeError, match=rf"Environment.step: expected a command string \(str\), got {type(bad).__name__}"):
            env.step(bad)
    assert env.state["moves"] == state["moves"] and env.state["facts"] == state["facts"]
    assert env.step("look")[0]["moves"] == state["moves"] + 1  # still playable
    batch = BatchEnv(games[:2], EnvInfos(moves=True), batch_size=2)
    batch.reset()
    with pytest.raises(TypeError, match="BatchEnv.step: expected a list of 2 command strings, got str"):
        batch.step("look")
    with pytest.raises(TypeError, match=r"BatchEnv.step: command 1: expected a command string \(str\), got NoneType"):
        batch.step(["look", None])
    with pytest.raises(ValueError, match="expected 2 commands, got 1"):
        batch.step(["look"])
    assert batch.step(["look", "look"])[3]["moves"] == [1, 1]


@pytest.mark.parametrize("call, message", [
    (lambda g: start(g, infos="all"), r"start: infos: expected an EnvInfos .* or None, got str 'all'"),
    (lambda g: start(g, request_infos=["score"]),
     r"start: request_infos: expected an EnvInfos .*, got list \['score'\]"),
    (lambda g: start(g, {"score": True}), r"start: infos: expected an EnvInfos .*, got dict"),
    (lambda g: start(g, EnvInfos), r"start: infos: expected an EnvInfos .*, got type"),
    (lambda g: start(None), r"start: game_or_path: expected a jaxlab.text.Game or a game file path \(str or "
                            r"os.PathLike\), got NoneType None"),
    (lambda g: start(3.5, EnvInfos()), r"start: game_or_path: expected .*, got float 3.5"),
    (lambda g: load(None), r"load: path: expected a game file path \(str or os.PathLike\), got NoneType None"),
    (lambda g: BatchEnv([g, None]), r"BatchEnv: games\[1\]: expected a jaxlab.text.Game or a game file path"),
    (lambda g: BatchEnv([g], infos="all"), r"BatchEnv: infos: expected an EnvInfos"),
], ids=["infos_all", "request_infos_list", "infos_dict", "infos_class", "start_none", "start_float", "load_none",
        "batch_none", "batch_infos"])
def test_host_calls_name_the_argument_they_refuse(games, call, message):
    with pytest.raises(TypeError, match=message):
        call(games[0])


def test_batch_env_plays_pool_with_auto_reset(games):
    env = BatchEnv(games[:2], EnvInfos(admissible_commands=True, score=True, won=True, moves=True,
                                       extras=["walkthrough"]), batch_size=4, auto_reset=True)
    obs, infos = env.reset()
    assert len(obs) == 4 and all(o.strip() for o in obs)
    walks = [list(w) for w in infos["extra.walkthrough"]]
    won = [False] * 4
    for t in range(max(len(w) for w in walks)):
        commands = [w[t] if t < len(w) else "look" for w in walks]
        obs, scores, dones, infos = env.step(commands)
        for i, w in enumerate(walks):
            if t == len(w) - 1:
                assert dones[i] and infos["won"][i] and scores[i] == games[i % 2].max_score
                won[i] = True
    assert all(won)
    obs, scores, dones, infos = env.step(["look"] * 4)  # finished slots start their next game
    assert not any(dones) and all(m == 0 for m in infos["moves"])


def test_jaxlab_make_text_family_runs_under_jit_vmap():
    env = jaxlab.make("tw-treasure_hunter", level=5, seed=0, num_games=3, max_steps=20)
    assert isinstance(env, TextEnv) and env.num_games == 3
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    states, ts = jax.jit(jax.vmap(env.reset))(keys)
    actions = jax.numpy.zeros(8, jax.numpy.int32)
    states, ts = jax.jit(jax.vmap(env.step))(states, actions)
    assert ts.observation["feedback"].shape[0] == 8 and ts.reward.shape == (8,)
    assert "tw-treasure_hunter" in jaxlab.levels.names()


def test_cli_make_play_extract(tmp_path, capsys):
    out = tmp_path / "games"
    assert tw_main(["make", "tw-coin_collector", "--level", "4", "--seed", "2", "--output", str(out) + "/"]) == 0
    (path,) = list(out.glob("*.json"))
    assert tw_main(["make", "custom", "--world-size", "3", "--nb-objects", "4", "--quest-length", "2",
                    "--output", str(tmp_path / "c.json")]) == 0
    assert tw_main(["make", "custom", "--output", str(tmp_path / "c.json")]) == 1  # exists, no -f
    assert "exists" in capsys.readouterr().err
    assert tw_main(["play", str(path), "--mode", "walkthrough"]) == 0
    assert "(won)" in capsys.readouterr().out
    assert tw_main(["play", str(path), "--mode", "random", "--max-steps", "5"]) == 0
    for what in ("vocab", "entities", "walkthroughs", "commands"):
        target = tmp_path / f"{what}.txt"
        assert tw_main(["extract", what, str(path), str(tmp_path / "c.json"), "--output", str(target)]) == 0
        lines = target.read_text().splitlines()
        assert lines, what
    assert "coin" in (tmp_path / "entities.txt").read_text()
    assert "take coin" in (tmp_path / "commands.txt").read_text()
    assert "coin" in (tmp_path / "vocab.txt").read_text().split()
    assert tw_main(["play", str(tmp_path / "missing.json"), "--mode", "random"]) == 1
    assert "no such file" in capsys.readouterr().err


def test_cli_takes_tw_makes_options_and_names_the_unsupported_ones(tmp_path, capsys):
    cooking = tmp_path / "cooking.json"
    assert tw_main(["make", "tw-cooking", "--recipe", "2", "--take", "1", "--go", "6", "--open", "--cook", "--cut",
                    "--recipe-seed", "3", "--split", "valid", "--output", str(cooking), "--silent"]) == 0
    assert cooking.exists() and capsys.readouterr().out == ""
    assert tw_main(["play", str(cooking), "--mode", "walkthrough"]) == 0
    assert "(won)" in capsys.readouterr().out
    assert tw_main(["make", "custom", "--quest-min-length", "3", "--quest-max-length", "3", "--output",
                    str(tmp_path / "q.json")]) == 0
    assert len(load(tmp_path / "q.json").walkthrough) >= 3
    capsys.readouterr()
    assert tw_main(["make", "custom", "--include-adj", "--format", "z8", "--nb-parallel-quests", "2",
                    "--output", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert all(flag in err for flag in ("--include-adj", "--format", "--nb-parallel-quests")), err
    assert not (tmp_path / "x.json").exists()
    assert tw_main(["make", "tw-cooking", "--drop", "--recipe", "2", "--cut", "--output", str(tmp_path / "d.json"),
                    "--silent"]) == 0
    assert tw_main(["play", str(tmp_path / "d.json"), "--mode", "walkthrough"]) == 0
    assert "(won)" in capsys.readouterr().out

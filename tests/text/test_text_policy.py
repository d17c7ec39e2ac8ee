"""The winning policy and the intermediate reward (``jaxlab.kernels.text.policy``) against TextWorld.

Games generated with textworld (coin collector, treasure hunter at easy,
medium and hard levels, tw-simple, custom games, hand-built food quests that
can be lost) are played in both, and TextWorld's ``policy_commands`` and
``intermediate_reward`` compared with TextEnv's ``policy`` and
``intermediate_reward`` observations at every step: along the walkthrough
and along walkthroughs with detours that come back (a wrong way and back,
taking and dropping a distractor, opening and closing one) they must agree
exactly; along random walks (which can wander far, lose, and reach parts of
the policy in another order) the agreement rate is printed and must stay
above a floor, as the policy does not model every TextWorld tree rewrite
(see ``policy``). jaxlab plays every episode at once in one jitted scan.
Without textworld only the step-by-step test on a hand-written game runs.
"""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.bank import Bank
from jaxlab.kernels.text import kernel, policy
from jaxlab.levels.text import policy_tables
from jaxlab.text import TextEnv, compile_spec, load_textworld, load_textworld_bank, read_textworld

CHALLENGES = (("tw-coin_collector", {"level": 5}), ("tw-coin_collector", {"level": 30}),
              ("tw-treasure_hunter", {"level": 3}), ("tw-treasure_hunter", {"level": 15}),
              ("tw-treasure_hunter", {"level": 22}),
              ("tw-simple", {"rewards": "dense", "goal": "detailed", "test": False}))  # one quest a step
CUSTOM_SEEDS = (404, 408, 413, 419)  # 413: a wrong way is a shortcut (its walkthrough goes round a loop)
DETOURS, RANDOM_WALKS, RANDOM_STEPS = 3, 3, 25
RANDOM_FLOOR = 0.95
INFOS = dict(policy_commands=True, intermediate_reward=True, admissible_commands=True, won=True, lost=True)
BACK = {"north": "south", "south": "north", "east": "west", "west": "east"}


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """[path]: the generated games (each from its own seed) and two food games."""
    pytest.importorskip("textworld")
    from test_text_import import _challenge, _custom, _food_games

    folder = tmp_path_factory.mktemp("policy_games")
    paths = []
    for i, (name, settings) in enumerate(CHALLENGES):
        path = folder / f"{name}_{i}.json"
        _challenge(name, settings, 500 + i, path)
        paths.append(path)
    for seed in CUSTOM_SEEDS:
        path = folder / f"custom_{seed}.json"
        assert _custom(seed, path)
        paths.append(path)
    # food_1 is left out: its walkthrough opens a chest and takes an apple, independent actions that
    # TextWorld's flattening swaps after a detour (a known difference, see ``policy``).
    return paths + [path for _, path in _food_games(folder)[::2]]


def _detour(state, command, rng, walkthrough):
    """A pair of commands that leaves and comes back (or ``[]``): a wrong way, or a distractor handled."""
    words = " ".join(walkthrough)
    options = [(c, "go " + BACK[c[3:]]) for c in state["admissible_commands"] if c.startswith("go ") and c != command]
    for verb, undo in (("take ", "drop "), ("open ", "close ")):
        options += [(c, undo + c[len(verb):]) for c in state["admissible_commands"]
                    if c.startswith(verb) and " from " not in c and c[len(verb):] not in words]
    return list(options[rng.integers(len(options))]) if options else []


def _episode(path, kind, rng, commands):
    """Play in TextWorld: the walkthrough, with detours, or a random walk.

    Returns (commands played, [(policy commands, intermediate reward)] at the
    reset and after each command). A random walk plays an admissible command,
    or 1 time in 8 an inadmissible one of jaxlab's table (``commands``).
    """
    import textworld

    env = textworld.start(str(path), request_infos=textworld.EnvInfos(**INFOS))
    state = env.reset()
    played, records = [], [(list(state["policy_commands"]), int(state["intermediate_reward"]))]

    def play(command):
        nonlocal state
        state, _, _ = env.step(command)
        played.append(command)
        records.append((list(state["policy_commands"]), int(state["intermediate_reward"])))

    if kind == "random walk":
        for _ in range(RANDOM_STEPS):
            admissible = state["admissible_commands"]
            others = [c for c in commands if c not in admissible]
            play(others[rng.integers(len(others))] if others and rng.random() < 0.125
                 else admissible[rng.integers(len(admissible))])
            if state["won"] or state["lost"]:
                break
        return played, records
    walkthrough = list(env._game.metadata["walkthrough"])
    stops = rng.choice(len(walkthrough), min(DETOURS, len(walkthrough)), replace=False) if kind == "detours" else ()
    for i, command in enumerate(walkthrough):
        for c in _detour(state, command, rng, walkthrough) if i in stops else ():
            play(c)
        play(command)
    return played, records


def _play(env, game_index, command_ids):
    """Every episode (one per row of ``command_ids`` int32[B, T]) in one jitted scan: policies and rewards."""

    def episode(index, ids):
        state = env.init_state(jax.random.PRNGKey(0), index)
        first = env.observe(state)

        def one(state, command):
            state, ts = env.step(state, command)
            return state, (ts.observation["policy"], ts.observation["intermediate_reward"])

        _, (policies, rewards) = jax.lax.scan(one, state, ids)
        return (jnp.concatenate([first["policy"][None], policies]),
                jnp.concatenate([first["intermediate_reward"][None], rewards]))

    return jax.jit(jax.vmap(episode))(game_index, command_ids)


def test_policy_and_intermediate_reward_match_textworld(games):
    bank, infos = load_textworld_bank(games)
    env = TextEnv(bank, infos, observations=("policy", "intermediate_reward"))
    episodes = []  # (game index, kind, commands, records)
    for g, path in enumerate(games):
        rng = np.random.default_rng(g)
        kinds = ["walkthrough"] + ["detours"] * DETOURS + ["random walk"] * RANDOM_WALKS
        for kind in kinds:
            played, records = _episode(path, kind, rng, infos[g].commands)
            episodes.append((g, kind, played, records))
    length = max(len(e[2]) for e in episodes)
    ids = np.full((len(episodes), length), -1, np.int32)
    for row, (g, _, played, _) in enumerate(episodes):
        ids[row, :len(played)] = [infos[g].command_id(c) for c in played]
    index = np.array([e[0] for e in episodes], np.int32)
    policies, rewards = jax.device_get(_play(env, index, ids))

    agree, total, detoured, lost = {}, {}, 0, 0
    for row, (g, kind, played, records) in enumerate(episodes):
        commands = infos[g].commands
        for t, (tw_policy, tw_reward) in enumerate(records):
            mine = [commands[c] for c in policies[row, t] if c >= 0]
            same = mine == tw_policy and rewards[row, t] == tw_reward
            if kind != "random walk":
                where = f"{games[g].name} {kind} step {t} ({played[t - 1] if t else 'reset'!r}) after {played[:t]}"
                assert same, (where, mine, tw_policy, float(rewards[row, t]), tw_reward)
            agree[kind] = agree.get(kind, 0) + same
            total[kind] = total.get(kind, 0) + 1
            detoured += kind == "detours" and tw_reward == -1
            lost += tw_reward == -1 and not tw_policy
    rates = {kind: f"{agree[kind]}/{total[kind]} = {agree[kind] / total[kind]:.3f}" for kind in total}
    print("policy and intermediate reward agreement with TextWorld:", rates)
    assert agree["random walk"] / total["random walk"] >= RANDOM_FLOOR, rates
    assert total["walkthrough"] + total["detours"] > 300 and detoured > 10, (total, detoured)
    assert lost > 0, "no episode was lost: -1 on losing is not exercised"


def test_policy_fields_padding_and_no_walkthrough(games):
    """Bank padding keeps the policy (positions pad at the front); no walkthrough: no policy."""
    (small, big) = games[2], games[0]
    (ga, ia), (gb, _) = load_textworld(small), load_textworld(big)
    assert int(np.sum(np.asarray(ga.pol_init) >= 0)) == len(ia.walkthrough)
    assert ga.pol_init.shape[0] == len(ia.walkthrough) + policy_tables.SLACK
    padded = Bank.stack([ga, gb]).get(0)
    commands = ("go north", "go south", "go east", "go west") + tuple(ia.walkthrough)
    ids = jnp.array([ia.command_id(c) for c in commands], jnp.int32)

    @jax.jit
    def play(game):
        def one(state, command):
            state, _ = kernel.step(game, state, command)
            return state, (policy.commands(game, state.policy), state.intermediate_reward)

        state, trace = jax.lax.scan(one, kernel.initial_state(game, jax.random.PRNGKey(0)), ids)
        return state.won, trace

    (won_a, (pa, ra)), (won_b, (pb, rb)) = play(ga), play(padded)
    for t in range(len(commands)):
        assert list(pa[t][pa[t] >= 0]) == list(pb[t][pb[t] >= 0]) and float(ra[t]) == float(rb[t]), commands[t]
    assert bool(won_a) == bool(won_b)
    assert bool(won_b) and float(rb[-1]) == 1.0 and -1.0 in np.asarray(rb)  # a wrong way pushed the way back

    game, info = compile_spec(dataclasses.replace(read_textworld(small), walkthrough=()))
    env = TextEnv(Bank.stack([game]), [info], observations=("policy", "intermediate_reward"))
    assert env.observation_spec()["policy"].shape == (1,)
    state, ts = jax.jit(env.reset)(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    for command in ia.walkthrough:
        assert int(np.max(ts.observation["policy"])) == -1
        assert float(ts.observation["intermediate_reward"]) == 0.0
        state, ts = step(state, info.command_id(command))
    assert float(ts.observation["intermediate_reward"]) == 1.0  # won


def test_policy_on_a_hand_written_game(tmp_path):
    """The semantics step by step on test_text_logic's small game (no textworld needed)."""
    import test_text_logic as hand

    def run(data, commands):
        game, info = load_textworld(hand.write(tmp_path, data))
        env = TextEnv(Bank.stack([game]), [info], observations=("policy", "intermediate_reward", "lost"))
        state, ts = jax.jit(env.reset)(jax.random.PRNGKey(0))
        step, out = jax.jit(env.step), []
        for command in ("reset",) + commands:
            if command != "reset":
                state, ts = step(state, info.command_id(command))
            obs = ts.observation
            out.append(([info.commands[c] for c in obs["policy"] if c >= 0], float(obs["intermediate_reward"])))
        return out

    coin = ["pick up gold coin"]
    assert run(hand.game_json(), ("pick up cake", "go east", "go west", "dance", "go east", "put down cake",
                                  "pick up gold coin")) == [
        (["go east"] + coin, 0.0),  # the walkthrough
        (["go east"] + coin, 0.0),  # a distractor: its reverse is needed by nothing
        (coin, 1.0),  # popped
        (["go east"] + coin, -1.0),  # the wrong way pushes the way back
        (["go east"] + coin, 0.0),  # an unknown command changes nothing
        (coin, 1.0),
        (coin, 0.0),
        ([], 1.0)]  # won
    lose = hand.game_json(quests=[hand.GET_COIN, hand.DONT_EAT])
    assert run(lose, ("pick up cake", "munch cake")) == [(["go east"] + coin, 0.0)] * 2 + [([], -1.0)]

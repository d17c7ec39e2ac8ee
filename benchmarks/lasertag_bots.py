"""How strong laser tag's bots are: episode scores of pairings over many episodes, all in one batch each.

Pairings on ``--level`` (default ``lasertag_one_opponent_small``, one bot of
skill 4):
- ``random``: the agent draws DMLab's 9 IMPALA actions uniformly (DMLab-30's
  random baseline; its published random score on this level is -0.224);
- ``aim_and_fire``: the scripted agent of ``agents.scripted`` (turns to the
  nearest player in sight and fires, never walks);
- ``bot:S``: the agent's player is played by a bot of skill S against the
  level's skill-4 bot (bot against bot: the higher skill should score more).

Reports, per pairing, the agent's mean episode score (its return: tags made
minus self-tags) and the opponent's, with standard errors, and the share of
episodes the agent's side won. Episodes run without frames (no observation
asked for), ``--episodes`` in one batch, for ``--seconds`` of game time each.

Usage::

    PYTHONPATH=. python benchmarks/lasertag_bots.py [--episodes 1000] [--seconds 240]
        [--pairings random,aim_and_fire,bot:1,bot:2,bot:3,bot:5] [--markdown]
"""
from __future__ import annotations

import argparse
import time

import jax
import numpy as np

import jaxlab
from jaxlab.agents.scripted import aim_and_fire, random_actions
from jaxlab.bench.timing import device_and_date
from jaxlab.kernels.first_person.bots import choose_for
from jaxlab.levels.dmlab.procedural.rng import key_words


def policy_for(env, pairing: str):
    """``(state, key) -> (state, int32[7])``: the agent's action (and the state with a bot's memory) for
    ``pairing``."""
    if pairing == "random":
        return lambda state, key: (state, random_actions(key))
    if pairing == "aim_and_fire":
        return lambda state, key: (state, aim_and_fire(env.level(state), state, env.action_repeat))
    if pairing.startswith("bot:"):
        def as_bot(state, key):
            act, state = choose_for(env.level(state), state, env.action_repeat, env.fps, rows=(0,),
                                    seed=key_words(key))
            return state, act[0]
        return as_bot
    raise ValueError(f"unknown pairing {pairing!r}: random, aim_and_fire or bot:S")


def play(env, pairing: str, episodes: int, seed: int):
    """Final scores int32[episodes, P] of ``episodes`` episodes of ``pairing``, and the seconds they took."""
    policy = policy_for(env, pairing)
    steps = int(np.ceil(float(env._episode_seconds) * env.fps / env.action_repeat))

    def run(key):
        k_reset, k_play = jax.random.split(key)
        state, _ = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))
        if pairing.startswith("bot:"):
            state = state.replace(arena=state.arena.replace(bot=state.arena.bot.at[:, 0].set(float(pairing[4:]))))

        def one(state, key):
            state, act = jax.vmap(policy)(state, jax.random.split(key, episodes))
            state, _ = jax.vmap(env.step)(state, act)
            return state, None

        state, _ = jax.lax.scan(one, state, jax.random.split(k_play, steps))
        return state.arena.score

    run = jax.jit(run)
    jax.block_until_ready(run(jax.random.PRNGKey(seed + 1)))   # compile
    start = time.perf_counter()
    scores = np.asarray(jax.block_until_ready(run(jax.random.PRNGKey(seed))))
    return scores, time.perf_counter() - start


def main(argv=None) -> None:
    """Run the pairings (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="lasertag_one_opponent_small")
    ap.add_argument("--episodes", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=240.0)
    ap.add_argument("--pairings", default="random,aim_and_fire,bot:1,bot:2,bot:3,bot:5")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    env = jaxlab.make(args.level, observations=(), action_repeat=4, episode_length_seconds=args.seconds)
    print(f"{args.level}, {args.episodes} episodes of {args.seconds:g} s per pairing, {device_and_date()}")
    if args.markdown:
        print("\n| agent | agent's score (mean ± s.e.) | opponent's score | agent's side won | seconds |\n"
              "|---|---:|---:|---:|---:|")
    for pairing in args.pairings.split(","):
        scores, seconds = play(env, pairing, args.episodes, args.seed)
        agent, rival = scores[:, 0], scores[:, 1:].max(1)
        se = agent.std(ddof=1) / np.sqrt(len(agent))
        rse = rival.std(ddof=1) / np.sqrt(len(rival))
        won = float(np.mean(agent > rival))
        if args.markdown:
            print(f"| {pairing} | {agent.mean():.2f} ± {se:.2f} | {rival.mean():.2f} ± {rse:.2f} | {won:.0%} "
                  f"| {seconds:.0f} |")
        else:
            print(f"{pairing:14s} agent {agent.mean():7.2f} ± {se:.2f}   opponent {rival.mean():7.2f} ± {rse:.2f}"
                  f"   won {won:.0%}   ({seconds:.0f} s)")


if __name__ == "__main__":
    main()

"""Env-steps/s of TextWorld games in jaxlab's TextEnv, side by side with TextWorld.

Generates a set of games with the ``textworld`` package (coin collector,
treasure hunter, tw-simple and custom quests; ``--games DIR`` uses the
``.json`` games in DIR instead, generating the set there first if it has
none), imports them into one bank with ``load_textworld_bank`` and runs
``AutoReset(TextEnv(bank, infos))`` per batch size as a jitted ``lax.scan``
of ``--steps`` steps of ``jax.vmap(env.step)``. The random agent draws a
command uniformly among the admissible ones (one uniform number per env
picks the i-th admissible command); the observations that match what
TextWorld is asked for (``--all-observations``: every one) ride in the scan
carry, so all of them are computed for every env at every step.
Each episode plays a game drawn uniformly from the bank and is truncated
after ``--max-steps`` commands.

TextWorld plays the same games in the same process: ``textworld.start`` on
each game's ``.z8`` (Jericho, with text feedback; the ``.json`` where no
``.z8`` was compiled, or with ``--textworld-json``; with ``--all-observations`` it is asked for the
description and inventory texts too), the same random agent
and truncation, ``--tw-steps`` steps per game including resets; its rate is
the summed steps over the summed seconds. ``--no-textworld`` skips it.

Usage::

    PYTHONPATH=. python benchmarks/text.py [--games DIR] [--batches 1,16,256]
        [--steps 50] [--repeats 5] [--max-steps 100] [--tw-steps 300]
        [--all-observations] [--textworld-json] [--no-textworld] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp

from common import (add_output_arguments, batch_sizes, device_and_date, finish, initial_carry, log, make_rollout,
                    measure, measure_rows, versus)
from jaxlab.text import TextEnv, kernel, load_textworld_bank
from jaxlab.text import env as text_env
from jaxlab.wrappers import AutoReset

try:
    import textworld
except ImportError:
    textworld = None

CPU_BATCHES = (1, 16, 256, 4096, 16384)
ACCELERATOR_BATCHES = CPU_BATCHES + (65536, 262144)
#: (file name, TextWorld challenge, settings); the i-th game is generated with seed i + 1
CHALLENGE_GAMES = tuple((f"coin_collector-{n}", "tw-coin_collector", {"level": n}) for n in (5, 50, 150)) + tuple(
    (f"treasure_hunter-{n}", "tw-treasure_hunter", {"level": n}) for n in (5, 15, 25)) + (
    ("simple", "tw-simple", {"rewards": "balanced", "goal": "detailed", "test": False}),)
#: (file name, rooms, objects, quest length) of custom games (``textworld.generator.make_game``)
CUSTOM_GAMES = (("custom-4x10x3", 4, 10, 3), ("custom-8x20x5", 8, 20, 5))
#: how TextWorld plays a game file
ENGINES = {".z8": ".z8 in Jericho, with text feedback", ".json": ".json in TextWorld's Python engine, no feedback text"}
HEADER = ("| batch | compile + first call (s) | step (ms) | env-steps/s (median) | env-steps/s (best) "
          "| × TextWorld |\n|---:|---:|---:|---:|---:|---:|")


def generate_games(folder: Path) -> None:
    """Write the default games to ``folder``: a ``.json`` each, and a ``.z8`` where Inform 7 compiles it."""
    from textworld.challenges import CHALLENGES
    from textworld.generator import CouldNotCompileGameError, compile_game, make_game
    from textworld.generator.game import GameOptions

    todo = [(name, challenge, settings) for name, challenge, settings in CHALLENGE_GAMES]
    todo += [(name, None, (rooms, objects, length)) for name, rooms, objects, length in CUSTOM_GAMES]
    for seed, (name, challenge, settings) in enumerate(todo, start=1):
        log(f"generating {name}")
        options = GameOptions()
        options.seeds, options.path = seed, str(folder / f"{name}.z8")
        if challenge:
            game = CHALLENGES[challenge][1](settings=settings, options=options)
        else:
            options.nb_rooms, options.nb_objects, length = settings
            options.chaining.min_length = options.chaining.max_length = options.chaining.max_depth = length
            game = make_game(options)
        try:
            compile_game(game, options)  # saves the .json, then compiles the .z8
        except (CouldNotCompileGameError, OSError) as error:
            log(f"  {name}: no .z8 ({type(error).__name__}); TextWorld will play the .json")


#: what TextWorld is asked for (EnvInfos), as TextEnv observations: the default comparison
MATCHING_OBSERVATIONS = ("feedback", "admissible", "score", "won", "lost", "moves")


def make_env(paths, max_steps: int, observations) -> AutoReset:
    """``AutoReset(TextEnv)`` over the games at ``paths`` computing ``observations``."""
    bank, infos = load_textworld_bank(paths)
    return AutoReset(TextEnv(bank, infos, name="textworld", max_steps=max_steps, observations=observations))


def uniform_admissible(key: jax.Array, admissible: jnp.ndarray) -> jnp.ndarray:
    """int32[B]: a command drawn uniformly among each row's admissible ones (bool[B, K]), with one
    random number per env (the i-th admissible command for a uniform i), so the agent costs little.

    The mask is packed into 32-bit words: a prefix count over the words finds the word of the i-th
    admissible command and five halvings with population counts its bit (a prefix sum over all K
    commands would cost the agent about as much as the env's step on the CPU)."""
    batch = admissible.shape[0]
    packed = kernel.packed_words(admissible)
    words = packed.shape[-1]
    counts = jax.lax.population_count(packed).astype(jnp.int32)
    through = jnp.cumsum(counts, axis=-1)
    pick = jnp.floor(jax.random.uniform(key, (batch,)) * through[:, -1]).astype(jnp.int32)
    word = jnp.minimum(jnp.sum(through <= pick[:, None], axis=-1), words - 1)
    rest = pick - (jnp.take_along_axis(through - counts, word[:, None], axis=-1)[:, 0])
    x = jnp.take_along_axis(packed, word[:, None], axis=-1)[:, 0]
    pos = jnp.zeros(batch, jnp.uint32)
    for half in (16, 8, 4, 2, 1):
        low = jax.lax.population_count((x >> pos) & jnp.uint32((1 << half) - 1)).astype(jnp.int32)
        pos, rest = jnp.where(rest >= low, pos + half, pos), jnp.where(rest >= low, rest - low, rest)
    return jnp.where(through[:, -1] > 0, word * 32 + pos.astype(jnp.int32), 0).astype(jnp.int32)


def measure_batch(env, batch: int, steps: int, repeats: int, seed: int = 0) -> dict:
    """Time ``steps`` batched steps of ``batch`` envs of the random admissible-command agent: compile,
    median and best rates."""
    rollout = make_rollout(env, steps, lambda key, observations: uniform_admissible(key, observations["admissible"]))
    return measure(rollout, initial_carry(env, batch, seed), batch, steps, repeats)


def textworld_rate(paths, steps: int, max_steps: int, use_json: bool, seed: int = 0, texts: bool = False) -> dict:
    """TextWorld's steps/s: the random admissible-command agent, ``steps`` steps per game, summed.

    Each game's ``.z8`` is played when it exists (unless ``use_json``),
    else its ``.json``. The clock runs from after the first reset to the
    last step; resets on done (won, lost or ``max_steps`` commands) count.
    """
    infos = textworld.EnvInfos(admissible_commands=True, score=True, won=True, lost=True, moves=True,
                               feedback=True, description=texts, inventory=texts)
    rng, total_s, engines = random.Random(seed), 0.0, set()
    for path in paths:
        played = path if use_json or not path.with_suffix(".z8").exists() else path.with_suffix(".z8")
        engines.add(ENGINES[played.suffix])
        env = textworld.start(str(played), request_infos=infos)
        state, length = env.reset(), 0
        t0 = time.perf_counter()
        for _ in range(steps):
            state, _, done = env.step(rng.choice(state["admissible_commands"]))
            length += 1
            if done or length >= max_steps:
                state, length = env.reset(), 0
        seconds = time.perf_counter() - t0
        env.close()
        log(f"TextWorld {played.name}: {steps / seconds:,.0f} steps/s")
        total_s += seconds
    return {"rate": steps * len(paths) / total_s, "steps": steps * len(paths), "seconds": total_s,
            "engine": "; ".join(sorted(engines))}


def describe(args, env, paths, tw: dict | None, tw_note: str) -> str:
    """The section heading, setup lines and TextWorld's rate of a run."""
    names = ", ".join(p.stem for p in paths)
    observations = ", ".join(env.observation_spec())
    head = (f"### Text quests: {len(paths)} TextWorld games, random admissible-command agent "
            f"— {device_and_date()}\n\n"
            f"jax {jax.__version__}; games: {names} (one bank, {env.num_commands} command slots); "
            f"`AutoReset(TextEnv)`, episodes truncated at {args.max_steps} commands; observations: "
            f"{observations}; {args.steps} steps per timed scan, median/best of {args.repeats}.")
    if tw:
        asked = "feedback/" + ("description/inventory/" if args.all_observations else "") + \
            "admissible/score/won/lost/moves"
        return head + (f"\n\nTextWorld {textworld.__version__} ({tw['engine']}; same games, same process, "
                       f"{asked} requested): **{tw['rate']:,.0f} steps/s** "
                       f"({tw['steps']:,} steps in {tw['seconds']:.1f} s, {args.tw_steps} per game, resets "
                       f"included); × TextWorld = jaxlab median / TextWorld.")
    return head + f"\n\nTextWorld not measured ({tw_note})."


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", metavar="DIR", help="use the .json games in DIR (generated there if it has none)")
    ap.add_argument("--batches", default=None,
                    help="comma-separated batch sizes (default 1,16,256,4096,16384; +65536,262144 on a GPU)")
    ap.add_argument("--steps", type=int, default=50, help="env steps per timed scan (default 50)")
    ap.add_argument("--repeats", type=int, default=5, help="timed scans per batch size (default 5)")
    ap.add_argument("--all-observations", action="store_true",
                    help="compute every TextEnv observation (default: those TextWorld is asked for)")
    ap.add_argument("--max-steps", type=int, default=100, help="episode truncation in commands (default 100)")
    ap.add_argument("--tw-steps", type=int, default=300, help="TextWorld steps per game (default 300)")
    ap.add_argument("--textworld-json", action="store_true", help="TextWorld plays the .json, not the .z8")
    ap.add_argument("--no-textworld", action="store_true", help="skip the TextWorld measurement")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    batches = batch_sizes(args.batches, CPU_BATCHES, ACCELERATOR_BATCHES)

    with tempfile.TemporaryDirectory(prefix="jaxlab_text_bench_") as scratch:
        folder = Path(args.games or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        if not any(folder.glob("*.json")):
            if textworld is None:
                sys.exit("generating games needs the textworld package (pip install textworld), or pass --games DIR")
            generate_games(folder)
        paths = sorted(folder.glob("*.json"))
        observations = text_env.OBSERVATIONS if args.all_observations else MATCHING_OBSERVATIONS
        env = make_env(paths, args.max_steps, observations)
        tw, tw_note = None, "--no-textworld" if args.no_textworld else "textworld is not installed"
        if textworld is not None and not args.no_textworld:
            tw = textworld_rate(paths, args.tw_steps, args.max_steps, args.textworld_json,
                                texts=args.all_observations)

    head = describe(args, env, paths, tw, tw_note)
    rows = [row for _, row in measure_rows(args, head, HEADER, batches,
                                           lambda batch: measure_batch(env, batch, args.steps, args.repeats),
                                           versus(tw, "TextWorld", 0))]
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()

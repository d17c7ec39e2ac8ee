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

``--express``: side by side with TextWorldExpress instead (``jaxlab.bench.text_express``): coin
collector and cooking played by TextWorldExpress through its Python API (one env; skipped with the
reason when ``textworld_express`` or Java is missing), by jaxlab's host API (``jaxlab.text.start``,
one env) and batched (``--express-games`` generated games per bank, default batches 1,256,1024,4096,16384),
the same random agent and truncation; ``--twx-steps`` and ``--host-steps`` steps timed.

Usage::

    PYTHONPATH=. python benchmarks/text.py [--games DIR] [--batches 1,16,256]
        [--steps 50] [--repeats 5] [--max-steps 100] [--tw-steps 300]
        [--all-observations] [--textworld-json] [--no-textworld] [--markdown] [--append BENCHMARKS.md]
    PYTHONPATH=. python benchmarks/text.py --express [--batches 1,256,1024,4096,16384] [--twx-steps 20000]
        [--host-steps 1000] [--express-games 64] [--all-observations] [--plot PNG] [--markdown]
        [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import jax

from jaxlab.bench.text import (ACCELERATOR_BATCHES, CPU_BATCHES, MATCHING_OBSERVATIONS, MAX_STEPS, STEPS, TW_STEPS,
                               game_paths, make_env, measure_batch, textworld_missing, textworld_rate)
from jaxlab.bench.text_express import HEADER as EXPRESS_HEADER
from jaxlab.bench.text_express import HOST_STEPS, NUM_GAMES, TWX_STEPS, express_rows, plot_express, twx_missing
from jaxlab.bench.text_express import describe as describe_express
from jaxlab.bench.timing import add_output_arguments, batch_sizes, device_and_date, finish, measure_rows, versus
from jaxlab.kernels.text import env as text_env

#: the batch sizes of ``--express`` by default
EXPRESS_BATCHES = (1, 256, 1024, 4096, 16384)
HEADER = ("| batch | compile + first call (s) | step (ms) | env-steps/s (median) | env-steps/s (best) "
          "| × TextWorld |\n|---:|---:|---:|---:|---:|---:|")


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
        return head + (f"\n\nTextWorld {tw['version']} ({tw['engine']}; same games, same process, "
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
    ap.add_argument("--steps", type=int, default=STEPS, help=f"env steps per timed scan (default {STEPS})")
    ap.add_argument("--repeats", type=int, default=5, help="timed scans per batch size (default 5)")
    ap.add_argument("--all-observations", action="store_true",
                    help="compute every TextEnv observation (default: those TextWorld is asked for)")
    ap.add_argument("--max-steps", type=int, default=MAX_STEPS,
                    help=f"episode truncation in commands (default {MAX_STEPS})")
    ap.add_argument("--tw-steps", type=int, default=TW_STEPS, help=f"TextWorld steps per game (default {TW_STEPS})")
    ap.add_argument("--textworld-json", action="store_true", help="TextWorld plays the .json, not the .z8")
    ap.add_argument("--no-textworld", action="store_true", help="skip the TextWorld measurement")
    ap.add_argument("--express", action="store_true",
                    help="coin collector and cooking side by side with TextWorldExpress instead")
    ap.add_argument("--twx-steps", type=int, default=TWX_STEPS,
                    help=f"--express: TextWorldExpress steps timed per game (default {TWX_STEPS})")
    ap.add_argument("--host-steps", type=int, default=HOST_STEPS,
                    help=f"--express: jaxlab host-API steps timed per game (default {HOST_STEPS})")
    ap.add_argument("--plot", metavar="PNG", help="--express: also plot the rates and the targets into PNG")
    ap.add_argument("--express-games", type=int, default=NUM_GAMES,
                    help=f"--express: generated games per jaxlab bank (default {NUM_GAMES})")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    if args.express:
        return express(args)
    batches = batch_sizes(args.batches, CPU_BATCHES, ACCELERATOR_BATCHES)

    with tempfile.TemporaryDirectory(prefix="jaxlab_text_bench_") as scratch:
        try:
            paths = game_paths(Path(args.games or scratch))
        except RuntimeError as error:
            sys.exit(str(error))
        observations = text_env.OBSERVATIONS if args.all_observations else MATCHING_OBSERVATIONS
        env = make_env(paths, args.max_steps, observations)
        tw, tw_note = None, textworld_missing(args.no_textworld)
        if not tw_note:
            tw = textworld_rate(paths, args.tw_steps, args.max_steps, args.textworld_json,
                                texts=args.all_observations)

    head = describe(args, env, paths, tw, tw_note)
    rows = [row for _, row in measure_rows(args, head, HEADER, batches,
                                           lambda batch: measure_batch(env, batch, args.steps, args.repeats),
                                           versus(tw, "TextWorld", 0))]
    finish(args, head, HEADER, rows)


def express(args) -> None:
    """The ``--express`` run: coin collector and cooking side by side with TextWorldExpress."""
    batches = batch_sizes(args.batches, EXPRESS_BATCHES, EXPRESS_BATCHES)
    observations = text_env.OBSERVATIONS if args.all_observations else MATCHING_OBSERVATIONS
    twx_note = twx_missing()
    if twx_note:
        print(f"TextWorldExpress skipped: {twx_note}", file=sys.stderr)
    head = describe_express(args, observations, twx_note)
    if args.markdown:
        print(head + "\n\n" + EXPRESS_HEADER, flush=True)
    measured = {}
    finish(args, head, EXPRESS_HEADER, list(express_rows(args, batches, observations, twx_note, measured)))
    if args.plot:
        plot_express(measured, args.plot)
        print(f"plotted into {args.plot}")


if __name__ == "__main__":
    main()

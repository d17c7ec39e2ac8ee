"""``jaxlab-bench``: every family's speed benchmark across batch sizes, originals side by side.

Times first-person (nav_maze_static_01, 96x72 RGB, action_repeat 4), grid (pushbox and
jaxlab_commons_harvest, WORLD.RGB), text (TextWorld games, every observation) and one memory task, each as a
jitted ``lax.scan`` of batched steps with observations on, per batch size; dmlab2d (pushbox) and
TextWorld (the same games) run in the same process where installed (``pip install jaxlab[originals]``).
DeepMind Lab, which first-person levels and dm_memorytasks come from, is not pip-installable: the
table says so instead of giving a figure.

Prints a dated markdown section (family, env, batch, env-steps/s, compile + first call, device, date,
the original's steps/s and the ratio) to stdout, or appends it to ``--append FILE``; ``--plot`` saves
a log-log PNG of env-steps/s against batch size; ``--json`` keeps the raw results, which
``--from-json`` turns into the table and plot again without measuring. A progress bar runs on stderr.

Usage::

    jaxlab-bench [--families first_person,grid,text,memory] [--batches 1,16,256] [--steps N]
        [--repeats 5] [--quick] [--no-originals] [--append BENCHMARKS.md] [--plot [PNG]] [--json PATH]
    jaxlab-bench --from-json results.json --plot docs/images/bench_cpu.png
"""
from __future__ import annotations

import argparse
import datetime
import shlex
import sys
import tempfile
from pathlib import Path

import jax
from tqdm import tqdm

from jaxlab.bench import report
from jaxlab.bench.grid import DM_STEPS
from jaxlab.bench.targets import FAMILIES, GRID_LEVELS, MEMORY_LEVEL, PLANNERS, Options
from jaxlab.bench.text import TW_STEPS
from jaxlab.bench.timing import device_slug, log
from jaxlab.demo.rollout import device_name
from jaxlab.kernels.grid.env import DEFAULT_LAYOUTS

#: ``--quick``: sizes for a smoke run (CI): the batches, steps and repeats unless given, and the rest
QUICK = {"batches": (1, 4), "steps": 4, "repeats": 2, "dm_steps": 200, "tw_steps": 20, "layouts": 16,
         "grid_levels": ("pushbox",), "game_names": ("coin_collector-5",)}
REPEATS = 5


def _names(spec: str) -> tuple:
    """The comma-separated names of ``spec``, stripped, empty ones dropped."""
    return tuple(n.strip() for n in spec.split(",") if n.strip())


def parse_args(argv=None) -> argparse.Namespace:
    """``jaxlab-bench``'s options (see the module docstring); exits with a usage error on unknown families."""
    ap = argparse.ArgumentParser(prog="jaxlab-bench", description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    ap.add_argument("--families", default=",".join(FAMILIES), help=f"comma-separated (default {','.join(FAMILIES)})")
    ap.add_argument("--batches", help="comma-separated batch sizes for every family (default: each family's, "
                                      "larger on a GPU)")
    ap.add_argument("--steps", type=int, help="env steps per timed scan (default: each family's: 20, 100, 50, 20)")
    ap.add_argument("--repeats", type=int, help=f"timed scans per batch size, and original runs (default {REPEATS})")
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes for a smoke run: batches 1,4, 4 steps, 2 repeats, pushbox only, one game")
    ap.add_argument("--no-originals", action="store_true", help="skip dmlab2d and TextWorld")
    ap.add_argument("--grid-levels", help=f"comma-separated grid levels (default {','.join(GRID_LEVELS)})")
    ap.add_argument("--memory-level", default=MEMORY_LEVEL, help=f"the memory-task level (default {MEMORY_LEVEL})")
    ap.add_argument("--text-games", metavar="DIR",
                    help="folder of TextWorld .json games (generated there when it has none; default: a temporary one)")
    ap.add_argument("--append", metavar="FILE", help="append the markdown section to FILE (default: print it)")
    ap.add_argument("--plot", metavar="PNG", nargs="?", const="",
                    help="save the plot (no PNG given: docs/images/bench_<device>.png)")
    ap.add_argument("--json", metavar="PATH", help="write the raw results to PATH")
    ap.add_argument("--from-json", metavar="PATH", help="make the table and plot from a --json file; measure nothing")
    args = ap.parse_args(argv)
    args.families = _names(args.families)
    unknown = sorted(set(args.families) - set(FAMILIES))
    if unknown:
        ap.error(f"unknown families: {', '.join(unknown)} (known: {', '.join(FAMILIES)})")
    return args


def options(args: argparse.Namespace, scratch: Path) -> Options:
    """The run's ``Options``: what was given, else ``--quick``'s sizes, else the defaults; the text games
    live in ``--text-games`` or ``scratch``."""
    quick = QUICK if args.quick else {}
    batches = tuple(int(b) for b in _names(args.batches)) if args.batches else quick.get("batches")
    return Options(batches=batches, steps=args.steps or quick.get("steps"),
                   repeats=args.repeats or quick.get("repeats", REPEATS), originals=not args.no_originals,
                   dm_steps=quick.get("dm_steps", DM_STEPS), tw_steps=quick.get("tw_steps", TW_STEPS),
                   layouts=quick.get("layouts", DEFAULT_LAYOUTS),
                   grid_levels=_names(args.grid_levels) if args.grid_levels else quick.get("grid_levels", GRID_LEVELS),
                   memory_level=args.memory_level, text_games=Path(args.text_games or scratch),
                   game_names=quick.get("game_names"))


def run(targets, repeats: int, command: str) -> dict:
    """Time every target at each of its batch sizes and its original where measured, with a tqdm bar
    on stderr; returns the results dict (``jaxlab.bench.report``'s format)."""
    results = {"device": device_name(), "slug": device_slug(), "date": datetime.date.today().isoformat(),
               "jax": jax.__version__, "command": command, "targets": [], "rows": [], "originals": []}
    total = sum(len(t.batches) + (not t.missing) for t in targets)
    with tqdm(total=total, desc="jaxlab-bench", unit="run", file=sys.stderr, dynamic_ncols=True) as bar:
        for t in targets:
            results["targets"].append({"family": t.family, "env": t.env, "setup": t.setup, "steps": t.steps,
                                       "repeats": repeats})
            bar.set_postfix_str(f"{t.family}/{t.env}: building")
            measure_batch, original = t.prepare()
            if original is None:
                log(f"{t.family}/{t.env}: {t.original}: {t.missing}")
                results["originals"].append({"family": t.family, "env": t.env, "name": t.original, "rate": None,
                                             "detail": t.missing})
            else:
                bar.set_postfix_str(f"{t.family}/{t.env}: {t.original}")
                results["originals"].append({"family": t.family, "env": t.env, **original()})
                bar.update()
            for batch in t.batches:
                bar.set_postfix_str(f"{t.family}/{t.env}: batch {batch}")
                results["rows"].append({"family": t.family, "env": t.env, **measure_batch(batch)})
                bar.update()
    return results


def write_outputs(results: dict, args: argparse.Namespace) -> None:
    """Save the plot (``--plot``), print the section or append it to ``--append``."""
    plot = None
    if args.plot is not None:
        plot = args.plot or f"docs/images/bench_{results['slug']}.png"
        report.plot(results, plot)
        log(f"plot saved to {plot}")
    link = report.relative_to_file(plot, args.append) if plot and args.append else None
    text = report.section(results, link)
    if args.append:
        with open(args.append, "a", encoding="utf-8") as f:
            f.write("\n" + text + "\n")
        log(f"appended to {args.append}")
    else:
        print(text)


def main(argv=None) -> None:
    """Run ``jaxlab-bench`` (see the module docstring)."""
    args = parse_args(argv)
    if args.from_json:
        results = report.read_json(args.from_json)
    else:
        command = shlex.join(["jaxlab-bench"] + list(sys.argv[1:] if argv is None else argv))
        with tempfile.TemporaryDirectory(prefix="jaxlab_bench_games_") as scratch:
            opts = options(args, Path(scratch))
            targets = [t for family in args.families for t in PLANNERS[family](opts)]
            results = run(targets, opts.repeats, command)
    if args.json:
        report.write_json(results, args.json)
        log(f"results written to {args.json}")
    write_outputs(results, args)


if __name__ == "__main__":
    main()

"""How many of a DeepMind Lab checkout's own level scripts compile and run in jaxlab.

Given a checkout (its root, or its ``game_scripts`` folder), every level script
under ``game_scripts/levels`` (the ``.lua`` files outside ``factories``
folders) is compiled with ``jaxlab.make(path, episodes=..., levels_dir=<game_scripts>)``,
which resolves ``require 'common.*'``, ``'factories.*'``, ``'decorators.*'``
and the rest inside the checkout, and the env then runs ``--steps`` jitted
steps of uniform random actions. Each script runs in its own Python process
(``--jobs`` at a time) with a deadline. Prints a table (script, compiles,
runs, first error) and the counts; ``--markdown`` prints only the markdown
section, ``--append FILE`` appends it to FILE.

Usage::

    PYTHONPATH=. python benchmarks/real_dmlab_scripts.py PATH [--episodes 2] [--steps 100] [--jobs 2]
        [--only SUBSTRING] [--timeout 300] [--set KEY=VALUE] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
from pathlib import Path

from jaxlab.bench.timing import add_output_arguments, device_and_date, finish
from jaxlab.levels.dmlab.checkout import game_scripts

HEADER = "| script | compiles | runs | first error |\n|---|:---:|:---:|---|"

#: what one child process does: compile, then run; one JSON line on stdout
_CHILD = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
path, root, episodes, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
settings = json.loads(sys.argv[5])
out = {"compiled": False, "ran": False, "error": ""}
try:
    import jax, jaxlab
    from jaxlab.wrappers import AutoReset, DiscreteActions
    env = DiscreteActions(jaxlab.make(path, episodes=episodes, levels_dir=root, observations=("RGB_INTERLEAVED",),
                                      width=32, height=24, level_settings=settings))
    out["compiled"] = True
    step = jax.jit(AutoReset(env).step)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    key = jax.random.PRNGKey(1)
    for _ in range(steps):
        key, k = jax.random.split(key)
        state, ts = step(state, jax.random.randint(k, (), 0, env.num_actions))
    jax.block_until_ready(ts.observation)
    out["ran"] = True
except Exception as err:   # noqa: BLE001 - reported per script
    text = " ".join(line.strip() for line in str(err).splitlines() if line.strip())
    out["error"] = type(err).__name__ + ": " + text
print(json.dumps(out))
"""


def level_scripts(root: Path) -> list:
    """The level scripts under ``root/levels``: ``.lua`` files outside ``factories`` folders, sorted."""
    return sorted(p for p in (root / "levels").rglob("*.lua") if "factories" not in p.relative_to(root).parts)


def try_script(path: Path, root: Path, episodes: int, steps: int, timeout: float, settings: dict) -> dict:
    """``{"compiled", "ran", "error"}`` of one script compiled with ``settings`` (``api:init``'s), run in a
    child Python process under ``timeout`` seconds."""
    env = dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(root), str(episodes), str(steps),
                               json.dumps(settings)],
                              capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"compiled": False, "ran": False, "error": f"no answer within {timeout:g} s"}
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = done.stderr.strip().splitlines()
        return {"compiled": False, "ran": False, "error": "the process died: " + (tail[-1] if tail else "")}


def cell(text: str) -> str:
    """``text`` fit for a markdown table cell (one line, no pipes, at most 200 characters)."""
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= 200 else text[:197] + "..."


def main(argv=None) -> None:
    """Run the count (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="a DeepMind Lab checkout (or its game_scripts folder)")
    ap.add_argument("--episodes", type=int, default=2, help="episodes compiled per script (default 2)")
    ap.add_argument("--steps", type=int, default=100, help="env steps run after compiling (default 100)")
    ap.add_argument("--jobs", type=int, default=2, help="scripts tried at once (default 2)")
    ap.add_argument("--only", default="", help="only the scripts whose path contains this")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per script (default 300)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a level setting for api:init (repeatable; default allowHoldOutLevels=true, which DMLab's "
                         "evaluation-only levels ask for)")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    settings = dict(item.split("=", 1) for item in args.set) if args.set else {"allowHoldOutLevels": "true"}
    try:
        root = game_scripts(args.path.resolve(), "PATH")
    except FileNotFoundError as err:
        sys.exit(str(err))
    scripts = [p for p in level_scripts(root) if args.only in str(p.relative_to(root))]
    head = (f"### DeepMind Lab's own level scripts in jaxlab — {device_and_date()}\n\n"
            f"`benchmarks/real_dmlab_scripts.py` on a checkout's `game_scripts` ({len(scripts)} level scripts under "
            f"`levels/`, factories left out): each compiled with {args.episodes} episodes "
            f"(`jaxlab.make(path, levels_dir=game_scripts, level_settings={settings})`) and run {args.steps} steps "
            "of random actions.")
    if args.markdown:
        print(head + "\n\n" + HEADER, flush=True)
    rows, compiled, ran = [], 0, 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = pool.map(lambda p: try_script(p, root, args.episodes, args.steps, args.timeout, settings), scripts)
        for path, r in zip(scripts, results):
            compiled, ran = compiled + r["compiled"], ran + r["ran"]
            row = (f"| {path.relative_to(root / 'levels')} | {'yes' if r['compiled'] else 'no'} "
                   f"| {'yes' if r['ran'] else 'no'} | {cell(r['error'])} |")
            print(row, flush=True)
            rows.append(row)
    rows.append(f"| **{len(scripts)} scripts** | **{compiled}** | **{ran}** | |")
    print(f"compiled {compiled} of {len(scripts)}, ran {args.steps} steps: {ran}", file=sys.stderr)
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()

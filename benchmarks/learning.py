"""PPO learning curves on one level of each family, against a uniform random policy.

For each family (``--families``) the script trains ``jaxlab.agents`` PPO
(rollouts and updates in one ``jax.jit``) for a fixed budget of env steps
and reports the return it reached and the wall time it took:

- ``grid``: pushbox in a 6×6 room with one box (rooms generated on device,
  1024 of them); −0.1 a frame, +10.9 for the box on its goal (which ends
  the episode), 120 frames at most;
- ``grid_players``: jaxlab_commons_harvest with two players learning at once
  (independent learners sharing one network), 500 frames an episode, +1 an
  apple; returns are the players' mean;
- ``text``: tw-coin_collector level 10 (one game: ten rooms in a chain, the
  coin in the last one), 50 commands at most, +1 for the coin;
- ``first_person``: nav_maze_static_01 at 32×24 pixels, 4 frames per step,
  DMLab's 9 actions (apples +1, the goal +10).

Returns are measured after training the same way for both policies: the
first episode of each of ``--eval-envs`` envs started from the same keys, the
trained policy sampling from its distribution, the random one uniform over
the allowed actions (the admissible commands for text). ``wall time`` is the
training loop's own (compilation apart, reported beside it).

Each family writes ``<images>/learning_<family>.png`` (return against env
steps and against wall-clock seconds, the random return dashed) and, for the
families with pictures, ``<gifs>/learning_<family>.gif`` (trained left, random
right). The markdown section (date, device, budgets, returns, times) is
printed and, with ``--append FILE``, appended to FILE.

Usage::

    PYTHONPATH=. python benchmarks/learning.py [--families grid,grid_players,text,first_person] [--steps N] [--quick]
        [--seed 0] [--eval-envs 128] [--images docs/images] [--gifs out] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import time
from pathlib import Path
from typing import Any, Dict

import jax
import numpy as np

import jaxlab
from jaxlab import agents
from jaxlab.agents.pictures import gif_bytes, learning_curve, side_by_side
from jaxlab.bench.report import relative_to_file
from jaxlab.bench.timing import append_section, device_and_date, log


@dataclasses.dataclass(frozen=True)
class Family:
    """One family's level and training recipe.

    level, settings: what ``jaxlab.make`` builds; config: PPO's settings (its ``total_env_steps`` is the
    CPU budget); accelerator_steps: the budget on a GPU/TPU; quick_steps: the ``--quick`` budget;
    episode_steps: the longest episode in agent steps (evaluation plays one more); gif_fps and gif_scale:
    the GIF's speed and pixel magnification (0: no GIF).
    """

    level: str
    settings: Dict[str, Any]
    config: agents.PPOConfig
    accelerator_steps: int
    quick_steps: int
    episode_steps: int
    gif_fps: int = 0
    gif_scale: int = 0


FAMILIES = {
    "grid": Family(
        "pushbox", {"gridShape": {"width": 6, "height": 6}, "numBoxes": 1, "roomSteps": 8,
                    "observations": ("WORLD.LAYER", "1.POSITION", "1.REWARD")},
        agents.PPOConfig(total_env_steps=3_000_000, num_envs=256, rollout_length=32, learning_rate=1e-3,
                         hidden_size=128, gamma=0.99, entropy_coef=0.01),
        accelerator_steps=20_000_000, quick_steps=50_000, episode_steps=120, gif_fps=8, gif_scale=4),
    "grid_players": Family(
        "jaxlab_commons_harvest", {"numPlayers": 2, "episodeLengthFrames": 500,
                            "observations": ("WORLD.LAYER", "1.POSITION", "1.REWARD", "2.POSITION", "2.REWARD")},
        agents.PPOConfig(total_env_steps=400_000, num_envs=32, rollout_length=64, learning_rate=5e-4,
                         hidden_size=128, gamma=0.99),
        accelerator_steps=10_000_000, quick_steps=20_000, episode_steps=500, gif_fps=10, gif_scale=2),
    "text": Family(
        "tw-coin_collector", {"level": 10, "seed": 0, "num_games": 1, "max_steps": 50,
                              "observations": ("feedback", "description", "admissible")},
        agents.PPOConfig(total_env_steps=100_000, num_envs=64, rollout_length=32, learning_rate=1e-3,
                         hidden_size=64, gamma=0.97, entropy_coef=0.01),
        accelerator_steps=1_000_000, quick_steps=30_000, episode_steps=50),
    "first_person": Family(
        "nav_maze_static_01", {"width": 32, "height": 24, "action_repeat": 4, "observations": ("RGB_INTERLEAVED",)},
        agents.PPOConfig(total_env_steps=2_000_000, num_envs=64, rollout_length=32, learning_rate=5e-4,
                         hidden_size=256, gamma=0.99, entropy_coef=0.01),
        accelerator_steps=50_000_000, quick_steps=20_000, episode_steps=900, gif_fps=15, gif_scale=4),
}


def parse_args(argv=None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="learning.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", default=",".join(FAMILIES),
                    help=f"comma-separated, from {', '.join(FAMILIES)} (default: all)")
    ap.add_argument("--steps", type=int, help="env steps of training for every family (default: each family's "
                                              "budget for this backend)")
    ap.add_argument("--quick", action="store_true", help="tiny budgets and evaluations: a smoke run")
    ap.add_argument("--seed", type=int, default=0, help="PRNG seed of training and evaluation")
    ap.add_argument("--eval-envs", type=int, default=128, help="envs (first episodes) per evaluation")
    ap.add_argument("--images", default="docs/images", help="folder of the learning_<family>.png plots")
    ap.add_argument("--gifs", default="out", help="folder of the learning_<family>.gif rollouts")
    ap.add_argument("--append", metavar="FILE", help="append the markdown section to FILE")
    args = ap.parse_args(argv)
    args.families = [f.strip() for f in args.families.split(",") if f.strip()]
    unknown = sorted(set(args.families) - set(FAMILIES))
    if unknown:
        ap.error(f"unknown families {unknown}; choose from {', '.join(FAMILIES)}")
    return args


def budget(family: Family, args: argparse.Namespace) -> int:
    """Env steps of training: ``--steps``, else ``--quick``'s, else the family's for this backend."""
    if args.steps:
        return args.steps
    if args.quick:
        return family.quick_steps
    return family.config.total_env_steps if jax.default_backend() == "cpu" else family.accelerator_steps


def plot(name: str, family: Family, result: dict, path: Path) -> None:
    """Save ``path``: ``agents.pictures.learning_curve`` of the run, with the evaluated returns."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = learning_curve(result["metrics"], result["config"].rollout_length, family.episode_steps,
                         random_return=result["random_return"], trained_return=result["trained_return"],
                         title=f"PPO on {family.level} ({name}), {result['device']}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def write_gif(agent: agents.Agent, params: Any, family: Family, key: jax.Array, path: Path) -> None:
    """Save ``path``: one episode's worth of frames of the trained policy (left) and the random one (right)."""
    frames = jax.jit(functools.partial(agents.rollout_frames, agent, steps=min(family.episode_steps, 300)),
                     static_argnames="how")
    trained, _ = frames(params, key, how="sample")
    random, _ = frames(None, key, how="random")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gif_bytes(side_by_side(trained, random, family.gif_scale), family.gif_fps))


def run_family(name: str, family: Family, args: argparse.Namespace) -> dict:
    """Train on ``family`` and evaluate; write its PNG (and GIF). Returns the section's numbers."""
    steps = budget(family, args)
    config = dataclasses.replace(family.config, total_env_steps=steps)
    env = jaxlab.make(family.level, **family.settings)
    agent = agents.make_agent(env, config.hidden_size)
    k_train, k_eval, k_gif = jax.random.split(jax.random.PRNGKey(args.seed), 3)
    eval_envs = min(args.eval_envs, 16) if args.quick else args.eval_envs
    evaluate = jax.jit(functools.partial(agents.evaluate, agent, num_envs=eval_envs,
                                         steps=family.episode_steps + 1), static_argnames="how")
    random_return, _ = evaluate(None, k_eval, how="random")
    log(f"{name}: {family.level}, {config.num_updates} updates of {config.steps_per_update} env steps")
    train = agents.make_train(config, env)
    t0 = time.perf_counter()
    params, metrics = jax.block_until_ready(train(k_train))
    total_s = time.perf_counter() - t0
    metrics = jax.tree_util.tree_map(np.asarray, metrics)
    trained_return, finished = evaluate(params, k_eval, how="sample")
    wall_s = float(metrics["wall_time_s"][-1])
    result = {"family": name, "level": family.level, "env_steps": config.num_updates * config.steps_per_update,
              "config": config, "metrics": metrics, "wall_s": wall_s, "compile_s": total_s - wall_s,
              "random_return": float(np.mean(random_return)), "trained_return": float(np.mean(trained_return)),
              "finished": int(finished), "eval_envs": eval_envs, "device": device_and_date()}
    result["png"] = Path(args.images) / f"learning_{name}.png"
    plot(name, family, result, result["png"])
    if family.gif_fps:
        write_gif(agent, params, family, k_gif, Path(args.gifs) / f"learning_{name}.gif")
    log(f"{name}: return {result['trained_return']:.2f} (random {result['random_return']:.2f}) after "
        f"{result['env_steps']:,} env steps, {wall_s:.0f} s training + {result['compile_s']:.0f} s compile")
    return result


def section(results: list, args: argparse.Namespace) -> str:
    """The markdown section: heading with device and date, the recipe, the table, the plots."""
    lines = [f"### Learning: PPO per family ({device_and_date()})", "",
             "`python benchmarks/learning.py" + (f" --families {','.join(args.families)}" if args.families != list(
                 FAMILIES) else "") + (f" --steps {args.steps}" if args.steps else "") +
             (" --quick" if args.quick else "") + "`: `jaxlab.agents` PPO, rollouts and updates in one "
             "`jax.jit`. Returns: the first episode of each of the evaluation envs, the trained policy "
             "sampling, against a uniform random policy (over admissible commands for text). Wall time: the "
             "training loop, compilation apart.", "",
             "| family | level | env steps | envs × rollout | lr | training (s) | compile (s) | env-steps/s "
             "| random return | PPO return | PPO − random |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        c = r["config"]
        lines.append(f"| {r['family']} | {r['level']} | {r['env_steps']:,} | {c.num_envs} × {c.rollout_length} "
                     f"| {c.learning_rate:g} | {r['wall_s']:.0f} | {r['compile_s']:.0f} "
                     f"| {r['env_steps'] / r['wall_s']:,.0f} | {r['random_return']:.2f} "
                     f"| {r['trained_return']:.2f} | {r['trained_return'] - r['random_return']:+.2f} |")
    lines.append("")
    base = args.append or "BENCHMARKS.md"
    lines += [f"![PPO on {r['level']}]({relative_to_file(str(r['png']), base)})" for r in results]
    return "\n".join(lines)


def main(argv=None) -> None:
    """Run the chosen families, print the markdown section, append it to ``--append``."""
    args = parse_args(argv)
    results = [run_family(name, FAMILIES[name], args) for name in args.families]
    text = section(results, args)
    print("\n" + text)
    append_section(args, text)


if __name__ == "__main__":
    main()

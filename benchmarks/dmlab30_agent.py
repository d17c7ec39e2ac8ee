"""One PPO agent on the DMLab-30 suite, scored level by level against a uniform random policy.

The agent trains on ``jaxlab.suite("dmlab30")``: one first-person env whose
every episode (every env of the batch, at every auto-reset) draws one of the
suite's levels, with frames (``RGB_INTERLEAVED``, 32×24 on the CPU, 96×72 on
an accelerator) and the language levels' instruction (``INSTR`` tokens,
embedded by the pixel network), 4 frames per agent step, DMLab's 9 actions.
Levels the suite does not have yet are left out and named in the report.

After training, the trained policy (sampling) and a uniform random policy
play ``--episodes-per-level`` episodes of every level, each evaluation env
held to one level (``jaxlab.agents.by_level``); both policies start from the
same keys, so they meet the same maps. An episode lasts the level's own
length (60–240 s of game time: 180–3,600 agent steps) or ``--eval-steps``,
whichever is shorter; on the CPU the default cap is 300 agent steps (20 s of
game time), the same for both policies, and a capped episode counts the
return it had then. Returns are human-normalised with the published DMLab-30
human and random scores (``jaxlab.levels.dmlab.dmlab30.scores``): those are
whole-episode returns, so scores of capped episodes understate both
policies; the two policies compare like for like.

Writes ``--image`` (the learning curve against env steps and wall-clock
seconds, and a bar per level and policy of the normalised scores) and prints
a markdown section (date, device, budget, wall and compile times, the
per-level table, the suite's mean and median scores) that ``--append FILE``
appends to FILE.

Usage::

    PYTHONPATH=. python benchmarks/dmlab30_agent.py [--steps N] [--levels a,b] [--width 32] [--height 24]
        [--episodes-per-level 4] [--eval-steps 300] [--seed 0] [--image docs/images/dmlab30_agent.png]
        [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxlab
from jaxlab import agents
from jaxlab.agents.by_level import evaluate_levels, level_rows, mean_by_level
from jaxlab.agents.pictures import learning_curve, level_scores
from jaxlab.bench.report import relative_to_file
from jaxlab.bench.timing import append_section, device_and_date, log
from jaxlab.levels.dmlab.dmlab30 import dmlab30_score, human_normalized

OBSERVATIONS = ("RGB_INTERLEAVED", "INSTR")
ACTION_REPEAT = 4
#: PPO on the CPU: the default budget trains, evaluates and compiles in about 12 minutes on 2 cores
CPU = agents.PPOConfig(total_env_steps=200_000, num_envs=64, rollout_length=32, learning_rate=5e-4,
                       hidden_size=256, gamma=0.99, entropy_coef=0.01)
#: PPO on an accelerator (not measured here: no accelerator was at hand when this was written)
ACCELERATOR = dataclasses.replace(CPU, total_env_steps=20_000_000, num_envs=1024)
CPU_FRAME, ACCELERATOR_FRAME = (32, 24), (96, 72)
CPU_EVAL_STEPS = 300
#: DMLab-30's longest episode in agent steps (laser tag: 240 s at 60 frames/s, 4 frames a step)
LONGEST_EPISODE = 240 * 60 // ACTION_REPEAT


def parse_args(argv=None) -> argparse.Namespace:
    """The command line (see the module docstring); backend-dependent defaults filled in."""
    ap = argparse.ArgumentParser(prog="dmlab30_agent.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, help=f"env steps of training (default {CPU.total_env_steps:,} on the CPU, "
                                              f"{ACCELERATOR.total_env_steps:,} on an accelerator)")
    ap.add_argument("--width", type=int, help="frame width in pixels (default 32 on the CPU, 96 elsewhere)")
    ap.add_argument("--height", type=int, help="frame height in pixels (default 24 on the CPU, 72 elsewhere)")
    ap.add_argument("--episodes-per-level", type=int, default=4, help="evaluation episodes per level and policy")
    ap.add_argument("--eval-steps", type=int, help=f"agent steps at most per evaluation episode (default "
                                                   f"{CPU_EVAL_STEPS} on the CPU, {LONGEST_EPISODE} (the "
                                                   f"longest level's episode) elsewhere)")
    ap.add_argument("--levels", help="comma-separated DMLab-30 level names to train and score on (default: the "
                                     "whole dmlab30 suite)")
    ap.add_argument("--seed", type=int, default=0, help="PRNG seed of training and evaluation")
    ap.add_argument("--image", default="docs/images/dmlab30_agent.png", help="the plot's PNG path")
    ap.add_argument("--append", metavar="FILE", help="append the markdown section to FILE")
    args = ap.parse_args(argv)
    cpu = jax.default_backend() == "cpu"
    config = CPU if cpu else ACCELERATOR
    args.config = dataclasses.replace(config, total_env_steps=args.steps or config.total_env_steps)
    frame = CPU_FRAME if cpu else ACCELERATOR_FRAME
    args.width, args.height = args.width or frame[0], args.height or frame[1]
    args.eval_steps = args.eval_steps or (CPU_EVAL_STEPS if cpu else LONGEST_EPISODE)
    for name in ("episodes_per_level", "eval_steps", "width", "height"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be a positive integer")
    return args


def compiled(function, *example):
    """(the compiled ``function`` (a ``jax.jit``) for arguments like ``example``, compile seconds)."""
    t0 = time.perf_counter()
    executable = function.lower(*example).compile()
    return executable, time.perf_counter() - t0


def scores_of(levels, returns: np.ndarray) -> dict:
    """``dmlab30_score`` of per-level mean ``returns`` (float[L], levels in ``levels`` order), with each
    level's score (``human_normalized``) as float[L] under ``by_level``."""
    score = dmlab30_score(dict(zip(levels, returns.tolist())))
    score["by_level"] = np.array([human_normalized(name, value) for name, value in zip(levels, returns)])
    return score


def run(args: argparse.Namespace) -> dict:
    """Train, evaluate both policies level by level, and return the section's numbers."""
    config = args.config
    with warnings.catch_warnings(record=True):   # the missing levels are reported in the section
        warnings.simplefilter("always")
        env = jaxlab.suite(args.levels.split(",") if args.levels else "dmlab30", width=args.width,
                           height=args.height, observations=OBSERVATIONS, action_repeat=ACTION_REPEAT)
    levels = env.levels
    k_train, k_eval = jax.random.split(jax.random.PRNGKey(args.seed))
    eval_steps = args.eval_steps
    agent = agents.make_agent(env, config.hidden_size)
    rows = jnp.asarray(level_rows(len(levels), args.episodes_per_level))
    log(f"{len(levels)} levels ({len(env.missing_levels)} missing); {config.num_updates} updates of "
        f"{config.steps_per_update} env steps; evaluation {len(rows)} envs × {eval_steps} steps at most")
    train, train_compile_s = compiled(agents.make_train(config, env), k_train)
    log(f"training compiled in {train_compile_s:.0f} s")
    evaluate, eval_compile_s = compiled(
        jax.jit(functools.partial(evaluate_levels, agent, steps=eval_steps)),
        jax.eval_shape(agent.init, k_train), k_eval, rows, jnp.bool_(True))
    log(f"evaluation compiled in {eval_compile_s:.0f} s")
    t0 = time.perf_counter()
    params, metrics = jax.block_until_ready(train(k_train))
    train_s = time.perf_counter() - t0
    metrics = jax.tree_util.tree_map(np.asarray, metrics)
    log(f"trained {config.num_updates * config.steps_per_update:,} env steps in {train_s:.0f} s")
    result = {"levels": levels, "missing": env.missing_levels, "eval_steps": eval_steps,
              "config": config, "metrics": metrics, "wall_s": float(metrics["wall_time_s"][-1]),
              "compile_s": train_compile_s + eval_compile_s, "device": device_and_date(),
              "env_steps": config.num_updates * config.steps_per_update}
    t0 = time.perf_counter()
    for name, random in (("random", True), ("trained", False)):
        out = jax.device_get(evaluate(params, k_eval, rows, jnp.bool_(random)))
        result[name], counts = mean_by_level(out["return"], out["level"], len(levels))
        result[name + "_ended"], _ = mean_by_level(out["ended"], out["level"], len(levels))
        result[name + "_score"] = scores_of(levels, result[name])
    result["eval_s"] = time.perf_counter() - t0
    result["episodes"] = counts
    result["lengths"] = mean_by_level(out["episode_steps"], out["level"], len(levels))[0].astype(int)
    return result


def plot(result: dict, args: argparse.Namespace, path: Path) -> None:
    """Save ``path``: the learning curve (return of the episodes ended in each update, all levels
    mixed, against env steps and seconds of training) above a bar per level and policy of the
    human-normalised scores."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = result["levels"]
    fig = plt.figure(figsize=(12, 5 + 0.3 * len(levels)), dpi=100)
    grid = fig.add_gridspec(2, 2, height_ratios=(4, 0.3 * len(levels) + 1))
    top = [fig.add_subplot(grid[0, 0])]
    top.append(fig.add_subplot(grid[0, 1], sharey=top[0]))
    learning_curve(result["metrics"], result["config"].rollout_length, int(result["lengths"].min()), axes=top,
                   title=f"One PPO agent on DMLab-30 ({len(levels)} levels mixed), {args.width}×{args.height} "
                         f"frames, {result['env_steps']:,} env steps, {result['device']}")
    top[0].set_ylabel("episode return (levels mixed)")
    bars = fig.add_subplot(grid[1, :])
    level_scores(bars, levels, {f"trained (mean {result['trained_score']['mean']:.1f})":
                                result["trained_score"]["by_level"],
                                f"uniform random (mean {result['random_score']['mean']:.1f})":
                                result["random_score"]["by_level"]},
                 ("tab:green", "tab:red"))
    capped = result["lengths"] > result["eval_steps"]
    bars.set_title(f"per level, {args.episodes_per_level} episodes each, at most {result['eval_steps']} agent steps "
                   f"({result['eval_steps'] * ACTION_REPEAT / 60:.0f} s of game time)" +
                   (f"\nthe episodes of {int(capped.sum())} of the {len(levels)} levels cut short: their scores "
                    f"understate both policies" if capped.any() else ""), fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def section(result: dict, args: argparse.Namespace, image: str) -> str:
    """The markdown section: heading with device and date, the recipe, times, the per-level table,
    the suite's scores and the plot."""
    config, levels = result["config"], result["levels"]
    capped = result["lengths"] > result["eval_steps"]
    suite = f"[{len(levels)} of its levels]" if args.levels else '"dmlab30"'
    command = ("`python benchmarks/dmlab30_agent.py" + (f" --steps {args.steps}" if args.steps else "") +
               (f" --levels {args.levels}" if args.levels else "") +
               f" --width {args.width} --height {args.height} --episodes-per-level {args.episodes_per_level}"
               f" --eval-steps {result['eval_steps']}`")
    lines = [f"### DMLab-30: one PPO agent for the suite ({result['device']})", "",
             f"{command}: `jaxlab.agents` PPO on `jaxlab.suite({suite})` ({len(levels)} levels, each episode "
             f"of each env drawing one; observations {', '.join(OBSERVATIONS)}, the instruction's tokens embedded "
             f"by the pixel network; action repeat {ACTION_REPEAT}, DMLab's 9 actions). "
             f"{result['env_steps']:,} env steps ({result['env_steps'] * ACTION_REPEAT:,} frames), "
             f"{config.num_envs} envs × {config.rollout_length} steps an update, lr {config.learning_rate:g}, "
             f"trunk {config.hidden_size}. Whole run {result['total_s']:.0f} s: training {result['wall_s']:.0f} s "
             f"({result['env_steps'] / result['wall_s']:,.0f} env-steps/s), compile {result['compile_s']:.0f} s "
             f"(training and evaluation programs), evaluation {result['eval_s']:.0f} s.", ""]
    if result["missing"]:
        lines += [f"Not in the suite yet (left out of the scores): {', '.join(result['missing'])}.", ""]
    cap_note = (f"**Evaluation episodes are capped at {result['eval_steps']} agent steps "
                f"({result['eval_steps'] * ACTION_REPEAT / 60:.0f} s of game time) on {int(capped.sum())} of the "
                f"{len(levels)} levels** (their own length in the table), the same cap for both policies; a capped "
                f"episode counts the return it had then, so its human-normalised score (against the published "
                f"whole-episode human and random returns) understates both policies. " if capped.any() else "")
    lines += [f"Evaluation: {args.episodes_per_level} episodes per level and policy from the same keys (the same "
              f"maps for both policies), the trained policy sampling. {cap_note}Score: "
              f"100 × (return − published random) / (published human − published random).", "",
              "| level | episode (agent steps) | random return | trained return | random score | trained score "
              "| episodes ended (random / trained) |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for i, name in enumerate(levels):
        length = f"{result['lengths'][i]:,}" + (f" (capped at {result['eval_steps']})" if capped[i] else "")
        lines.append(f"| {name} | {length} | {result['random'][i]:.2f} | {result['trained'][i]:.2f} "
                     f"| {result['random_score']['by_level'][i]:.1f} | {result['trained_score']['by_level'][i]:.1f} "
                     f"| {result['random_ended'][i] * result['episodes'][i]:.0f} / "
                     f"{result['trained_ended'][i] * result['episodes'][i]:.0f} of {result['episodes'][i]} |")
    lines += ["", "| policy | mean score | median score | mean score (capped at 100) |", "|---|---:|---:|---:|"]
    for name in ("random", "trained"):
        s = result[name + "_score"]
        lines.append(f"| {name} | {s['mean']:.2f} | {s['median']:.2f} | {s['mean_capped']:.2f} |")
    lines += ["", f"![One PPO agent on DMLab-30]({image})"]
    return "\n".join(lines)


def main(argv=None) -> None:
    """Train and evaluate, save the plot, print the markdown section, append it to ``--append``."""
    started = time.perf_counter()
    args = parse_args(argv)
    result = run(args)
    path = Path(args.image)
    plot(result, args, path)
    result["total_s"] = time.perf_counter() - started
    text = section(result, args, relative_to_file(str(path), args.append or "BENCHMARKS.md"))
    print("\n" + text)
    append_section(args, text)


if __name__ == "__main__":
    main()

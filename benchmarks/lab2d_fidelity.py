"""How dmlab2d's five shipped levels compiled from the package's Lua (``jaxlab.make("lab2d/<name>")``) play
beside dmlab2d itself.

dmlab2d draws from its own generator (its C++ random engine, seeded from the episode seed); jaxlab's compiled
level draws from JAX's keys. Every shipped level draws before its first step (pushbox's room generator,
chase_eat's shuffled spawn points, commons_harvest's first apples, running_with_scissors' resources, the
avatars' spawn points and orientations), so no level can be compared step by step. This script plays
``--episodes`` episodes per level and player in both engines with the same actions (episode k: dmlab2d's
``start(k, k)``, jaxlab's ``start_state(PRNGKey(k), k, k)``), two players per level:

- **random**: uniformly random actions in dmlab2d's action spec;
- **scripted**: a fixed pattern that makes every callback fire: pushbox and chase_eat walk three steps each
  way (pushing boxes, eating food and pills, meeting foes); the avatar levels walk forward, turn every few
  steps and fire each beam on a period (commons_harvest's zap every 3 steps, clean_up's cleaning beam every
  2 and fine every 7, running_with_scissors' zap every 10), eating apples and picking up resources on the way.

Each episode is summed up (``tests/grid/lab2d_package_stats.py``): how many sprite cells of WORLD.RGB show
each distinct sprite picture at the start and on average over frames sampled every few steps, the return,
how many steps paid each reward value, the steps played and whether the episode ended, the player's start
cell (WORLD.TEXT), WORLD.STEPS, 1.INVENTORY and 1.CONTRIB. A statistic equal in every episode of both
engines is **fixed** (those the Lua fixes, e.g. the walls, fail otherwise); the rest is **spread**, compared by
Welch's t (means), a two-proportion z-test (shares) or chi-square homogeneity (start cells), each passing at
p >= ``--alpha`` (default 0.001). The script exits 1 when any fails. ``--pictures DIR`` writes, per level,
jaxlab's and dmlab2d's WORLD.RGB side by side at a few steps of a scripted episode.

Usage::

    PYTHONPATH=. python benchmarks/lab2d_fidelity.py [--levels pushbox,clean_up] [--episodes 100]
        [--steps N] [--alpha 0.001] [--pictures docs/images/lab2d_fidelity] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import jaxlab
from jaxlab.bench.timing import add_output_arguments, device_and_date, finish, log

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "grid"))
from lab2d_package_stats import LEVELS, JaxPlayer, compare, level_actions, play_dmlab2d  # noqa: E402

HEADER = ("| level | player | statistic | kind | jaxlab | dmlab2d | test | p | passes |\n"
          "|---|---|---|---|---|---|---|---:|:---:|")
#: the first episode index of each player (episode k of the scripted player is dmlab2d's start(k, k))
FIRST = {"random": 0, "scripted": 100_000}


def compare_level(name: str, episodes: int, steps: int, alpha: float, chunk: int = 25):
    """``{player: rows}`` of :func:`compare` for one level: ``episodes`` episodes of ``steps`` steps per
    player (jaxlab's played ``chunk`` episodes per batch)."""
    level = LEVELS[name]
    player = JaxPlayer(level, jaxlab.make(f"lab2d/{name}"))
    out = {}
    for who, first in FIRST.items():
        actions = level_actions(name, who, episodes, steps, first)
        theirs = play_dmlab2d(level, actions, first)
        mine = []
        for i in range(0, episodes, chunk):
            part = actions[i:i + chunk]
            part = part + [part[-1]] * (chunk - len(part))   # a full batch: one program per level
            mine += player(part, first + i)[:min(chunk, episodes - i)]
        out[who] = compare(level, mine, theirs, alpha)
        failed = sum(not ok for *_, ok in out[who])
        log(f"{name} {who}: {len(out[who])} statistics, {failed} failed")
    return out


def pictures(name: str, folder: Path, steps=(0, 10, 20)) -> Path:
    """``folder/<name>.png``: jaxlab's (left) and dmlab2d's (right) WORLD.RGB at ``steps`` (rows) of the
    scripted episode 100000. Their starts differ by chance; the sprites must look alike."""
    import imageio.v3 as iio
    import jax
    import jax.numpy as jnp

    from lab2d_reference import dmlab2d_trajectory
    from jaxlab.registry import dmlab2d_package
    actions = level_actions(name, "scripted", 1, max(steps), FIRST["scripted"])[0]
    ref = dmlab2d_trajectory(dmlab2d_package.game_scripts() / "levels", name, seed=FIRST["scripted"],
                             episode=FIRST["scripted"], actions=actions)["observations"]["WORLD.RGB"]
    env = jaxlab.make(f"lab2d/{name}")
    state = env.start_state(jax.random.PRNGKey(FIRST["scripted"]), FIRST["scripted"], FIRST["scripted"])
    step = jax.jit(env.step)
    mine = [np.asarray(state.obs["WORLD.RGB"])]
    for action in actions:
        state, _ = step(state, {n: jnp.asarray(action.get(n, 0), jnp.int32) for n in env.action_spec()})
        mine.append(np.asarray(state.obs["WORLD.RGB"]))
    gap = np.full((mine[0].shape[0], 8, 3), 255, np.uint8)
    rows = [np.concatenate([mine[t], gap, ref[min(t, len(ref) - 1)]], axis=1) for t in steps]
    line = np.full((8, rows[0].shape[1], 3), 255, np.uint8)
    picture = np.concatenate(sum(([r, line] for r in rows), [])[:-1])
    scale = max(1, 480 // picture.shape[1])
    picture = picture.repeat(scale, axis=0).repeat(scale, axis=1)
    folder.mkdir(parents=True, exist_ok=True)
    iio.imwrite(folder / f"{name}.png", picture)
    return folder / f"{name}.png"


def main(argv=None) -> None:
    """Run the comparison (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default=",".join(LEVELS), help="comma-separated, default all five")
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--steps", type=int, default=0, help="steps per episode (default: the level's)")
    ap.add_argument("--alpha", type=float, default=0.001)
    ap.add_argument("--pictures", metavar="DIR", help="write side-by-side WORLD.RGB pictures here")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.levels.split(",") if n.strip()]
    rows, verdicts, ok = [], [], True
    for name in names:
        if args.pictures:
            log(f"wrote {pictures(name, Path(args.pictures))}")
        level = LEVELS[name]
        steps = args.steps or level.steps
        steps -= steps % level.stride
        results = compare_level(name, args.episodes, steps, args.alpha)
        for who, found in results.items():
            failed = [s for s, *_, good in found if not good]
            ok &= not failed
            fixed = sum(kind == "fixed" for _, kind, *_ in found)
            verdicts.append(f"- **{name}**, {who} player, {steps} steps: by distribution ({level.notes}); "
                            f"{fixed} statistics fixed, {len(found) - fixed} tested; "
                            + (f"**failed: {', '.join(failed)}**" if failed else "all pass"))
            rows += [f"| {name} | {who} | {s} | {k} | {a} | {b} | {t} | {'—' if p is None else f'{p:.3g}'} | "
                     f"{'yes' if good else '**no**'} |" for s, k, a, b, t, p, good in found]
    head = (f"### dmlab2d's shipped levels compiled from the package beside dmlab2d — {device_and_date()}\n\n"
            f"`benchmarks/lab2d_fidelity.py --levels {','.join(names)} --episodes {args.episodes}`: per level, "
            f"{args.episodes} episodes of a uniformly random player and {args.episodes} of a scripted one "
            f"(walking, turning, firing every beam), the same actions in both engines (episode k: dmlab2d "
            f"`start(k, k)`). Every level draws at its start from its engine's own generator, so none is "
            f"step-for-step comparable: each is compared **by distribution**, the fixed parts per episode and "
            f"the spread by tests at alpha {args.alpha} per statistic. Sprite cells are named by their mean "
            f"colour and a digest of the picture.\n\n" + "\n".join(verdicts))
    if args.markdown:
        print(head + "\n\n" + HEADER + "\n" + "\n".join(rows))
    finish(args, head, HEADER, rows)
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()

"""How dmlab2d's shipped levels compiled from the package's Lua (``jaxlab.make("lab2d/<name>")``) play beside
dmlab2d itself, where the two engines' random draws differ.

dmlab2d draws from its own generator (its C++ random engine, seeded from the episode seed); jaxlab's compiled
level draws from JAX's keys. Where a level's play depends on those draws from the first step (``chase_eat``:
the player's spawn, the foe's and the pills' spawn points are a shuffle of the spawn points; foes move with a
probability and sometimes turn at random), the episodes cannot be compared step by step. This script plays
``--episodes`` episodes of ``--steps`` steps in both engines with the same uniformly random actions (episode
k: dmlab2d's ``start(k, k)``, jaxlab's episode k) and compares what the rules fix and what chance spreads:

- **fixed**: each start's counts of every map character (walls, food, pills, foes, the player), and the
  safe distance between the player and the foes at the start: equal in every episode;
- **spread**: which spawn point the player starts on (a chi-square test of homogeneity between the two
  engines' counts), the L1 distance from the player to the foe at the start, the reward an episode collects
  and its length (Welch's t-test on the means), the share of episodes a foe ends (a two-proportion z-test).

A statistic passes where its p-value is at least ``--alpha`` (default 0.001: with the handful of statistics
per level, a false alarm is rare; a rule that differs, e.g. a reward of 2 instead of 1 per food, moves the
means by many standard errors). The script exits 1 when any fails.

Usage::

    PYTHONPATH=. python benchmarks/lab2d_fidelity.py [--episodes 200] [--steps 30] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats

import jaxlab
from jaxlab.bench.timing import add_output_arguments, device_and_date, finish, log

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "grid"))
from lab2d_reference import action_spec, batched_play, dmlab2d_trajectory, random_actions  # noqa: E402

HEADER = ("| level | statistic | kind | jaxlab | dmlab2d | test | p | passes |\n"
          "|---|---|---|---|---|---|---:|:---:|")
CHARS = ".+FP#"   # food, pill, foe, player, wall


def _cells(text: str, char: str):
    return [(r, c) for r, row in enumerate(text.split("\n")) for c, ch in enumerate(row) if ch == char]


def _episode(texts, rewards, ended) -> dict:
    """What one chase_eat episode shows: its start's character counts, the player's spawn, the distance to
    the nearest foe, the reward collected, the steps played and whether a foe ended it."""
    start = texts[0]
    player = _cells(start, "P")[0]
    foes = _cells(start, "F")
    return {"counts": tuple(start.count(c) for c in CHARS), "spawn": player,
            "foe distance": min(abs(player[0] - r) + abs(player[1] - c) for r, c in foes) if foes else -1,
            "reward": float(np.sum(rewards)), "length": len(rewards), "caught": bool(np.any(ended)),
            "ate a pill (+2)": bool(np.any(np.isclose(rewards, 2))), "ate a foe (+5)": bool(np.any(rewards >= 5))}


def play_both(episodes: int, steps: int):
    """(jaxlab's episodes, dmlab2d's) of chase_eat as ``_episode`` dicts."""
    from jaxlab.registry import dmlab2d_package
    levels = dmlab2d_package.game_scripts() / "levels"
    spec = action_spec(levels, "chase_eat")
    actions = [random_actions(spec, steps, k) for k in range(episodes)]
    theirs = []
    for k in range(episodes):
        run = dmlab2d_trajectory(levels, "chase_eat", seed=k, episode=k, actions=actions[k])
        theirs.append(_episode(run["observations"]["WORLD.TEXT"], run["rewards"], run["ended"]))
    log(f"dmlab2d: {episodes} episodes played; compiling and playing jaxlab's ...")
    play = batched_play(jaxlab.make("lab2d/chase_eat"), ["MOVE"])
    table = jnp.asarray([[[a["MOVE"]] for a in acts] for acts in actions], jnp.int32)
    obs, rewards, ended, errors = jax.tree_util.tree_map(np.asarray, play(jnp.arange(episodes, dtype=jnp.int32),
                                                                          table))
    if errors.any():
        raise SystemExit("jaxlab's grid ran out of room in some episode")
    mine = []
    for e in range(episodes):
        end = int(np.argmax(ended[e])) + 1 if ended[e].any() else steps
        texts = [bytes(obs["WORLD.TEXT"][e, i].reshape(-1)).decode() for i in range(end + 1)]
        mine.append(_episode(texts, rewards[e, :end], ended[e, :end]))
    return mine, theirs


def compare(mine, theirs, alpha: float):
    """Rows ``(statistic, kind, jaxlab, dmlab2d, test, p, passes)``."""
    counts_a, counts_b = Counter(e["counts"] for e in mine), Counter(e["counts"] for e in theirs)
    rows = [(f"start counts of {' '.join(repr(c) for c in CHARS)}", "fixed", _top(counts_a), _top(counts_b),
             "every episode", None, len(counts_a) == 1 and counts_a == counts_b)]
    near_a, near_b = (min(e["foe distance"] for e in side) for side in (mine, theirs))
    rows.append(("the nearest foe's distance at the start is at least 6 (queryDiamond 5 kept free)", "fixed",
                 f"min {near_a}", f"min {near_b}", "every episode", None, min(near_a, near_b) >= 6))
    spawns = sorted(set(e["spawn"] for e in mine) | set(e["spawn"] for e in theirs))
    table = np.array([[sum(e["spawn"] == s for e in side) for s in spawns] for side in (mine, theirs)])
    p = stats.chi2_contingency(table).pvalue
    rows.append(("the player's spawn point", "spread", f"{len(set(e['spawn'] for e in mine))} cells",
                 f"{len(set(e['spawn'] for e in theirs))} cells", "chi-square homogeneity", p, p >= alpha))
    for name in ("foe distance", "reward", "length"):
        a, b = np.array([e[name] for e in mine], float), np.array([e[name] for e in theirs], float)
        p = 1.0 if a.std() == b.std() == 0 and a.mean() == b.mean() else stats.ttest_ind(a, b, equal_var=False).pvalue
        rows.append((f"{name} (mean ± sd)", "spread", f"{a.mean():.2f} ± {a.std():.2f}", f"{b.mean():.2f} ± {b.std():.2f}",
                     "Welch t", p, p >= alpha))
    n = len(mine)
    for name, label in (("caught", "episodes a foe ended"), ("ate a pill (+2)", "episodes that ate a pill (+2)"),
                        ("ate a foe (+5)", "episodes that ate a foe (+5)")):
        a, b = [sum(e[name] for e in side) for side in (mine, theirs)]
        pooled = (a + b) / (2 * n)
        z = 0.0 if pooled in (0, 1) else (a - b) / n / np.sqrt(2 * pooled * (1 - pooled) / n)
        p = 2 * stats.norm.sf(abs(z))
        rows.append((label, "spread", f"{a / n:.2f}", f"{b / n:.2f}", "two-proportion z", p, p >= alpha))
    return rows


def _top(counter: Counter) -> str:
    value, count = counter.most_common(1)[0]
    return f"{value} ({count} of {sum(counter.values())})"


def main(argv=None) -> None:
    """Run the comparison (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=200)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--alpha", type=float, default=0.001)
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    mine, theirs = play_both(args.episodes, args.steps)
    results = compare(mine, theirs, args.alpha)
    rows = [f"| chase_eat | {s} | {k} | {a} | {b} | {t} | {'—' if p is None else f'{p:.3f}'} | "
            f"{'yes' if ok else '**no**'} |" for s, k, a, b, t, p, ok in results]
    head = (f"### dmlab2d's chase_eat compiled from the package beside dmlab2d — {device_and_date()}\n\n"
            f"`benchmarks/lab2d_fidelity.py --episodes {args.episodes} --steps {args.steps}`: both engines play "
            f"the same uniformly random actions (episode k: dmlab2d `start(k, k)`); their random draws differ, so "
            f"the fixed parts are compared per episode and the spread by tests at alpha {args.alpha}.")
    if args.markdown:
        print(head + "\n\n" + HEADER + "\n" + "\n".join(rows))
    finish(args, head, HEADER, rows)
    if not all(ok for *_, ok in results):
        raise SystemExit(1)

if __name__ == "__main__":
    main()

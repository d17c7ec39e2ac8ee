"""Contact sheets of the memory tasks: what the agent sees at the key moments of a task's first trials.

For each task, a few episodes of its train level are played by the task's privileged oracle
(``env.oracle_action``); each row is one episode: frames taken at evenly spaced moments of each of
its first trials (for a first-person task: study, corridor or delay, test; for a PsychLab task:
fixation, study, delay, response), labelled with the trial, the time into it and the score.
``python -m jaxlab.demo.memory_sheet [TASK ...] --out DIR`` writes ``DIR/<task>.png``.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import List

import imageio.v3 as iio
import jax
import numpy as np
from PIL import Image, ImageDraw

from jaxlab.levels.dmlab import memory
from jaxlab.registry import memory as memory_table

FRAME = "RGB_INTERLEAVED"
BACKGROUND = (24, 24, 28)
LABEL_PX = 14


def train_level(task: str) -> str:
    """The task's train level (``_train_large`` for the tasks that split their train level)."""
    names = memory.all_level_names()
    return f"{task}_train" if f"{task}_train" in names else f"{task}_train_large"


def play(task: str, episodes: int, steps: int, seed: int, action_repeat: int):
    """Oracle rollouts of the task's train level: (frames uint8[T, E, H, W, 3], trial int32[T, E],
    score float32[T, E]) with T = ``steps`` + 1 (the first frame included)."""
    env = memory_table.make_env(train_level(task), action_repeat=action_repeat)

    def run(keys):
        states, ts = jax.vmap(env.reset)(keys)

        def body(states, _):
            states, ts = jax.vmap(env.step)(states, jax.vmap(env.oracle_action)(states))
            return states, (ts.observation[FRAME], states.trial, ts.observation["Score"])

        first = (ts.observation[FRAME], states.trial, ts.observation["Score"])
        return first, jax.lax.scan(body, states, None, length=steps)[1]

    first, rest = jax.jit(run)(jax.random.split(jax.random.PRNGKey(seed), episodes))
    first, rest = jax.device_get((first, rest))
    return tuple(np.concatenate([f[None], r]) for f, r in zip(first, rest))


def moments(trial: np.ndarray, trials: int, per_trial: int) -> List[int]:
    """Step indices of ``per_trial`` evenly spaced moments (first and last step included) of each of
    the first ``trials`` trials of one episode (``trial``: int32[T] the trial index at each step)."""
    picks = []
    for t in range(trials):
        steps = np.flatnonzero(trial == t)
        if len(steps):
            picks += [int(steps[round(i * (len(steps) - 1) / max(per_trial - 1, 1))]) for i in range(per_trial)]
    return picks


def sheet(task: str, episodes: int = 3, trials: int = 2, per_trial: int = 4, steps: int = 600, seed: int = 0,
          action_repeat: int = 2, scale: int = 2) -> np.ndarray:
    """uint8[H, W, 3]: one row per episode of the oracle's frames at ``moments``, labelled."""
    frames, trial, score = play(task, episodes, steps, seed, action_repeat)
    fps = 60.0 / action_repeat
    rows = []
    for e in range(episodes):
        tiles = []
        for s in moments(trial[:, e], trials, per_trial):
            image = Image.fromarray(np.repeat(np.repeat(frames[s, e], scale, 0), scale, 1))
            canvas = Image.new("RGB", (image.width, image.height + LABEL_PX), BACKGROUND)
            canvas.paste(image, (0, LABEL_PX))
            start = int(np.flatnonzero(trial[:, e] == trial[s, e])[0])
            ImageDraw.Draw(canvas).text((2, 1), f"trial {trial[s, e]}  t={(s - start) / fps:.1f}s  "
                                                f"score {score[s, e]:g}", fill=(230, 230, 230))
            tiles.append(np.asarray(canvas))
        if tiles:
            rows.append(np.concatenate([np.pad(t, ((2, 2), (2, 2), (0, 0)), constant_values=BACKGROUND[0])
                                        for t in tiles], 1))
    width = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, width - r.shape[1]), (0, 0)), constant_values=BACKGROUND[0]) for r in rows]
    return np.concatenate(rows, 0)


def main(argv=None) -> None:
    """Write ``<out>/<task>.png`` for the given tasks (default: all 13)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", nargs="*", help="task names (default: every task)")
    ap.add_argument("--out", default="docs/images/memory", help="output folder")
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--steps", type=int, default=600, help="oracle steps per episode (2 frames each)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    unknown = sorted(set(args.tasks) - set(memory.TASK_NAMES))
    if unknown:
        ap.error(f"unknown tasks: {', '.join(unknown)} (known: {', '.join(memory.TASK_NAMES)})")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for task in args.tasks or memory.TASK_NAMES:
        path = out / f"{task}.png"
        iio.imwrite(path, sheet(task, episodes=args.episodes, steps=args.steps, seed=args.seed))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""Pictures of learning: the learning-curve figure, per-level score bars and side-by-side GIFs of two policies.

Used by ``benchmarks/learning.py`` and the notebooks; matplotlib is imported
only when a figure is drawn.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence

import imageio.v3 as iio
import numpy as np


def smoothed(returns: np.ndarray, episodes: np.ndarray, window: int) -> np.ndarray:
    """float[P]: at each of P points, the mean return over the episodes of the last ``window`` points,
    from each point's mean ``returns`` and episode count ``episodes`` (both [P], counts > 0)."""
    def windowed(per_point):
        total = np.cumsum(per_point)
        return total - np.concatenate([np.zeros(min(window, len(total))), total[:-window]])

    return windowed(returns * episodes) / windowed(episodes.astype(float))


def learning_curve(metrics: Dict[str, np.ndarray], rollout_length: int, episode_steps: int, *,
                   random_return: Optional[float] = None, trained_return: Optional[float] = None,
                   title: str = "", axes: Optional[Sequence] = None):
    """A matplotlib Figure: episode return against env steps (left) and against wall-clock seconds of
    training (right), from ``make_train``'s ``metrics`` (per update; returns averaged over players).
    Drawn into ``axes`` (two matplotlib Axes of one figure, which is returned) when given.

    Each update where episodes ended is a faint point; the line is smoothed over ~5% of them. Updates
    before an env could have played a whole episode (``rollout_length`` × update < ``episode_steps``
    agent steps) are left out: only the luckiest episodes end there. ``random_return`` and
    ``trained_return`` (evaluated returns) are drawn as horizontal lines when given. A run in which no
    episode ended draws only those lines, and says so.
    """
    import matplotlib.pyplot as plt

    metrics = {name: np.asarray(value) for name, value in metrics.items()}
    updates = len(metrics["env_steps"])
    whole_episodes = np.arange(1, updates + 1) * rollout_length > episode_steps
    points = whole_episodes & (metrics["episodes"] > 0)
    if not points.any():   # too short a run for whole episodes: show what ended
        points = metrics["episodes"] > 0
    returns = metrics["episode_return"][points].mean(axis=-1)
    curve = smoothed(returns, metrics["episodes"][points], max(1, len(returns) // 20))
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4), dpi=110, sharey=True)
    fig = axes[0].figure
    for ax, x, label in ((axes[0], metrics["env_steps"][points], "env steps"),
                         (axes[1], metrics["wall_time_s"][points], "wall-clock seconds of training")):
        ax.plot(x, returns, color="tab:blue", alpha=0.3, linewidth=0.8, marker=".", markersize=3,
                label="PPO, episodes ended in an update")
        ax.plot(x, curve, color="tab:blue", linewidth=2, label="PPO (smoothed)")
        if random_return is not None:
            ax.axhline(random_return, color="tab:red", linestyle="--", label="random policy (evaluated)")
        if trained_return is not None:
            ax.axhline(trained_return, color="tab:green", linestyle=":", label="PPO after training (evaluated)")
        if not points.any():
            ax.text(0.5, 0.5, "no episode ended during training", transform=ax.transAxes, ha="center")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("episode return")
    axes[0].legend(loc="best", fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def level_scores(ax, levels: Sequence[str], scores: Dict[str, np.ndarray], colours: Sequence[str]) -> None:
    """Draw on matplotlib Axes ``ax`` one horizontal bar per level and policy: ``scores`` maps each
    policy's label to its human-normalised score (percent, float[len(levels)]; NaN: no bar), the
    levels top to bottom, the policies' bars side by side in ``colours``, a line at 0 (random play
    scores about 0, a human 100)."""
    rows = np.arange(len(levels))
    height = 0.8 / max(len(scores), 1)
    for p, ((label, values), colour) in enumerate(zip(scores.items(), colours)):
        ax.barh(rows - 0.4 + height * (p + 0.5), np.nan_to_num(np.asarray(values, float)), height, color=colour,
                label=label)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(rows)
    ax.set_yticklabels(levels, fontsize=8)
    ax.set_ylim(len(levels) - 0.5, -0.5)
    ax.set_xlabel("human-normalised score (%): 0 = published random agent, 100 = human")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)


def side_by_side(left: np.ndarray, right: np.ndarray, scale: int = 1, gap: int = 2) -> np.ndarray:
    """uint8[T, H·scale, (2W + gap)·scale, 3]: videos ``left`` and ``right`` (uint8[T, H, W, 3] each)
    next to each other with a black ``gap`` (pixels) between, magnified ``scale`` times (nearest)."""
    left, right = np.asarray(left), np.asarray(right)
    if left.shape != right.shape or left.ndim != 4:
        raise ValueError(f"side_by_side needs two videos [T, H, W, C] of one shape, got {left.shape} and "
                         f"{right.shape}")
    both = np.concatenate([left, np.zeros(left.shape[:2] + (gap,) + left.shape[3:], left.dtype), right], axis=2)
    return both.repeat(scale, axis=1).repeat(scale, axis=2)


def gif_bytes(frames: np.ndarray, fps: float) -> bytes:
    """An endlessly looping GIF of ``frames`` (uint8[T, H, W, 3]) at ``fps`` frames per second
    (GIF delays are whole hundredths of a second: 1 to 100 fps)."""
    return iio.imwrite("<bytes>", np.asarray(frames), extension=".gif", duration=round(1000 / fps), loop=0)

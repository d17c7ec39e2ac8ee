"""jaxlab.agents.pictures: smoothing, the learning-curve figure and side-by-side GIFs."""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from jaxlab.agents.pictures import gif_bytes, learning_curve, side_by_side, smoothed  # noqa: E402


def test_smoothed_weights_each_point_by_its_episodes():
    # window 2: (1·1 + 3·3) / 4 at point 1, (3·3 + 5·1) / 4 at point 2
    np.testing.assert_allclose(smoothed(np.array([1.0, 3.0, 5.0]), np.array([1, 3, 1]), 2), [1.0, 2.5, 3.5])


def metrics(updates=40, players=2, ended_from=3):
    steps = np.arange(1, updates + 1) * 100.0
    episodes = np.where(np.arange(updates) >= ended_from, 4, 0)
    returns = np.where(episodes[:, None] > 0, np.linspace(0, 1, updates)[:, None] + np.arange(players), np.nan)
    return {"env_steps": steps, "wall_time_s": steps / 1000, "episodes": episodes, "episode_return": returns}


def test_learning_curve_draws_both_panels_from_whole_episodes_only():
    fig = learning_curve(metrics(), rollout_length=10, episode_steps=95, random_return=0.1, trained_return=1.4,
                         title="t")
    left, right = fig.axes
    points, curve, random_line, trained_line = left.lines
    # updates 1..9 cannot hold a whole 95-step episode (10 steps each): the first point is update 10
    assert points.get_xdata()[0] == 1000.0 and len(points.get_xdata()) == 31
    np.testing.assert_allclose(right.lines[0].get_xdata(), points.get_xdata() / 1000)
    np.testing.assert_allclose(points.get_ydata(), np.linspace(0, 1, 40)[9:] + 0.5)  # mean of the 2 players
    assert random_line.get_ydata()[0] == 0.1 and trained_line.get_ydata()[0] == 1.4
    plt.close(fig)


def test_learning_curve_without_ended_episodes_says_so():
    fig = learning_curve(metrics(updates=3, ended_from=5), rollout_length=10, episode_steps=95, random_return=0.5)
    assert [t.get_text() for t in fig.axes[0].texts] == ["no episode ended during training"]
    plt.close(fig)


def test_side_by_side_and_gif():
    left = np.zeros((3, 4, 5, 3), np.uint8)
    right = np.full((3, 4, 5, 3), 200, np.uint8)
    right[1] = 90  # frames differ, so none is merged
    both = side_by_side(left, right, scale=2, gap=1)
    assert both.shape == (3, 8, 22, 3)
    assert (both[:, :, :10] == 0).all() and (both[:, :, 10:12] == 0).all() and (both[0, :, 12:] == 200).all()
    with pytest.raises(ValueError, match="two videos"):
        side_by_side(left, right[:, :2])
    gif = Image.open(io.BytesIO(gif_bytes(both, fps=5)))
    assert gif.n_frames == 3 and gif.size == (22, 8) and gif.info["loop"] == 0 and gif.info["duration"] == 200

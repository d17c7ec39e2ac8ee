"""jaxlab's Lab2D grid engine against dmlab2d on the meadow level (a torus, an updater with a
probability and a start frame, ``onAdd``/``onRemove``, removals during and outside updates, pieces
made where a removal has not yet freed the cell, teleports and turns, disc, rectangle and position
queries, a shuffled group with a count).

Where Lab2D's random choices cannot matter (one or two walkers that never contend for a cell, grass
that flowers with probability 0 or 1) every step must be equal. With four walkers and a flowering
probability of 0.1, dmlab2d's draws (its Mersenne twister, its shuffles) are not reproduced bit for
bit: 200 episodes on each side must agree in distribution, each statistic within 4 standard errors
of the difference of the means.
"""
from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lab2d_reference import dmlab2d_trajectory, jit_large
import lab2d_grid_meadow as meadow

LEVELS = Path(__file__).parent / "lab2d_grid_levels"
EXACT = ((1, 0.0), (1, 1.0), (2, 1.0))
RANDOM = (4, 0.1)
EPISODES = 200
STEPS = meadow.STEPS - 1


@pytest.fixture(scope="module")
def played():
    """dmlab2d's runs and jaxlab's (one batch: the exact settings, then the random ones)."""
    settings = list(EXACT) + [RANDOM] * EPISODES
    seeds = list(range(len(EXACT))) + list(range(EPISODES))
    runs = [dmlab2d_trajectory(LEVELS, "meadow", settings={"walkers": w, "growth": p}, seed=s, actions=[{}] * STEPS)
            for (w, p), s in zip(settings, seeds)]
    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(len(settings)) + 7)
    walkers = jnp.asarray([w for w, _ in settings], jnp.int32)
    growth = jnp.asarray([p for _, p in settings], jnp.float32)
    obs, rewards, errors = jit_large(jax.vmap(meadow.play))(keys, walkers, growth)
    return runs, jax.tree_util.tree_map(np.asarray, obs), np.asarray(rewards), np.asarray(errors)


def test_steps_match_dmlab2d_where_chance_cannot_matter(played):
    runs, obs, rewards, errors = played
    assert not errors.any()
    for e, run in enumerate(runs[:len(EXACT)]):
        for t in range(STEPS + 1):
            assert bytes(obs["WORLD.TEXT"][e, t].reshape(-1)).decode() == run["observations"]["WORLD.TEXT"][t], (e, t)
            for name in ("FLOWERS", "WALKERS", "AREA"):
                np.testing.assert_array_equal(obs[name][e, t], run["observations"][name][t], err_msg=f"{e} {t}")
        np.testing.assert_allclose(rewards[e], run["rewards"], atol=1e-6)
    texts = [t for run in runs[:len(EXACT)] for t in run["observations"]["WORLD.TEXT"]]
    assert any("F" in t for t in texts) and any(t.count(" ") > 1 for t in texts)   # flowers grew and were eaten


def _statistics(flowers, rewards, walkers, area):
    return {"flowers after 3 steps": flowers[:, 3, 0], "flowers at the end": flowers[:, -1, 0],
            "reward": rewards.sum(axis=1), "ground in the first walker's disc": area[:, :, 0].mean(axis=1),
            "ground in the rectangle": area[:, :, 1].mean(axis=1),
            # walkers 2 and 3 both step towards (2, 2) on the first step: Lab2D's random order decides
            "walker 2 took the contested cell": (walkers[:, 1, 1, :2] == (2, 2)).all(-1).astype(float)}


def test_random_parts_agree_in_distribution(played):
    runs, obs, rewards, _ = played
    lab = runs[len(EXACT):]
    ours = _statistics(*(obs[n][len(EXACT):] if n != "rewards" else rewards[len(EXACT):]
                         for n in ("FLOWERS", "rewards", "WALKERS", "AREA")))
    theirs = _statistics(*(np.stack([r["observations"][n] if n != "rewards" else r["rewards"] for r in lab])
                           for n in ("FLOWERS", "rewards", "WALKERS", "AREA")))
    for name in ours:
        a, b = ours[name], theirs[name]
        se = np.sqrt(a.var() / len(a) + b.var() / len(b))
        assert se > 0, name   # the statistic varies: the test can tell distributions apart
        assert abs(a.mean() - b.mean()) < 4 * se, (name, a.mean(), b.mean(), se)
    assert 0.3 < ours["walker 2 took the contested cell"].mean() < 0.7

"""The published DMLab-30 human and random scores, and human-normalised scores as IMPALA reports them.

The numbers are the per-level episode returns of the DMLab-30 release (the
IMPALA paper's appendix and its released code): a professional human tester
and a uniformly random agent. A level's human-normalised score is
``100 (return - random) / (human - random)``; the suite's score is the mean
(and median) over its levels, reported uncapped and with every level capped
at 100 first (IMPALA's "capped" score). Returns of a ``*_train`` level are
scored as its ``*_test`` level.
"""
from __future__ import annotations

from typing import Dict, Mapping, Optional

import numpy as np

from jaxlab.errors import unknown_name_error

#: level -> (human, random) mean episode return
DMLAB30_SCORES: Dict[str, tuple] = {
    "rooms_collect_good_objects_test": (10.0, 0.073),
    "rooms_exploit_deferred_effects_test": (85.65, 8.501),
    "rooms_select_nonmatching_object": (65.9, 0.312),
    "rooms_watermaze": (54.0, 4.065),
    "rooms_keys_doors_puzzle": (53.8, 4.135),
    "language_select_described_object": (389.5, -0.07),
    "language_select_located_object": (280.7, 1.929),
    "language_execute_random_task": (254.05, -5.913),
    "language_answer_quantitative_question": (184.5, -0.33),
    "lasertag_one_opponent_small": (12.65, -0.224),
    "lasertag_three_opponents_small": (18.55, -0.214),
    "lasertag_one_opponent_large": (18.6, -0.083),
    "lasertag_three_opponents_large": (31.5, -0.102),
    "natlab_fixed_large_map": (36.9, 2.173),
    "natlab_varying_map_regrowth": (24.45, 2.989),
    "natlab_varying_map_randomized": (42.35, 7.346),
    "skymaze_irreversible_path_hard": (100.0, 0.1),
    "skymaze_irreversible_path_varied": (100.0, 14.4),
    "psychlab_arbitrary_visuomotor_mapping": (58.75, 0.163),
    "psychlab_continuous_recognition": (58.3, 0.224),
    "psychlab_sequential_comparison": (39.5, 0.129),
    "psychlab_visual_search": (78.5, 0.085),
    "explore_object_locations_small": (74.45, 3.575),
    "explore_object_locations_large": (65.65, 4.673),
    "explore_obstructed_goals_small": (206.0, 6.76),
    "explore_obstructed_goals_large": (119.5, 2.61),
    "explore_goal_locations_small": (267.5, 7.66),
    "explore_goal_locations_large": (194.5, 3.14),
    "explore_object_rewards_few": (77.7, 2.073),
    "explore_object_rewards_many": (106.7, 2.438),
}

#: training levels whose returns are scored as the held-out test level
SCORED_AS = {"rooms_collect_good_objects_train": "rooms_collect_good_objects_test",
             "rooms_exploit_deferred_effects_train": "rooms_exploit_deferred_effects_test"}

#: IMPALA's per-level cap of the "capped" score
CAP = 100.0


def human_normalized(level: str, episode_return: float) -> float:
    """The human-normalised score (percent) of a mean ``episode_return`` on ``level`` (a
    DMLab-30 name, with or without ``contributed/dmlab30/``; ``*_train`` scores as ``*_test``)."""
    name = level.split("/")[-1]
    name = SCORED_AS.get(name, name)
    if name not in DMLAB30_SCORES:
        raise unknown_name_error("DMLab-30 level", name, tuple(DMLAB30_SCORES) + tuple(SCORED_AS))
    human, random = DMLAB30_SCORES[name]
    return 100.0 * (float(episode_return) - random) / (human - random)


def dmlab30_score(returns: Mapping[str, float], cap: Optional[float] = CAP) -> Dict[str, object]:
    """Human-normalised scores of per-level mean episode returns.

    Args:
      returns: level name -> mean episode return (any subset of DMLab-30;
        ``*_train`` names are scored as their test level; two names scoring as
        one level raise ValueError).
      cap: per-level cap applied before averaging for ``mean_capped`` /
        ``median_capped`` (IMPALA: 100).

    Returns a dict: ``per_level`` (level -> score, uncapped), ``mean``,
    ``median``, ``mean_capped``, ``median_capped`` (percent), and
    ``missing`` (the DMLab-30 levels not in ``returns``: a full-suite figure
    needs all 30).
    """
    per_level: Dict[str, float] = {}
    for level, value in returns.items():
        name = SCORED_AS.get(level.split("/")[-1], level.split("/")[-1])
        if name in per_level:
            raise ValueError(f"two returns are scored as {name!r}")
        per_level[name] = human_normalized(name, value)
    if not per_level:
        raise ValueError("dmlab30_score needs at least one level's return")
    scores = np.array(list(per_level.values()), np.float64)
    capped = np.minimum(scores, np.inf if cap is None else cap)
    return {"per_level": per_level, "mean": float(scores.mean()), "median": float(np.median(scores)),
            "mean_capped": float(capped.mean()), "median_capped": float(np.median(capped)),
            "missing": sorted(set(DMLAB30_SCORES) - set(per_level))}

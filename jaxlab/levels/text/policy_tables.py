"""The winning policy's tables, compiled on the host from a game and its walkthrough: the arrays
``TextGame`` carries (``pol_*``) for the device-side policy (``jaxlab.kernels.text.policy``)."""
from __future__ import annotations

from typing import Dict, Sequence

import numpy as np

from jaxlab.levels.text.compiled_game import TextGame

#: free positions in front of the walkthrough, for the reverse actions that play pushes
SLACK = 32



def compile_policy(game: TextGame, walkthrough: Sequence[int], slack: int = SLACK) -> Dict[str, np.ndarray]:
    """Host: the policy fields of ``game`` for ``walkthrough`` (command ids).

    The walkthrough is replayed as the kernel's ``step`` would (a command that does
    not apply, or -1, is skipped); its grounded actions fill the last n of
    L = n + ``slack`` positions (L = 1 without any). The goal is, for each
    required quest, the condition of its first winning event that holds at
    the end. Returns ``pol_init``, ``pol_goal``, ``pol_goal_quest``,
    ``pol_src``, ``pol_adds`` (see ``TextGame``).
    """
    pre, add, dele = (np.asarray(getattr(game, n)) for n in ("act_pre", "act_add", "act_del"))
    span, facts = np.asarray(game.cmd_span), np.array(game.init_facts)
    acts = []
    for c in walkthrough:
        if 0 <= c < len(span):
            ok = [g for g in range(*span[c]) if facts[pre[g][pre[g] >= 0]].all()]
            if ok:
                acts.append(ok[0])
                facts[dele[ok[0]][dele[ok[0]] >= 0]] = False
                facts[add[ok[0]][add[ok[0]] >= 0]] = True
    goal, quest = [], []  # the winning condition of each required quest: (fact, quest) pairs
    ev_facts, ev_quest = np.asarray(game.ev_facts), np.asarray(game.ev_quest)
    wins = np.asarray(game.ev_win) & np.asarray(game.ev_possible)
    required = ~np.asarray(game.q_optional) & np.asarray(game.q_completable)
    for q in np.flatnonzero(required[:int(game.num_quests)]):
        met = [e for e in np.flatnonzero(wins & (ev_quest == q)) if facts[ev_facts[e][ev_facts[e] >= 0]].all()]
        condition = [int(f) for f in ev_facts[met[0]] if f >= 0] if met else []
        goal, quest = goal + condition, quest + [int(q)] * len(condition)
    n = len(acts)
    size = n + slack if n else 1
    width = max(pre.shape[1], len(goal), 1)
    rows = np.full((size + 1, width), -1, np.int32)  # the facts each position reads; row `size`: the goal
    if n:
        rows[size - n:size, :pre.shape[1]] = pre[acts]
    rows[size, :len(goal)] = goal
    src, adds = np.zeros(rows.shape, np.int32), np.zeros(rows.shape, bool)
    for k in range(size - n, size + 1):
        for p in np.flatnonzero(rows[k] >= 0):
            for j in range(k - 1, size - n - 1, -1):
                g = acts[j - size + n]
                if rows[k, p] in add[g] or rows[k, p] in dele[g]:
                    src[k, p], adds[k, p] = k - j, rows[k, p] in add[g]
                    break
    init = np.full(size, -1, np.int32)
    init[size - n:] = acts
    return dict(pol_init=np.asarray(init), pol_goal=np.array(goal or [-1], np.int32),
                pol_goal_quest=np.array(quest or [-1], np.int32), pol_src=np.asarray(src), pol_adds=np.asarray(adds))

"""Shared by the text tests: play many command sequences in their games, one jitted vmapped scan."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.kernels.text import kernel


def _record(game, state, reward):
    return {"admissible": kernel.admissible(game, state.facts), "score": state.score, "won": state.won,
            "lost": state.lost, "moves": state.moves, "reward": reward}


@jax.jit
def play(bank, game_index, command_ids):
    """Play row b of ``command_ids`` (int32[B, T]; -1 is an unknown command) in game ``game_index[b]``
    (int32[B]) of ``bank`` (a ``jaxlab.Bank`` of TextGames), from its start.

    Returns a dict of per-step records, each [B, T + 1, ...] (index 0: the
    start): ``admissible`` bool[K], ``score``, ``won``, ``lost``, ``moves``,
    ``reward``; and ``max_score`` float32[B].
    """

    def episode(index, ids):
        game = bank.get(index)
        start = kernel.initial_state(game, jax.random.PRNGKey(0), index)

        def one(state, command):
            state, reward = kernel.step(game, state, command)
            return state, _record(game, state, reward)

        _, trace = jax.lax.scan(one, start, ids)
        first = _record(game, start, jnp.float32(0))
        out = jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a[None], b]), first, trace)
        return dict(out, max_score=game.max_score)

    return jax.vmap(episode)(game_index, command_ids)

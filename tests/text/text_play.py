"""Shared by the text tests: play many command sequences in their games, one jitted vmapped scan."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.text import kernel
from jaxlab.levels.text.grounding import fact_text


def _record(game, state, reward):
    return {"admissible": kernel.admissible(game, state.facts), "score": state.score, "won": state.won,
            "lost": state.lost, "moves": state.moves, "reward": reward, "facts": state.facts}


@jax.jit
def play(bank, game_index, command_ids):
    """Play row b of ``command_ids`` (int32[B, T]; -1 is an unknown command) in game ``game_index[b]``
    (int32[B]) of ``bank`` (a ``jaxlab.Bank`` of TextGames), from its start.

    Returns a dict of per-step records, each [B, T + 1, ...] (index 0: the
    start): ``admissible`` bool[K], ``score``, ``won``, ``lost``, ``moves``,
    ``reward``, ``facts`` bool[F] (the game's facts that some action changes, ``info.facts``); and
    ``max_score`` float32[B].
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


def assert_same_facts(info, mine, first, now, where) -> None:
    """jaxlab's facts ``mine`` (bool[>= len(info.facts)], over ``info.facts``: the facts some action
    changes) are TextWorld's true facts ``now`` (``(predicate, entity ids)``) among those, and
    TextWorld's other facts are the ones it had at the start (``first``)."""
    universe = np.array(info.facts)
    changing = set(universe.tolist())
    tw_true = {fact_text(f) for f in now}
    my_true = set(universe[np.asarray(mine)[:len(universe)]].tolist())
    assert my_true == tw_true & changing, (where, sorted(my_true - tw_true), sorted((tw_true & changing) - my_true))
    assert tw_true - changing == {fact_text(f) for f in first} - changing, (where, "a fact no jaxlab action changes")

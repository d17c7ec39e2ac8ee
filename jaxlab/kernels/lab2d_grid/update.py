"""The action queue and ``grid:update``: Lab2D's frame.

Lab2D queues what callbacks ask for (moves, turns, state changes, teleports, beams, connections) and
carries it out during ``update``: first the updaters (each update phase in the world's order visits
the pieces of its group, in a random order, each with the updater's probability, once they have been
in their state for ``startFrame`` frames, and calls their ``onUpdate``), then the queue, in the order
asked, up to ``flush_count`` + 1 times (actions that callbacks queue meanwhile run in the next
round; an action that cannot be done yet waits for the next update), stopping early after a round
that did nothing (Lab2D would repeat it to no effect). Pieces removed meanwhile are released at the
end of each round.
"""
from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxlab.kernels.lab2d_grid import dispatch, moves, pieces, queries
from jaxlab.kernels.lab2d_grid.state import (ACTION_FIELDS, CONNECT, DISCONNECT, DISCONNECT_ALL, HIT_BEAM, PUSH,
                                             QUEUE_FULL, ROTATE, SET_ORIENTATION, SET_STATE, TELEPORT,
                                             TELEPORT_TO_GROUP, GridRules, GridState, take_key)

#: Lab2D's default number of extra rounds of the queue per update
FLUSH_COUNT = 128


def enqueue(g: GridState, kind: int, piece, a=0, b=0, c=0, active=True) -> GridState:
    """Queue an action (``kind`` one of the state module's kinds) of ``piece`` with int32 arguments.
    A full queue drops it and sets ``QUEUE_FULL`` in ``g.error``."""
    active = jnp.asarray(active) & (jnp.asarray(piece) >= 0)
    room = g.queue_len < g.queue.shape[0]
    row = jnp.stack([jnp.int32(kind)] + [jnp.asarray(v, jnp.int32) for v in (piece, a, b, c)])
    at = jnp.minimum(g.queue_len, g.queue.shape[0] - 1)
    put = active & room
    return g.replace(queue=g.queue.at[at].set(jnp.where(put, row, g.queue[at])),
                     queue_len=g.queue_len + put.astype(jnp.int32),
                     error=g.error | jnp.where(active & ~room, QUEUE_FULL, 0))


def remove(rules: GridRules, g: GridState, piece) -> GridState:
    """``grid:removePiece``: released now, or, inside an update, at the end of the queue's round."""
    if not dispatch.in_update():
        return pieces.release(rules, g, piece)
    ok = (piece >= 0) & (g.removing_len < g.removing.shape[0])
    at = jnp.minimum(g.removing_len, g.removing.shape[0] - 1)
    return g.replace(removing=g.removing.at[at].set(jnp.where(ok, piece, g.removing[at])),
                     removing_len=g.removing_len + ok.astype(jnp.int32))


def set_updater(rules: GridRules, g: GridState, update: int, group, probability=1.0, start_frame=0) -> GridState:
    """``grid:setUpdater{update=, group=, probability=, startFrame=}`` (``update`` a static id,
    ``group`` an int32 id)."""
    return g.replace(update_group=g.update_group.at[update].set(group),
                     update_probability=g.update_probability.at[update].set(probability),
                     update_start=g.update_start.at[update].set(start_frame))


#: each action kind's ``fn(rules, g, piece, a, b, c) -> (g, done)``
_ACTIONS = {ROTATE: moves.rotate, PUSH: moves.push, TELEPORT: moves.teleport, SET_ORIENTATION: moves.set_orientation,
            SET_STATE: moves.set_state, TELEPORT_TO_GROUP: moves.teleport_to_group, HIT_BEAM: moves.hit_beam,
            CONNECT: lambda rules, g, piece, a, b, c: (pieces.connect(g, piece, a), moves.DONE),
            DISCONNECT: lambda rules, g, piece, a, b, c: (pieces.disconnect(g, piece), moves.DONE),
            DISCONNECT_ALL: lambda rules, g, piece, a, b, c: (pieces.disconnect_all(g, piece), moves.DONE)}


def _process(rules: GridRules, g: GridState, action):
    """Carry out one queued action; (g, done)."""
    kind, piece, a, b, c = (action[i] for i in range(ACTION_FIELDS))
    live = g.piece_state[jnp.maximum(piece, 0)] >= 0
    carry = (g, moves.DONE)
    for k in sorted(_ACTIONS):
        carry = dispatch.when(live & (kind == k), lambda done, f=_ACTIONS[k]: f(rules, done[0], piece, a, b, c), carry)
    return carry


def _round(rules: GridRules, g: GridState):
    """One round of the queue (Lab2D's ``ProcessQueue``), then the removals. Returns (g, whether the
    round did anything: an action done or queued, or a piece removed; a round that did nothing would
    do nothing again, so the update stops there)."""
    todo, n = g.queue, g.queue_len
    g = g.replace(queue_len=jnp.int32(0))
    cap = todo.shape[0]

    def step(c):
        i, g, kept, kept_len = c
        g, done = _process(rules, g, todo[i])
        kept = kept.at[kept_len].set(jnp.where(done, kept[kept_len], todo[i]))
        return i + 1, g, kept, kept_len + (~done).astype(jnp.int32)

    _, g, kept, kept_len = jax.lax.while_loop(lambda c: c[0] < n, step,
                                              (jnp.int32(0), g, jnp.zeros_like(todo), jnp.int32(0)))
    progress = (kept_len < n) | (g.queue_len > 0) | (g.removing_len > 0)
    rows = jnp.arange(cap)
    new = jnp.where((rows < kept_len)[:, None], kept, g.queue[jnp.clip(rows - kept_len, 0, cap - 1)])
    total = kept_len + g.queue_len
    g = g.replace(queue=new, queue_len=jnp.minimum(total, cap),
                  error=g.error | jnp.where(total > cap, QUEUE_FULL, 0))

    def release(c):
        i, g = c
        return i + 1, pieces.release(rules, g, g.removing[i])

    _, g = jax.lax.while_loop(lambda c: c[0] < c[1].removing_len, release, (jnp.int32(0), g))
    return g.replace(removing_len=jnp.int32(0)), progress


def _run_updaters(rules: GridRules, g: GridState) -> GridState:
    """Lab2D's ``RunUpdaters``."""
    cap = g.piece_state.shape[0]
    num_updates = len(rules.world.update_names)
    for update in range(num_updates):
        fns = {(s, u): f for (s, u), f in rules.callbacks.on_update.items() if u == update}
        if not fns:
            continue
        group = g.update_group[update]
        member = queries.group_members(rules, g, group)
        g, key = take_key(g)
        pick_key, order_key = jax.random.split(key)
        chosen = member & (jax.random.uniform(pick_key, (cap,)) < g.update_probability[update])
        chosen = chosen | (member & (g.update_probability[update] >= 1.0))
        order = jnp.argsort(jnp.where(chosen, jax.random.uniform(order_key, (cap,)), 2.0)).astype(jnp.int32)
        n = jnp.sum(chosen).astype(jnp.int32)
        index_of, _ = dispatch.pair_branch(rules, fns, jnp.int32(0), jnp.int32(0), num_updates)

        def step(c, fns=fns, index_of=index_of, update=update, order=order):
            k, g = c
            piece = order[k]
            frames = g.frame - g.piece_born[piece]
            ready = frames >= g.update_start[update]
            _, branch = dispatch.pair_branch(rules, fns, g.piece_state[piece], jnp.int32(update), num_updates)
            g = dispatch.by_key(g, fns, index_of, branch, ready, lambda f, g: f(g, piece, frames), "onUpdate:")
            return k + 1, g

        g = jax.lax.while_loop(lambda c, n=n: c[0] < n, step, (jnp.int32(0), g))[1]
    return g


def update(rules: GridRules, g: GridState, flush_count: Any = FLUSH_COUNT) -> GridState:
    """``grid:update(random, flushCount)``: beams drawn last frame vanish, the updaters run, the frame
    count goes up, and the queue is carried out (see the module docstring)."""
    with dispatch.updating():
        g = g.replace(beam=jnp.full_like(g.beam, -1))
        g = _run_updaters(rules, g)
        g = g.replace(frame=g.frame + 1)

        def more(c):
            i, g, progress = c
            return (i < flush_count + 1) & (g.queue_len > 0) & progress

        def round_(c):
            g, progress = _round(rules, c[1])
            return c[0] + 1, g, progress

        return jax.lax.while_loop(more, round_, (jnp.int32(0), g, jnp.bool_(True)))[1]

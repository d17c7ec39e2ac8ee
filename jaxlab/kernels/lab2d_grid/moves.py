"""What a queued action does when an update reaches it: Lab2D's ``...Actual`` operations.

Each is ``fn(rules, g, piece, a, b, c) -> (g, done bool[])`` over the action's three int32
arguments; an action that is not done (a state change into an occupied cell, a teleport to a group
with no free place) waits in the queue for the next update, as in Lab2D. Random choices draw from
the grid's key (Lab2D draws from the episode's generator: the same choices in distribution, not bit
for bit).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.lab2d_grid import dispatch, pieces, queries
from jaxlab.kernels.lab2d_grid.state import (MATCH_TARGET, PICK_RANDOM, GridRules, GridState,
                                             cell_index, cell_ok, direction_of, in_bounds, piece_at, take_key)

DONE = jnp.bool_(True)


def _pick_orientation(g: GridState, mode, original, target):
    """(g, int32[]): Lab2D's ``PickOrientation``: the target's, the piece's own, or a random one."""
    g, key = take_key(g)
    drawn = jax.random.randint(key, (), 0, 4, jnp.int32)
    return g, jnp.where(mode == MATCH_TARGET, target, jnp.where(mode == PICK_RANDOM, drawn, original))


def _move_by(rules: GridRules, g: GridState, piece, offset, orient) -> GridState:
    """Lift ``piece``'s ring, move it by ``offset`` (int32[2]) if every piece fits (else stay, facing as
    before, and call ``onBlocked``), place it back; ``orient``: the piece's orientation if it moves."""
    members, n = pieces.ring(g, piece)
    g = pieces.lift(rules, g, members, n)
    ok, blocker = pieces.can_place(rules, g, members, n, offset)
    g = g.replace(piece_orient=g.piece_orient.at[piece].set(jnp.where(ok, orient, g.piece_orient[piece])))
    g = pieces.place(rules, g, members, n, jnp.where(ok, offset, 0))
    return pieces.on_blocked(rules, g, piece, blocker, ~ok)


def _move_unlayered(rules: GridRules, g: GridState, piece, target, orient, blocked_calls: bool) -> GridState:
    """A piece without a layer only changes its place (when ``target`` is on the grid)."""
    ok = in_bounds(rules, target)
    g = g.replace(piece_pos=g.piece_pos.at[piece].set(jnp.where(ok, target, g.piece_pos[piece])),
                  piece_orient=g.piece_orient.at[piece].set(jnp.where(ok, orient, g.piece_orient[piece])))
    if blocked_calls:
        g = pieces.on_blocked(rules, g, piece, jnp.int32(-1), ~ok)
    return g


def push(rules: GridRules, g: GridState, piece, direction, relative, _c):
    """``moveAbs``/``moveRel``: one cell towards ``direction`` (0 N .. 3 W), turned by the piece's
    orientation when ``relative`` is 1."""
    turn = jnp.where(relative == 1, g.piece_orient[piece], 0)
    step = direction_of(direction + turn)
    layered = rules.state_layer(g.piece_state[piece]) >= 0
    orient = g.piece_orient[piece]
    g = dispatch.when(layered, lambda g: _move_by(rules, g, piece, step, orient), g)
    g = dispatch.when(~layered, lambda g: _move_unlayered(rules, g, piece, g.piece_pos[piece] + step, orient, True), g)
    return g, DONE


def teleport(rules: GridRules, g: GridState, piece, x, y, mode):
    """``teleport``: to (x, y) (wrapped on a torus), facing as ``mode`` says."""
    target = jnp.stack([x, y])
    if rules.torus:
        target = jnp.mod(target, jnp.asarray([rules.width, rules.height], jnp.int32))
    g, orient = _pick_orientation(g, mode, g.piece_orient[piece], g.piece_orient[piece])
    layered = rules.state_layer(g.piece_state[piece]) >= 0
    g = dispatch.when(layered, lambda g: _move_by(rules, g, piece, target - g.piece_pos[piece], orient), g)
    g = dispatch.when(~layered, lambda g: _move_unlayered(rules, g, piece, target, orient, False), g)
    return g, DONE


def rotate(rules: GridRules, g: GridState, piece, turn, _b, _c):
    """``turn``: the piece turns clockwise by ``turn`` quarters."""
    return g.replace(piece_orient=g.piece_orient.at[piece].set(jnp.mod(g.piece_orient[piece] + turn, 4))), DONE


def set_orientation(rules: GridRules, g: GridState, piece, orient, _b, _c):
    """``setOrientation``."""
    return g.replace(piece_orient=g.piece_orient.at[piece].set(jnp.mod(orient, 4))), DONE


def _change_state(rules: GridRules, g: GridState, piece, target, then=lambda g: g) -> GridState:
    """The end of a state change: ``onRemove`` of the old state, ``then(g)``, the new state (its
    frames count from now), ``onAdd`` of the new one."""
    g = then(pieces.on_remove(rules, g, piece))
    g = g.replace(piece_state=g.piece_state.at[piece].set(target),
                  piece_born=g.piece_born.at[piece].set(g.frame))
    return pieces.on_add(rules, g, piece)


def set_state(rules: GridRules, g: GridState, piece, target, _b, _c):
    """``setState``: not done while the new state's layer is taken at the piece's place."""
    pos = g.piece_pos[piece]
    old_layer, new_layer = rules.state_layer(g.piece_state[piece]), rules.state_layer(target)
    new_ok = cell_ok(rules, pos, new_layer)
    old_ok = cell_ok(rules, pos, old_layer)
    moves_layer = new_layer != old_layer
    taken = moves_layer & new_ok & (piece_at(rules, g, pos, new_layer) >= 0)

    def change(g):
        g = pieces.contacts(rules, g, piece, pos, False, moves_layer & (~new_ok | old_ok))
        g = pieces.set_cell(rules, g, pos, old_layer, -1, moves_layer & old_ok)
        g = pieces.set_cell(rules, g, pos, new_layer, piece, new_ok)
        g = _change_state(rules, g, piece, target)
        return pieces.contacts(rules, g, piece, pos, True, new_ok)

    g = dispatch.when((target >= 0) & ~taken, change, g)
    return g, ~taken


def teleport_to_group(rules: GridRules, g: GridState, piece, target, group, mode):
    """``teleportToGroup``: to a random member of ``group`` whose place is free on the target state's
    layer (``target`` -1: keep the state); not done while there is none."""
    target = jnp.where(target >= 0, target, g.piece_state[piece])
    layer = rules.state_layer(target)
    old_layer = rules.state_layer(g.piece_state[piece])
    pos = g.piece_pos[piece]
    old_ok = cell_ok(rules, pos, old_layer)
    member = queries.group_members(rules, g, group)
    at_place = g.cells[jnp.clip(layer, 0, None), jnp.clip(g.piece_pos[:, 1], 0, rules.height - 1),
                       jnp.clip(g.piece_pos[:, 0], 0, rules.width - 1)]
    same_cell = old_ok & (layer == old_layer) & jnp.all(g.piece_pos == pos, axis=-1)
    fits = member & (layer >= 0) & ((at_place < 0) | same_cell)
    g, key = take_key(g)
    choice = jnp.argmax(jnp.where(fits, jax.random.uniform(key, fits.shape) + 1.0, 0.0)).astype(jnp.int32)
    found = jnp.any(fits) & (group >= 0)

    def go(g):
        dest = g.piece_pos[choice]
        g, orient = _pick_orientation(g, mode, g.piece_orient[piece], g.piece_orient[choice])
        moving = ~(old_ok & (layer == old_layer) & jnp.all(dest == pos))
        g = pieces.set_cell(rules, g, pos, old_layer, -1, moving & old_ok)
        g = pieces.set_cell(rules, g, dest, layer, piece)
        g = pieces.contacts(rules, g, piece, pos, False)

        def arrive(g):
            return g.replace(piece_pos=g.piece_pos.at[piece].set(dest),
                             piece_orient=g.piece_orient.at[piece].set(orient))

        changes = target != g.piece_state[piece]
        g = dispatch.when(changes, lambda g: _change_state(rules, g, piece, target, arrive), g)
        g = dispatch.when(~changes, arrive, g)
        return pieces.contacts(rules, g, piece, dest, True)

    g = dispatch.when(found, go, g)
    return g, found | (group < 0)


def hit_beam(rules: GridRules, g: GridState, piece, hit, length, radius):
    """``hitBeam``: Lab2D's beam of ``hit`` from the piece, ``radius`` cells to each side and
    ``length`` ahead (shorter by one per cell sideways), each line stopped where a piece's ``onHit``
    absorbs it; cells it crosses show the hit's sprite until the next update."""
    orient = g.piece_orient[piece]
    start = g.piece_pos[piece]
    ok = cell_ok(rules, start, rules.state_layer(g.piece_state[piece]))
    forward = direction_of(orient)

    def line(g, pos, steps):
        """Hit cells from ``pos`` ahead; (g, bool[] the first cell blocked)."""
        def step(c):
            i, g, pos, going, first_blocked = c
            g, blocked = _hit_cell(rules, g, piece, hit, pos, orient, going)
            return (i + 1, g, pos + forward, going & ~blocked, first_blocked | (going & blocked & (i == 0)))
        c = (jnp.int32(0), g, pos, jnp.bool_(True), jnp.bool_(False))
        _, g, _, _, first_blocked = jax.lax.while_loop(lambda c: (c[0] < steps) & c[3], step, c)
        return g, first_blocked

    def fire(g):
        """Lines 0..radius-1 to the left (r = 1, 2, ...), then as many to the right, then ahead; a side
        stops at its first line whose first cell is blocked."""
        def one(c):
            j, g, left_on, right_on = c
            left = j < radius
            r = jnp.where(left, j + 1, j - radius + 1)
            ahead = j == 2 * radius
            side = jnp.where(left, orient + 3, orient + 1)
            pos = jnp.where(ahead, start + forward, start + r * direction_of(side))
            steps = jnp.where(ahead, length, length - r + 1)
            on = ahead | jnp.where(left, left_on, right_on)
            g, stopped = line(g, pos, jnp.where(on, steps, 0))
            return (j + 1, g, left_on & ~(left & stopped), right_on & ~(~left & ~ahead & stopped))
        return jax.lax.while_loop(lambda c: c[0] <= 2 * radius, one,
                                  (jnp.int32(0), g, jnp.bool_(True), jnp.bool_(True)))[1]

    return dispatch.when(ok, fire, g), DONE


def _hit_cell(rules: GridRules, g: GridState, hitter, hit, pos, orient, active):
    """Lab2D's ``DoHit`` at ``pos``: every piece there, layer by layer, is hit (its ``onHit``: True
    absorbs, a function answers); (g, bool[] blocked: a piece absorbed it or ``pos`` is off the grid)."""
    on = active & in_bounds(rules, pos)
    blocked = jnp.bool_(False)
    fns = rules.callbacks.on_hit
    num_hits = len(rules.world.hit_names)
    absorbs = [k for k, v in fns.items() if v is True]
    calls = {k: v for k, v in fns.items() if v is not True}
    absorbing = np.zeros((rules.world.num_states + 1, num_hits + 1), bool)
    for s, h in absorbs:
        absorbing[s, h] = True
    index_of = dispatch.pair_branch(rules, calls, jnp.int32(0), hit, num_hits)[0] if calls else {}

    def one_layer(layer, c):
        g, blocked = c
        target = piece_at(rules, g, pos, layer)
        here = on & (target >= 0)
        state = g.piece_state[target]
        said = jnp.bool_(False)
        if calls:
            _, branch = dispatch.pair_branch(rules, calls, state, hit, num_hits)

            def call(f, carry):
                g, absorbed = f(carry[0], target, hitter)
                return g, jnp.asarray(absorbed, bool)

            g, said = dispatch.by_key((g, said), calls, index_of, branch, here, call, "onHit:")
        return g, blocked | (here & (jnp.asarray(absorbing)[state, hit] | said))

    g, blocked = jax.lax.fori_loop(0, rules.world.num_layers, one_layer, (g, blocked))
    hit_layer = jnp.asarray(list(rules.world.hit_layer) + [-1], jnp.int32)[hit]
    hit_sprite = jnp.asarray(list(rules.world.hit_sprite) + [-1], jnp.int32)[hit]
    draw = on & ~blocked & (hit_layer >= 0) & (hit_sprite >= 0)
    idx = cell_index(rules, pos, hit_layer)
    g = g.replace(beam=g.beam.at[idx].set(jnp.where(draw, hit_sprite, g.beam[idx])),
                  beam_orient=g.beam_orient.at[idx].set(jnp.where(draw, orient, g.beam_orient[idx])))
    return g, ~on | blocked

"""Pieces come and go, and touch: creation, release, contacts, and the rings of connected pieces.

These are Lab2D's immediate grid operations (its ``CreateInstance``, ``ReleaseInstanceActual``,
``TriggerOnEnterCallbacks``/``TriggerOnLeaveCallbacks``, ``LiftPiece``/``CanPlacePiece``/
``PlacePiece``), in its order, callbacks included. ``moves`` and ``queue`` build on them.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.lab2d_grid import dispatch
from jaxlab.kernels.lab2d_grid.state import (CONNECT, NO_FREE_SLOT, GridRules, GridState, cell_index, cell_ok,
                                             in_bounds, normalised, piece_at)


def set_cell(rules: GridRules, g: GridState, pos, layer, piece, where=True) -> GridState:
    """Put ``piece`` (-1: none) in the cell (pos, layer) where ``where`` holds and it is a cell."""
    idx = cell_index(rules, pos, layer)
    ok = jnp.asarray(where) & cell_ok(rules, pos, layer)
    return g.replace(cells=g.cells.at[idx].set(jnp.where(ok, piece, g.cells[idx])))


def contacts(rules: GridRules, g: GridState, piece, pos, enter: bool, active=True) -> GridState:
    """Lab2D's contact callbacks of ``piece`` (int32[]) with every other piece at ``pos`` (int32[2]),
    layer by layer: the other piece's ``enter``/``leave`` callback for the mover's contact, then
    the mover's for the other's contact. Nothing where ``active`` is false or ``pos`` is off the grid."""
    fns = rules.callbacks.on_enter if enter else rules.callbacks.on_leave
    if not fns:
        return g
    what = "onContact.enter" if enter else "onContact.leave"
    num_contacts = len(rules.world.contact_names)
    active = jnp.asarray(active) & in_bounds(rules, pos)
    source_state = g.piece_state[piece]
    source_contact = rules.state_contact(source_state)

    def one_call(k, c):
        """Call k = 2 * layer + role: role 0 the other piece's callback for the mover's contact, role 1
        the mover's for the other's contact (one traced call for both; the other piece and its contact
        are read once per layer, before its first call, as Lab2D reads them)."""
        g, target, target_contact = c
        layer_start = k % 2 == 0
        found = piece_at(rules, g, pos, k // 2)
        target = jnp.where(layer_start, found, target)
        target_contact = jnp.where(layer_start, rules.state_contact(g.piece_state[found]), target_contact)
        here = active & (target >= 0) & (target != piece)
        mover = ~layer_start
        state = jnp.where(mover, source_state, g.piece_state[target])
        contact = jnp.where(mover, target_contact, source_contact)
        first, second = jnp.where(mover, piece, target), jnp.where(mover, target, piece)
        g = dispatch.for_pair(rules, g, fns, state, contact, num_contacts, here & (contact >= 0),
                              lambda f, g: f(g, first, second), what)
        return g, target, target_contact

    # Nothing is called (and nothing changes) unless some piece there has a callback for the pair: one
    # check for the whole loop, so the many contacts that call nothing cost a batch almost nothing.
    others = jnp.stack([piece_at(rules, g, pos, layer) for layer in range(rules.world.num_layers)])
    other_contact = rules.state_contact(g.piece_state[others])
    _, theirs = dispatch.pair_branch(rules, fns, g.piece_state[others], source_contact, num_contacts)
    _, mine = dispatch.pair_branch(rules, fns, source_state, other_contact, num_contacts)
    calls = ((theirs > 0) & (source_contact >= 0)) | ((mine > 0) & (other_contact >= 0))
    possible = active & jnp.any((others >= 0) & (others != piece) & calls)
    return dispatch.when(possible, lambda g: jax.lax.fori_loop(0, 2 * rules.world.num_layers, one_call,
                                                               (g, jnp.int32(-1), jnp.int32(-1)))[0], g)


def on_add(rules: GridRules, g: GridState, piece, active=True) -> GridState:
    """The ``onAdd`` callback of ``piece``'s state."""
    return dispatch.for_state(rules, g, rules.callbacks.on_add, g.piece_state[piece], active,
                              lambda f, g: f(g, piece), "onAdd:")


def on_remove(rules: GridRules, g: GridState, piece, active=True) -> GridState:
    """The ``onRemove`` callback of ``piece``'s state."""
    return dispatch.for_state(rules, g, rules.callbacks.on_remove, g.piece_state[piece], active,
                              lambda f, g: f(g, piece), "onRemove:")


def on_blocked(rules: GridRules, g: GridState, piece, blocker, active=True) -> GridState:
    """The ``onBlocked`` callback of ``piece``'s state, told the ``blocker`` (-1: the grid's edge)."""
    return dispatch.for_state(rules, g, rules.callbacks.on_blocked, g.piece_state[piece], active,
                              lambda f, g: f(g, piece, blocker), "onBlocked:")


def create(rules: GridRules, g: GridState, state, pos, orient, active=True):
    """Lab2D's ``createPiece``: a piece in ``state`` (int32[]) at ``pos`` (int32[2]) facing ``orient``
    where its cell is free (a state without a layer, or a place off the grid, needs no cell).
    Returns (g, piece int32[], -1 if none was made). Calls ``onAdd``, then the contacts it enters."""
    pos = normalised(rules, jnp.asarray(pos, jnp.int32))
    state = jnp.asarray(state, jnp.int32)
    layer = rules.state_layer(state)
    on_grid = cell_ok(rules, pos, layer)
    free_cell = ~on_grid | (g.cells[cell_index(rules, pos, layer)] < 0)
    slot = jnp.argmin(g.piece_state >= 0).astype(jnp.int32)
    has_slot = g.piece_state[slot] < 0
    made = jnp.asarray(active) & (state >= 0) & free_cell & has_slot
    g = g.replace(error=g.error | jnp.where(jnp.asarray(active) & (state >= 0) & free_cell & ~has_slot,
                                            NO_FREE_SLOT, 0))
    piece = jnp.where(made, slot, -1)
    s = jnp.maximum(slot, 0)
    g = g.replace(piece_state=g.piece_state.at[s].set(jnp.where(made, state, g.piece_state[s])),
                  piece_pos=g.piece_pos.at[s].set(jnp.where(made, pos, g.piece_pos[s])),
                  piece_orient=g.piece_orient.at[s].set(jnp.where(made, orient, g.piece_orient[s])),
                  piece_born=g.piece_born.at[s].set(jnp.where(made, g.frame, g.piece_born[s])),
                  piece_next=g.piece_next.at[s].set(jnp.where(made, -1, g.piece_next[s])),
                  piece_prev=g.piece_prev.at[s].set(jnp.where(made, -1, g.piece_prev[s])))
    g = set_cell(rules, g, pos, layer, s, made)
    g = on_add(rules, g, s, made)
    g = contacts(rules, g, s, pos, True, made & on_grid)
    return g, piece


def release(rules: GridRules, g: GridState, piece, active=True) -> GridState:
    """Lab2D's release of a piece (``removePiece`` outside an update, or at the end of an update's
    flush): its queued actions (and connections queued to it) are dropped, the contacts it leaves
    and ``onRemove`` are called, its cell is cleared, it is disconnected and its slot freed."""
    active = jnp.asarray(active) & (piece >= 0) & (g.piece_state[jnp.maximum(piece, 0)] >= 0)
    p = jnp.maximum(piece, 0)
    g = _drop_actions_of(g, p, active)
    g = contacts(rules, g, p, g.piece_pos[p], False, active)
    g = on_remove(rules, g, p, active)
    layer = rules.state_layer(g.piece_state[p])
    g = set_cell(rules, g, g.piece_pos[p], layer, -1, active)
    g = disconnect(g, p, active)
    return g.replace(piece_state=g.piece_state.at[p].set(jnp.where(active, -1, g.piece_state[p])))


def _drop_actions_of(g: GridState, piece, active) -> GridState:
    """The queue without the actions of ``piece`` and without connections to it, order kept."""
    q = g.queue
    n = q.shape[0]
    live = jnp.arange(n) < g.queue_len
    drop = live & ((q[:, 1] == piece) | ((q[:, 0] == CONNECT) & (q[:, 2] == piece))) & active
    keep = live & ~drop
    order = jnp.argsort(jnp.where(keep, jnp.arange(n), n + jnp.arange(n)))
    return g.replace(queue=q[order], queue_len=jnp.sum(keep).astype(jnp.int32))


def ring(g: GridState, piece):
    """(int32[P] the pieces connected to ``piece``, itself first, then along ``piece_next``; int32[] how
    many). Lab2D's ``VisitConnected`` order."""
    cap = g.piece_state.shape[0]

    def more(c):
        k, cur, _ = c
        return (k < cap) & ((k == 0) | ((cur >= 0) & (cur != piece)))

    def step(c):
        k, cur, members = c
        return k + 1, g.piece_next[cur], members.at[k].set(cur)

    n, _, members = jax.lax.while_loop(more, step, (jnp.int32(0), piece, jnp.full((cap,), -1, jnp.int32)))
    return members, n


def visit(members, n, body, g):
    """``body(g, member)`` for the first ``n`` of ``members`` in order (a device loop)."""
    def step(c):
        k, g = c
        return k + 1, body(g, members[k])

    return jax.lax.while_loop(lambda c: c[0] < n, step, (jnp.int32(0), g))[1]


def lift(rules: GridRules, g: GridState, members, n) -> GridState:
    """Lab2D's ``LiftPiece``: each connected piece in turn leaves its contacts and its cell."""
    def body(g, m):
        g = contacts(rules, g, m, g.piece_pos[m], False)
        return set_cell(rules, g, g.piece_pos[m], rules.state_layer(g.piece_state[m]), -1)
    return visit(members, n, body, g)


def can_place(rules: GridRules, g: GridState, members, n, offset):
    """Lab2D's ``CanPlacePiece`` for the lifted ring: (bool[] every piece can move by ``offset``
    (int32[2]) onto the grid into a free cell of its layer; int32[] the first blocking piece, -1)."""
    def step(c):
        k, ok, blocker = c
        m = members[k]
        layer = rules.state_layer(g.piece_state[m])
        here = cell_ok(rules, g.piece_pos[m], layer)
        target = g.piece_pos[m] + offset
        other = piece_at(rules, g, target, layer)
        fails = ~here | ~in_bounds(rules, target) | ((layer >= 0) & (other >= 0))
        first = ok & fails
        return k + 1, ok & ~fails, jnp.where(first & here & in_bounds(rules, target), other, blocker)

    start = (jnp.int32(0), jnp.bool_(True), jnp.int32(-1))
    _, ok, blocker = jax.lax.while_loop(lambda c: (c[0] < n) & c[1], step, start)
    return ok, blocker


def place(rules: GridRules, g: GridState, members, n, offset) -> GridState:
    """Lab2D's ``PlacePiece``: each connected piece in turn moves by ``offset`` (wrapped on a torus),
    takes its cell, and enters its contacts."""
    def body(g, m):
        pos = normalised(rules, g.piece_pos[m] + offset)
        g = g.replace(piece_pos=g.piece_pos.at[m].set(pos))
        layer = rules.state_layer(g.piece_state[m])
        on_grid = cell_ok(rules, pos, layer)
        g = set_cell(rules, g, pos, layer, m, on_grid)
        return contacts(rules, g, m, pos, True, on_grid)
    return visit(members, n, body, g)


def connect(g: GridState, a, b, active=True) -> GridState:
    """Lab2D's ``ConnectActual``: join the rings of pieces ``a`` and ``b`` (int32[] each)."""
    nxt, prv = g.piece_next, g.piece_prev
    active = jnp.asarray(active) & (a != b)
    a_alone, b_alone = nxt[a] < 0, nxt[b] < 0
    members, n = ring(g, a)
    already = jnp.any((jnp.arange(members.shape[0]) < n) & (members == b))

    def both_alone(nxt, prv):
        return nxt.at[a].set(b).at[b].set(a), prv.at[a].set(b).at[b].set(a)

    def a_joins(nxt, prv):   # a goes in before b
        before = prv[b]
        return nxt.at[a].set(b).at[before].set(a), prv.at[a].set(before).at[b].set(a)

    def b_joins(nxt, prv):   # b goes in after a
        after = nxt[a]
        return nxt.at[a].set(b).at[b].set(after), prv.at[b].set(a).at[after].set(b)

    def rings_join(nxt, prv):   # b's ring goes in before a
        a_prev, b_next = prv[a], nxt[b]
        return nxt.at[a_prev].set(b_next).at[b].set(a), prv.at[b_next].set(a_prev).at[a].set(b)

    case = jnp.where(~active | (~a_alone & ~b_alone & already), 0,
                     jnp.where(a_alone & b_alone, 1, jnp.where(a_alone, 2, jnp.where(b_alone, 3, 4))))
    nxt, prv = jax.lax.switch(case, [lambda x, y: (x, y), both_alone, a_joins, b_joins, rings_join], nxt, prv)
    return g.replace(piece_next=nxt, piece_prev=prv)


def disconnect(g: GridState, piece, active=True) -> GridState:
    """Lab2D's ``DisconnectActual``: take ``piece`` out of its ring."""
    nxt, prv = g.piece_next, g.piece_prev
    before, after = prv[piece], nxt[piece]
    active = jnp.asarray(active) & (before >= 0)
    b, a = jnp.maximum(before, 0), jnp.maximum(after, 0)
    pair = after == before
    new_next = nxt.at[b].set(jnp.where(active, jnp.where(pair, -1, after), nxt[b]))
    new_prev = prv.at[a].set(jnp.where(active, jnp.where(pair, -1, before), prv[a]))
    new_next = new_next.at[piece].set(jnp.where(active, -1, new_next[piece]))
    new_prev = new_prev.at[piece].set(jnp.where(active, -1, new_prev[piece]))
    return g.replace(piece_next=new_next, piece_prev=new_prev)


def disconnect_all(g: GridState, piece, active=True) -> GridState:
    """Lab2D's ``DisconnectAllActual``: break up ``piece``'s whole ring."""
    members, n = ring(g, piece)
    mine = (jnp.arange(members.shape[0]) < n) & (members >= 0) & jnp.asarray(active)
    clear = jnp.zeros(g.piece_next.shape, bool).at[jnp.maximum(members, 0)].max(mine)
    return g.replace(piece_next=jnp.where(clear, -1, g.piece_next), piece_prev=jnp.where(clear, -1, g.piece_prev))


def create_layout(rules: GridRules, g: GridState, state_map, layout: str, offset=(0, 0)):
    """``grid:createLayout{stateMap=, layout=, offset=}``: a piece (facing north) for every character of
    ``layout`` (static text; leading and trailing newlines dropped) that ``state_map`` maps to a state
    id, row by row from ``offset`` (x, y), in one device loop. Returns (g, int32[K] the pieces made,
    -1 where the place was taken; K = the characters mapped)."""
    places = [(state_map[char], offset[0] + col, offset[1] + row)
              for row, line in enumerate(layout.strip("\n").split("\n"))
              for col, char in enumerate(line) if char in state_map]
    if not places:
        return g, jnp.zeros((0,), jnp.int32)
    table = jnp.asarray(np.asarray(places, np.int32))

    def one(k, c):
        g, made = c
        g, piece = create(rules, g, table[k, 0], table[k, 1:], jnp.int32(0))
        return g, made.at[k].set(piece)

    return jax.lax.fori_loop(0, len(places), one, (g, jnp.full((len(places),), -1, jnp.int32)))


def create_layout_chars(rules: GridRules, g: GridState, state_map, chars, offset=(0, 0)):
    """``grid:createLayout`` of a layout made at play time: ``chars`` uint8[Hl, Wl] character codes (a room a
    generator made), a piece (facing north) for every cell whose character ``state_map`` (char -> state id)
    maps, row by row from ``offset``, in one device loop. Returns (g, int32[Hl * Wl] the pieces made, -1
    where none)."""
    table = np.full(256, -1, np.int32)
    for char, state in state_map.items():
        table[ord(char)] = state
    rows, cols = chars.shape
    states = jnp.asarray(table)[chars.reshape(-1).astype(jnp.int32)]

    def one(k, c):
        g, made = c
        pos = jnp.stack([offset[0] + k % cols, offset[1] + k // cols]).astype(jnp.int32)
        g, piece = create(rules, g, states[k], pos, jnp.int32(0), active=states[k] >= 0)
        return g, made.at[k].set(jnp.where(states[k] >= 0, piece, -1))

    return jax.lax.fori_loop(0, rows * cols, one, (g, jnp.full((rows * cols,), -1, jnp.int32)))

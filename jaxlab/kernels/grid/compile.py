"""Compile a ``GridSpec`` into the fixed tables the grid kernel reads (a ``CompiledGrid``,
``jaxlab.levels.lab2d.compiled``).

Everything here runs once, on the host, in numpy; the kernel closes over the
resulting ``CompiledGrid`` (its arrays become constants of the jitted step).
Bad specs raise ``GridSpecError`` naming the offending entry, with close-match
suggestions for unknown names.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from jaxlab.errors import unknown_name_error
from jaxlab.levels.lab2d.compiled import KEEP, CompiledGrid, CompiledTransition
from jaxlab.levels.lab2d.spec import DIRECTIONS, GridSpecError, GridSpec
from jaxlab.render.grid.looks import appearance_table, sprite_tables

APPEARANCE_BYTES = 16 << 20  # largest table of pre-composited cell looks (else layers are composited per frame)


def _offsets_within(radius: int) -> Tuple[Tuple[int, int], ...]:
    """(d_row, d_col) with 0 < d_row² + d_col² <= radius²."""
    return tuple((dr, dc) for dr in range(-radius, radius + 1) for dc in range(-radius, radius + 1)
                 if 0 < dr * dr + dc * dc <= radius * radius)


def _oriented(ahead: np.ndarray, right: np.ndarray) -> np.ndarray:
    """int32[4, *shape, 2]: the (row, column) offsets of cells ``ahead`` steps
    forward and ``right`` steps to the right (int arrays of one shape) of an
    avatar facing each orientation 0 N, 1 E, 2 S, 3 W."""
    forward = np.asarray(DIRECTIONS, np.int32)            # [4, 2]
    rightward = np.roll(forward, -1, axis=0)                # the direction a quarter turn clockwise
    extra = (slice(None),) + (None,) * ahead.ndim
    return (ahead[..., None] * forward[extra] + right[..., None] * rightward[extra]).astype(np.int32)


def _view_offsets(spec: GridSpec) -> np.ndarray:
    """int32[4, V_h, V_w, 2]: for each orientation, the world offset of every
    window cell; the avatar sits ``forward`` rows from the top, ``left`` from
    the left, facing up."""
    v = spec.view
    rows, cols = np.meshgrid(np.arange(v.forward + v.backward + 1), np.arange(v.left + v.right + 1), indexing="ij")
    return _oriented(v.forward - rows, cols - v.left)


def _beam_offsets(length: int, radius: int) -> np.ndarray:
    """int32[4, 2·radius+1, length, 2]: cells ahead of an avatar per orientation."""
    lanes, steps = np.meshgrid(np.arange(2 * radius + 1), np.arange(length), indexing="ij")
    return _oriented(steps + 1, lanes - radius)


def compile_grid(spec: GridSpec) -> CompiledGrid:
    """Check ``spec`` and build its tables (see CompiledGrid)."""
    layers = tuple(spec.layers)
    names = ("",) + tuple(s.name for s in spec.states)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise GridSpecError(f"{spec.name}: state names must be unique (repeated: {', '.join(dup)})")
    S, L = len(names), len(layers)

    def sid(name: str, what: str, allow_empty: bool = False) -> int:
        if allow_empty and name == "":
            return 0
        if name not in names[1:]:
            err = unknown_name_error("state", name, names[1:])
            raise GridSpecError(f"{spec.name}: {what}: {err}") from None
        return names.index(name)

    state_layer = np.full(S, -1, np.int32)
    for i, st in enumerate(spec.states, 1):
        if st.layer not in layers:
            raise GridSpecError(f"{spec.name}: state {st.name!r}: {unknown_name_error('layer', st.layer, layers)}")
        state_layer[i] = layers.index(st.layer)

    def same_layer(a: int, b: int, what: str) -> None:
        if b > 0 and state_layer[a] != state_layer[b]:
            raise GridSpecError(f"{spec.name}: {what}: {names[b]!r} is on layer {layers[state_layer[b]]!r} but "
                                f"{names[a]!r} is on {layers[state_layer[a]]!r}; a change of state stays on its layer")

    # map
    rows = tuple(spec.map)
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        widths = sorted({len(r) for r in rows})
        raise GridSpecError(f"{spec.name}: map rows must all have the same length (got lengths {widths})")
    H, W = len(rows), len(rows[0])
    map_states = np.zeros((256, L), np.int32)
    for ch, placed in spec.char_map.items():
        if len(ch) != 1 or ord(ch) > 255:
            raise GridSpecError(f"{spec.name}: char_map keys must be single ASCII characters (got {ch!r})")
        for name in placed:
            i = sid(name, f"char_map[{ch!r}]")
            if map_states[ord(ch), state_layer[i]]:
                raise GridSpecError(f"{spec.name}: char_map[{ch!r}] puts two states on layer "
                                    f"{layers[state_layer[i]]!r}")
            map_states[ord(ch), state_layer[i]] = i
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch not in spec.char_map:
                raise GridSpecError(f"{spec.name}: map row {r + 1}, column {c + 1}: character {ch!r} is not in "
                                    f"char_map (known: {''.join(sorted(spec.char_map))!r})")
    initial_map = np.array([[ord(ch) for ch in row] for row in rows], np.uint8)

    # players
    if not spec.players:
        raise GridSpecError(f"{spec.name}: a world needs at least one player")
    player_state = np.array([sid(p.state, f"player {n + 1} state") for n, p in enumerate(spec.players)], np.int32)
    player_spawn = np.array([sid(p.spawn, f"player {n + 1} spawn") for n, p in enumerate(spec.players)], np.int32)
    is_avatar = np.zeros(S, bool)
    is_avatar[player_state] = True
    if len(set(state_layer[player_state].tolist())) != 1:
        raise GridSpecError(f"{spec.name}: all avatar states must be on one layer (got "
                            f"{sorted({layers[i] for i in state_layer[player_state]})})")
    avatar_layer = int(state_layer[player_state[0]])
    pushable = np.array([False] + [s.pushable for s in spec.states])
    blocks_beams = np.array([False] + [s.blocks_beams for s in spec.states])

    # contacts
    K = len(spec.items)
    enter_becomes = np.full((S, S), KEEP, np.int32)
    leave_becomes = np.full((S, S), KEEP, np.int32)
    enter_reward = np.zeros((S, S), np.float32)
    leave_reward = np.zeros((S, S), np.float32)
    enter_collect = np.full((S, S), -1, np.int32)
    catch_reward = np.zeros((S, S), np.float32)
    catch_respawn = np.zeros((S, S), np.int32)
    for n, ct in enumerate(spec.contacts):
        what = f"contact {n + 1} ({ct.mover} -> {ct.other})"
        m, o = sid(ct.mover, what), sid(ct.other, what)
        if ct.on not in ("enter", "leave"):
            raise GridSpecError(f"{spec.name}: {what}: on must be 'enter' or 'leave' (got {ct.on!r})")
        if ct.collect is not None and not 0 <= ct.collect < K:
            raise GridSpecError(f"{spec.name}: {what}: collect {ct.collect} is not an item index "
                                f"(items: {list(spec.items)})")
        catching = is_avatar[o] and state_layer[o] == state_layer[m]
        if state_layer[o] == state_layer[m] and not catching:
            raise GridSpecError(f"{spec.name}: {what}: both states are on layer {layers[state_layer[m]]!r}; "
                                "only an avatar can be entered on its own layer (catching)")
        if ct.becomes is not None:
            b = sid(ct.becomes, what, allow_empty=True)
            same_layer(o, b, what)
            (enter_becomes if ct.on == "enter" else leave_becomes)[m, o] = b
        (enter_reward if ct.on == "enter" else leave_reward)[m, o] = ct.reward
        if ct.collect is not None:
            enter_collect[m, o] = ct.collect
        if catching:
            if ct.on != "enter":
                raise GridSpecError(f"{spec.name}: {what}: catching an avatar happens on 'enter'")
            catch_reward[m, o] = ct.other_reward
            catch_respawn[m, o] = max(1, ct.respawn_frames)

    # beams
    actions = tuple(b.action for b in spec.beams)
    if len(set(actions)) != len(actions):
        raise GridSpecError(f"{spec.name}: beam actions must be unique (got {list(actions)})")
    B = len(actions)
    overlay = np.array([sid(b.overlay, f"beam {b.action!r} overlay") if b.overlay else 0 for b in spec.beams] or [0],
                       np.int32)[:B]
    hit_becomes = np.full((B, S), KEEP, np.int32)
    hit_reward = np.zeros((B, S), np.float32)
    hit_target_reward = np.zeros((B, S), np.float32)
    hit_freeze = np.zeros((B, S), np.int32)
    for n, h in enumerate(spec.beam_hits):
        what = f"beam hit {n + 1} ({h.beam} -> {h.target})"
        if h.beam not in actions:
            raise GridSpecError(f"{spec.name}: {what}: {unknown_name_error('beam', h.beam, actions)}")
        b, t = actions.index(h.beam), sid(h.target, what)
        if h.becomes is not None:
            nb = sid(h.becomes, what, allow_empty=True)
            same_layer(t, nb, what)
            hit_becomes[b, t] = nb
        hit_reward[b, t] = h.reward
        hit_target_reward[b, t] = h.target_reward
        hit_freeze[b, t] = h.freeze_frames
    mg = spec.matrix_game
    matrix_beam, payoff, matrix_respawn, matrix_min = -1, np.zeros((K, K), np.float32), 0, 1
    if mg is not None:
        if mg.beam not in actions:
            raise GridSpecError(f"{spec.name}: matrix game: {unknown_name_error('beam', mg.beam, actions)}")
        payoff = np.asarray(mg.payoff, np.float32)
        if payoff.shape != (K, K):
            raise GridSpecError(f"{spec.name}: matrix game payoff must be {K}x{K} (one row and column per item), "
                                f"got {payoff.shape}")
        matrix_beam, matrix_respawn, matrix_min = actions.index(mg.beam), mg.respawn_frames, mg.min_items
    if spec.initial_inventory and len(spec.initial_inventory) != K:
        raise GridSpecError(f"{spec.name}: initial_inventory has {len(spec.initial_inventory)} entries for {K} items")

    # transitions
    transitions = []
    for n, t in enumerate(spec.transitions):
        what = f"transition {n + 1} ({t.source} -> {t.target})"
        src, tgt = sid(t.source, what), sid(t.target, what, allow_empty=True)
        same_layer(src, tgt, what)
        prob = np.atleast_1d(np.asarray(t.probability, np.float32))
        if prob.size > 1 and t.neighbour is None:
            raise GridSpecError(f"{spec.name}: {what}: a probability per neighbour count needs a neighbour state")
        if np.any((prob < 0) | (prob > 1)):
            raise GridSpecError(f"{spec.name}: {what}: probabilities must lie in [0, 1]")
        nbr = sid(t.neighbour, what) if t.neighbour is not None else 0
        dep = None
        if t.depletion is not None:
            d = t.depletion
            dep = (sid(d.state, what), tuple(sid(a, what) for a in d.among), float(d.zero_at))
        transitions.append(CompiledTransition(
            layer=int(state_layer[src]), source=src, target=tgt, probability=prob, neighbour=nbr,
            offsets=_offsets_within(t.radius) if nbr else (), depletion=dep, under_avatars=t.under_avatars))

    # sprites
    size = spec.sprite_size
    if size not in (8, 16):
        raise GridSpecError(f"{spec.name}: sprite_size must be 8 or 16 (got {size})")
    sprites, alpha, visible = sprite_tables(spec, size)

    if spec.topology not in ("bounded", "torus"):
        raise GridSpecError(f"{spec.name}: topology must be 'bounded' or 'torus' (got {spec.topology!r})")
    if spec.movement not in ("absolute", "relative"):
        raise GridSpecError(f"{spec.name}: movement must be 'absolute' or 'relative' (got {spec.movement!r})")
    end_state = sid(spec.end_when_gone, "end_when_gone") if spec.end_when_gone else 0

    return CompiledGrid(
        spec=spec, height=H, width=W, layers=layers, state_names=names, state_layer=state_layer,
        state_char=("",) + tuple(s.char for s in spec.states), visible=visible, map_states=map_states,
        initial_map=initial_map, player_state=player_state, player_spawn=player_spawn, avatar_layer=avatar_layer,
        is_avatar=is_avatar, pushable=pushable, blocks_beams=blocks_beams, enter_becomes=enter_becomes,
        enter_reward=enter_reward, enter_collect=enter_collect, leave_becomes=leave_becomes,
        leave_reward=leave_reward, catch_reward=catch_reward, catch_respawn=catch_respawn, beam_actions=actions,
        beam_cooldown=np.array([b.cooldown for b in spec.beams], np.int32),
        beam_cost=np.array([b.cost for b in spec.beams], np.float32), beam_overlay=overlay,
        beam_offsets=tuple(_beam_offsets(b.length, b.radius) for b in spec.beams), hit_becomes=hit_becomes,
        hit_reward=hit_reward, hit_target_reward=hit_target_reward, hit_freeze=hit_freeze, matrix_beam=matrix_beam,
        payoff=payoff, matrix_respawn=matrix_respawn, matrix_min_items=matrix_min, transitions=tuple(transitions),
        sprites=sprites, alpha=alpha, view_offsets=_view_offsets(spec), end_state=end_state,
        appearance=appearance_table(state_layer, visible, sprites, alpha, APPEARANCE_BYTES))

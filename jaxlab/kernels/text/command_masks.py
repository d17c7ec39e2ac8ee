"""The admissible-command mask of a text game, the fast way: the actions of the player's room only,
each command's actions read as the bits of one or two packed words.

``kernel.admissible`` checks every grounded action of a game (G of them, each with P preconditions)
and counts the applicable ones along each command's span. Most actions need the player in one room
(a precondition on the game's ``room_fact``): tw-cooking's 909 actions are at most 241 in a room
plus about 40 that need no room. ``command_masks`` (host, once per game or bank) sorts each game's
actions into windows, one per room: the actions that need that room or no room, in the table's
order, so that each command's actions stay contiguous in a window; a last window holds the actions
that need no room, for a player in none. Each window's actions keep their other preconditions only.
A step checks the player's window and reads each command's span in it as bits of the packed words.

A window's preconditions touch few facts (tw-cooking: at most 112 of its 381). Each window lists them
(``rel_fact``); a step reads those facts once, packs them into a few words, and an action applies
when its needed bits (``need``) are all set: a few word operations per action instead of a read per
precondition.

The result equals ``kernel.admissible`` whenever at most one room fact holds. Windows are made only for
a game whose start has at most one room fact and whose actions keep it so (an action that adds a room
fact needs one, deletes it and adds one), so the result equals it in every state the game's rules
reach; any other game gets one window of all its actions. Reads index facts F (always true) and F + 1
(never true) for padding, so no read needs a select.
"""
from __future__ import annotations

from typing import List, Optional

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.bits import packed_words
from jaxlab.levels.text.compiled_game import TextGame


@struct.dataclass
class CommandMasks:
    """A game's action windows (``command_masks``); a bank's have a leading axis N.

    room_fact: int32[R] the fact that selects window r (the first that holds; F + 1 pads: never).
    rel_fact: int32[R + 1, B] the facts each window's preconditions read (F pads: always true); fact
    0 of every window is F + 1 (never true); window R: no room holds.
    need: uint32[R + 1, B // 32, 32 * V] each window action's preconditions other than its room, as
    bits of its window's ``rel_fact``; the action of bit b of packed word v is column ``b * V + v``
    (V = W // 32 + 1), so packing sums over a leading axis, which the CPU vectorizes; columns past
    a window's actions need bit 0 (never true).
    cmd_word: int32[R + 1, K] the word of the window's packed actions where each command's actions
    start; cmd_low, cmd_high: uint32[R + 1, K] their bits in that word and in the next.
    """

    room_fact: jnp.ndarray
    rel_fact: jnp.ndarray
    need: jnp.ndarray
    cmd_word: jnp.ndarray
    cmd_low: jnp.ndarray
    cmd_high: jnp.ndarray


def admissible(masks: CommandMasks, facts: jnp.ndarray) -> jnp.ndarray:
    """bool[K]: the admissible-command mask in ``facts`` (bool[F]) from the game's ``masks`` (a
    ``CommandMasks``, or a bank's read in place with ``GameRows``); ``kernel.admissible``'s result
    when at most one room fact holds."""
    known = jnp.concatenate([facts, jnp.array([True, False])])  # facts F (always) and F + 1 (never)
    rooms = masks.room_fact.shape[0]
    window = jnp.argmax(jnp.concatenate([known[masks.room_fact[:]], jnp.array([True])])) if rooms else 0
    held = packed_words(known[masks.rel_fact[window]], spare=False)
    need = masks.need[window]
    applies = jnp.all((need & held[:, None]) == need, axis=0).reshape(32, -1).astype(jnp.uint32)
    packed = jnp.sum(applies << jnp.arange(32, dtype=jnp.uint32)[:, None], axis=0, dtype=jnp.uint32)
    word = masks.cmd_word[window]
    return ((packed[word] & masks.cmd_low[window]) | (packed[word + 1] & masks.cmd_high[window])) != 0


def command_masks(game: TextGame) -> Optional[CommandMasks]:
    """Host: the :class:`CommandMasks` of ``game`` (a TextGame, or a bank's ``levels`` with a leading
    axis N), or None when some command has more than 32 actions in a window (its bits would span
    three words). Games whose windows would not be smaller than their action table, or whose player
    could be in two rooms, get one window."""
    names = ("act_pre", "act_add", "act_del", "act_cmd", "cmd_span", "room_fact", "init_facts")
    arrays = {name: np.asarray(getattr(game, name)) for name in names}
    facts = arrays["init_facts"].shape[-1]
    one = arrays["act_cmd"].ndim == 1
    games = [arrays] if one else [{name: a[n] for name, a in arrays.items()} for n in range(arrays["act_cmd"].shape[0])]
    windows = [_windows(g, rooms=_in_one_room(g)) for g in games]
    if max(len(ids) for w in windows for ids, _ in w) * 2 > arrays["act_cmd"].shape[-1]:  # one window each
        windows = [_windows(g, rooms=False) for g in games]
    spans = [[_span_bits(g["cmd_span"], ids) for ids, _ in w] for g, w in zip(games, windows)]
    if any(s is None for game_spans in spans for s in game_spans):
        return None
    masks = _stack(games, windows, spans, facts)
    return jax.tree_util.tree_map(lambda a: a[0], masks) if one else masks


def _in_one_room(game: dict) -> bool:
    """Whether the player is in at most one room in every state the rules reach: at most one room fact
    holds at the start, and every action that adds a room fact needs one, deletes it and adds one only.
    Windows are made only for such a game; another gets one window of all its actions."""
    rooms = game["room_fact"][game["room_fact"] >= 0]
    if np.isin(np.nonzero(game["init_facts"])[0], rooms).sum() > 1:
        return False
    room = {name: np.isin(game[name], rooms) for name in ("act_pre", "act_del", "act_add")}
    count = {name: r.sum(axis=-1) for name, r in room.items()}
    moves = (game["act_cmd"] >= 0) & (count["act_add"] > 0)
    one_each = (count["act_pre"] == 1) & (count["act_del"] == 1) & (count["act_add"] == 1)
    # with one room fact in each, the one it needs is the one it deletes
    same = (np.where(room["act_pre"], game["act_pre"], 0).sum(axis=-1)
            == np.where(room["act_del"], game["act_del"], 0).sum(axis=-1))
    return bool(np.all(~moves | (one_each & same)))


def _gates(game: dict, rooms: bool) -> np.ndarray:
    """int[G]: the first room whose fact each action needs (-1: none, or rooms not used)."""
    pre, gate = game["act_pre"], np.full(game["act_pre"].shape[0], -1)
    if rooms:
        for r in range(len(game["room_fact"]) - 1, -1, -1):
            if game["room_fact"][r] >= 0:
                gate[(pre == game["room_fact"][r]).any(axis=-1)] = r
    return gate


def _windows(game: dict, rooms: bool) -> List[tuple]:
    """[(action ids, their other preconditions)] per room of ``game`` and a last for no room."""
    gate, real = _gates(game, rooms), game["act_cmd"] >= 0
    count = len(game["room_fact"]) if rooms else 0
    out = []
    for r in range(count + 1):
        ids = np.nonzero(real & ((gate == r) | (gate < 0)))[0] if r < count else np.nonzero(real & (gate < 0))[0]
        pre = game["act_pre"][ids]
        if r < count:
            pre = np.where(pre == game["room_fact"][r], -1, pre)
        out.append((ids, pre))
    return out


def _span_bits(span: np.ndarray, ids: np.ndarray):
    """(word int[K], low, high uint64[K]): each command's actions among ``ids`` as bits; None if a
    command has more than 32 of them."""
    start = np.searchsorted(ids, span[:, 0])
    width = np.searchsorted(ids, span[:, 1]) - start
    if width.size and width.max() > 32:
        return None
    bits = ((1 << width.astype(np.uint64)) - np.uint64(1)) << (start % 32).astype(np.uint64)
    return start // 32, bits & np.uint64(0xFFFFFFFF), bits >> np.uint64(32)


def _stack(games: List[dict], windows: List[list], spans: List[list], facts: int) -> CommandMasks:
    """Pad every game's windows to shared shapes; window R (the last row) is each game's no-room window."""
    rooms = max(len(w) for w in windows) - 1
    width = max(max(len(ids) for ids, _ in w) for w in windows)
    # each window's facts: F + 1 (never) first, then those its preconditions read
    read = [[np.concatenate([[facts + 1], np.unique(pre[pre >= 0])]) for _, pre in w] for w in windows]
    words = -(-max(len(r) for game_read in read for r in game_read) // 32)
    k = games[0]["cmd_span"].shape[0]
    n = len(games)
    room_fact = np.full((n, rooms), facts + 1, np.int32)
    rel_fact = np.full((n, rooms + 1, 32 * words), facts, np.int32)
    columns = width // 32 + 1
    need = np.zeros((n, rooms + 1, 32 * columns, words), np.uint32)
    need[..., 0] = 1  # padding actions need fact F + 1
    word = np.zeros((n, rooms + 1, k), np.int32)
    low, high = np.zeros((n, rooms + 1, k), np.uint32), np.zeros((n, rooms + 1, k), np.uint32)
    for g, (game, game_windows, game_spans, game_read) in enumerate(zip(games, windows, spans, read)):
        used = len(game_windows) - 1
        if used:
            room_fact[g, :used] = np.where(game["room_fact"][:used] >= 0, game["room_fact"][:used], facts + 1)
        rows = list(range(used)) + [rooms]  # the no-room window goes last; padding rooms never hold
        for row, (ids, p), (w, lo, hi), fact_ids in zip(rows, game_windows, game_spans, game_read):
            rel_fact[g, row, :len(fact_ids)] = fact_ids
            bit = np.searchsorted(fact_ids[1:], np.maximum(p, 0)) + 1   # the precondition's place in fact_ids
            bits = np.zeros((len(ids), 32 * words), bool)
            np.put_along_axis(bits, np.where(p >= 0, bit, 0), True, axis=-1)
            bits[:, 0] = False  # a precondition's -1 pad was put there; bit 0 is for padding rows only
            need[g, row, :len(ids)] = _pack(bits)
            word[g, row], low[g, row], high[g, row] = w, lo, hi
    # action a = 32 v + b (bit b of word v) goes to column b * columns + v
    need = need.reshape(n, rooms + 1, columns, 32, words).transpose(0, 1, 4, 3, 2).reshape(n, rooms + 1, words, -1)
    return CommandMasks(room_fact=jnp.asarray(room_fact), rel_fact=jnp.asarray(rel_fact), need=jnp.asarray(need),
                        cmd_word=jnp.asarray(word), cmd_low=jnp.asarray(low), cmd_high=jnp.asarray(high))


def _pack(bits: np.ndarray) -> np.ndarray:
    """uint32[..., B // 32]: bool[..., B] packed, bit i in bit i % 32 of word i // 32."""
    weights = np.uint32(1) << np.arange(32, dtype=np.uint32)
    return (bits.reshape(bits.shape[:-1] + (-1, 32)) * weights).sum(axis=-1, dtype=np.uint32)

"""The text of a text game, composed on device as tokens: pure jnp, fixed shapes.

A game's text lives in its TextGame as a table of *segments*: a segment is a
phrase (a row of token ids, ``txt_tokens``/``txt_len``), a condition (facts
that must hold, ``seg_pos``, and must not, ``seg_neg``), a kind and a group.
A text is a list of segment ids (-1 pads); :func:`compose` shows the
segments whose condition holds, in order, as follows by kind:

- ``PLAIN``: shown when its condition holds;
- ``LIST``: the same, preceded by ``,`` or ``and`` as the n-th of the items
  of its group shown (``a, b and c``);
- ``HEADER``: shown when its condition holds and some PLAIN, LIST or FIRST
  segment of its group is shown (``You are carrying:`` ... ``.``);
- ``FALLBACK``: shown when its condition holds and none is (``You are carrying nothing.``);
- ``FIRST``: shown when its condition holds and no earlier FIRST segment of
  its group holds (the first applicable of several reasons).

A group is a run of consecutive segments (a list with its header and
fallback, or the reasons of a refusal); each segment knows its place in its
group's run and the run's length (``seg_place``, ``seg_run``).
The lists come from ``act_segs`` (success text of each grounded action),
``cmd_segs`` (refusal of each command), ``fixed_segs`` (objective, no such thing,
unknown command, won, lost) and ``view_segs`` (inventory, rooms, contents,
examine states). The composed tokens are written into a fixed ``int32[T]``
buffer (0 pads); a text longer than T keeps its whole segments that fit
(or, if not even the first fits, its first T tokens).

Every function takes ``game`` as a TextGame or as a ``game.GameRows`` (a
bank's game read in place): it only indexes the game's arrays.

Cost of one text: N = A + W + X segment slots (the widest success/refusal/
fixed list, the widest view, the fixed list again; about 100 for TextWorld's
tw-simple), each with C + C2 fact gathers and a few gathers of its
segment's fields, two prefix sums over N (group counts packed into int32
lanes, and the text positions), a histogram of N ends summed over T, and
per output token one read of its packed slot and one token gather. It does
not grow with the game's other sizes (facts, actions, commands). Prefix
sums and searches cost many elementwise ops each on the CPU; the static
structure (group runs) is precomputed instead (``tables``).
"""
from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from jaxlab.env import where_rows
from jaxlab.levels.text.compiled_game import (FALLBACK, FIRST, HEADER, INTRO, INVENTORY_VIEW, LIST, LOST, MAX_SCORE_LINE,
                                              NO_SUCH_THING, PLAIN, SCORE_UP, UNKNOWN, UNKNOWN_OBJECT_ID, WON, TextGame)
from jaxlab.levels.text.vocab import AND, COMMA, PAD

#: a feedback is laid out in this many tokens first; only the rows whose feedback is longer (3% of a random
#: agent's steps on tw-cooking, whose feedbacks run to 939 tokens at most) are laid out again in full
SHORT_FEEDBACK = 64


def _holds(facts: jnp.ndarray, idx: jnp.ndarray, pad) -> jnp.ndarray:
    return jnp.where(idx >= 0, facts[jnp.maximum(idx, 0)], pad)


def _run_sums(flags, first: jnp.ndarray, last: jnp.ndarray):
    """Per flag array of ``flags`` (bool[N] each): (count of it before each position within its run,
    count in its run). Counts are packed side by side into int32 lanes, so one cumulative sum serves
    several flags (on the CPU a cumulative sum costs as much as a dozen elementwise ops)."""
    bits = max(first.shape[0].bit_length(), 1)  # a count is at most N
    per_sum = max(31 // bits, 1)
    mask = (1 << bits) - 1
    out = []
    for k in range(0, len(flags), per_sum):
        packed = sum(x.astype(jnp.int32) << (bits * i) for i, x in enumerate(flags[k:k + per_sum]))
        inclusive = jnp.cumsum(packed)
        exclusive = inclusive - packed
        before, total = exclusive - exclusive[first], inclusive[last] - exclusive[first]
        out += [((before >> (bits * i)) & mask, (total >> (bits * i)) & mask)
                for i in range(len(flags[k:k + per_sum]))]
    return out


def compose(game: TextGame, facts: jnp.ndarray, seg_ids: jnp.ndarray, length: int, short=None) -> jnp.ndarray:
    """The tokens (int32[length], 0 pads) of segments ``seg_ids`` (int32[N], -1 pads) given ``facts`` (bool[F]).

    short: optional static int < ``length``: texts are laid out in a buffer of ``short`` tokens, and only
    the rows whose whole text is longer are laid out again in ``length`` (``jaxlab.env.where_rows``);
    the result is the same, the per-token work smaller when most texts are short."""
    n = seg_ids.shape[0]
    valid = seg_ids >= 0
    s = jnp.maximum(seg_ids, 0)
    holds = (valid & jnp.all(_holds(facts, game.seg_pos[s], True), axis=-1)
             & ~jnp.any(_holds(facts, game.seg_neg[s], False), axis=-1))
    kind = game.seg_kind[s]
    idx = jnp.arange(n)
    # a group's run is static: each segment knows its place in it (``tables.group_runs``)
    first = jnp.clip(idx - jnp.where(valid, game.seg_place[s], 0), 0, n - 1)
    last = jnp.clip(first + jnp.where(valid, game.seg_run[s], 1) - 1, 0, n - 1)
    listed = holds & (kind == LIST)
    (_, content), (rank, count), (earlier, _) = _run_sums(
        [holds & ((kind == PLAIN) | (kind == LIST) | (kind == FIRST)), listed, holds & (kind == FIRST)], first, last)
    shown = holds & jnp.select([kind == HEADER, kind == FALLBACK, kind == FIRST],
                               [content > 0, content == 0, earlier == 0], True)
    sep = (shown & listed & (rank > 0)).astype(jnp.int32)
    phrase = game.seg_text[s]
    size = jnp.where(shown, game.txt_len[phrase] + sep, 0)
    slots = (phrase, size, sep, rank == count - 1, jnp.cumsum(size))
    if short is None or short >= length:
        return _lay_out(game, *slots, length)
    return where_rows(slots[-1][-1] > short, lambda *a: _lay_out(*a, length),
                      lambda *a: jnp.pad(_lay_out(*a, short), (0, length - short), constant_values=PAD),
                      (game,) + slots, shares=(8,))  # one block: long texts are few, and each block is compiled


def _lay_out(game: TextGame, phrase, size, sep, final, end, length: int) -> jnp.ndarray:
    """int32[length]: the tokens of N slots (phrase, size with its separator, separator int32[N] (1: one),
    final: bool[N] the last item of its list ("and" before it), end: int32[N] cumulative sizes), cut
    after the last whole slot that fits (or at ``length`` if none does)."""
    n = end.shape[0]
    # a slot that is not shown ends where the last shown one did: every end at most length is a shown end
    fits = jnp.max(jnp.where(end <= length, end, 0))
    out_len = jnp.where(end[-1] <= length, end[-1], jnp.where(fits > 0, fits, length))
    # Output token t belongs to slot i(t) = #{j: end[j] <= t}: a histogram of the ends, summed.
    t = jnp.arange(length)
    i = jnp.minimum(jnp.cumsum(jnp.zeros(length, jnp.int32).at[end].add(1, mode="drop")), n - 1)
    # what a token needs of its slot, packed into one int32 read: phrase, where its words start (clipped
    # to the buffer: later starts are never read), "and" or ","
    bits = length.bit_length()
    if game.txt_tokens.shape[0] >= 1 << (30 - bits):
        raise ValueError(f"a text of {length} tokens over {game.txt_tokens.shape[0]} phrases does not fit the "
                         f"int32 packing; use a shorter text_length")
    words_at = jnp.minimum(end - size + sep, length)
    packed = ((phrase << (bits + 1)) | (words_at << 1) | final)[i]
    start = (packed >> 1) & ((1 << bits) - 1)
    width = game.txt_tokens.shape[-1]
    word = game.txt_tokens[packed >> (bits + 1), jnp.clip(t - start, 0, width - 1)]
    sep_token = jnp.where(packed & 1, AND, COMMA)
    return jnp.where(t < out_len, jnp.where(t < start, sep_token, word), PAD).astype(jnp.int32)


def room_view(game: TextGame, facts: jnp.ndarray) -> jnp.ndarray:
    """int32[]: the view of the room the player is in (-1 if none)."""
    here = _holds(facts, game.room_fact[:], True) & (game.room_view[:] >= 0)
    return jnp.where(jnp.any(here), game.room_view[jnp.argmax(here)], -1)


@dataclasses.dataclass(frozen=True)
class TextWidths:
    """Static slot counts of the segment lists a text reads (host ints, at least 1).

    head: the first part of the feedback (objective, success text, refusal,
    unknown command); view: any view; inventory: the inventory view; score:
    a score line; end: the won/lost text. ``text_widths`` reads them off a
    game or a bank, so texts skip the padding columns that only another
    kind of list needs (the objective's many segments need not widen the
    score line). inventory_tokens: the most tokens the inventory can say
    (every segment shown, each with a separator), so it is composed in a
    buffer of that size when it is shorter than the observation;
    view_tokens, feedback_tokens: the same for any view and any feedback
    (``longest_text``).
    """

    head: int
    view: int
    inventory: int
    score: int
    end: int
    inventory_tokens: int
    view_tokens: int
    feedback_tokens: int


def _most_tokens(phrase_len: np.ndarray, table, rows=slice(None)) -> int:
    """The most tokens one row of segment list ``table`` (int32[..., R, W], -1 pads) can say: every
    segment shown, each with a separator; ``phrase_len`` int32[..., S] is each segment's phrase length."""
    ids = np.asarray(table)[..., rows, :]
    flat = ids.reshape(ids.shape[:-2] + (-1,))
    said = np.where(flat >= 0, np.take_along_axis(phrase_len, np.maximum(flat, 0), axis=-1) + 1, 0)
    return max(int(said.reshape(ids.shape).sum(axis=-1).max(initial=0)), 1)


def _phrase_lengths(game: TextGame) -> np.ndarray:
    return np.take_along_axis(np.asarray(game.txt_len), np.asarray(game.seg_text), axis=-1)


def text_widths(game: TextGame) -> TextWidths:
    """Host: the :class:`TextWidths` of ``game`` (a TextGame, or a bank's ``levels`` with a leading axis)."""
    def used(table, rows=slice(None)):
        valid = np.asarray(table)[..., rows, :] >= 0
        return max(int(valid.sum(axis=-1).max(initial=0)), 1)

    fixed, lengths = game.fixed_segs, _phrase_lengths(game)
    return TextWidths(
        head=max(used(fixed, slice(INTRO, SCORE_UP)), used(game.act_segs), used(game.cmd_segs)),
        view=used(game.view_segs), inventory=used(game.view_segs, slice(INVENTORY_VIEW, INVENTORY_VIEW + 1)),
        score=used(fixed, slice(SCORE_UP, None)), end=used(fixed, slice(WON, LOST + 1)),
        inventory_tokens=_most_tokens(lengths, game.view_segs, slice(INVENTORY_VIEW, INVENTORY_VIEW + 1)),
        view_tokens=_most_tokens(lengths, game.view_segs), feedback_tokens=_longest(game, lengths))


def longest_text(game: TextGame) -> int:
    """Host: the most tokens any text of ``game`` (a TextGame, or a bank's ``levels`` with a leading
    axis) can say: a feedback with its longest head (objective, success or refusal text), view, score
    line and end, every segment shown. A ``text_length`` of at least this never cuts a text."""
    return _longest(game, _phrase_lengths(game))


def _longest(game: TextGame, lengths: np.ndarray) -> int:
    head = max(_most_tokens(lengths, game.fixed_segs, slice(INTRO, SCORE_UP)),
               _most_tokens(lengths, game.act_segs),
               _most_tokens(lengths, game.cmd_segs))
    return (head + _most_tokens(lengths, game.view_segs) + _most_tokens(lengths, game.fixed_segs, slice(SCORE_UP, None))
            + _most_tokens(lengths, game.fixed_segs, slice(WON, LOST + 1)))


def _full_widths(game: TextGame) -> TextWidths:
    head = max(game.act_segs.shape[-1], game.cmd_segs.shape[-1], game.fixed_segs.shape[-1])
    view = game.view_segs.shape[-1]
    return TextWidths(head=head, view=view, inventory=view, score=game.fixed_segs.shape[-1],
                      end=game.fixed_segs.shape[-1], inventory_tokens=1 << 30, view_tokens=1 << 30,
                      feedback_tokens=1 << 30)


def _row(table: jnp.ndarray, index, width: int) -> jnp.ndarray:
    """``table[index]``'s first ``width`` slots, padded with -1 to ``width`` (-1 for a negative index)."""
    have = min(width, table.shape[-1])
    row = jnp.where(index >= 0, table[jnp.maximum(index, 0), :have], -1)
    return jnp.pad(row, (0, width - have), constant_values=-1)


def view_text(game: TextGame, facts: jnp.ndarray, view, length: int, width=None) -> jnp.ndarray:
    """int32[length]: the tokens of view ``view`` (int32[]; -1: empty), reading its first ``width``
    slots (static; default all)."""
    return compose(game, facts, _row(game.view_segs, view, width or game.view_segs.shape[-1]), length)


def description(game: TextGame, facts: jnp.ndarray, length: int, widths=None) -> jnp.ndarray:
    """int32[length]: what ``look`` says in ``facts`` (bool[F]): the player's room.

    widths: the game's or bank's :class:`TextWidths` (``text_widths``; default: every column)."""
    widths = widths or _full_widths(game)
    buffer = min(length, widths.view_tokens)
    text = view_text(game, facts, room_view(game, facts), buffer, widths.view)
    return jnp.pad(text, (0, length - buffer), constant_values=PAD)


def inventory(game: TextGame, facts: jnp.ndarray, length: int, widths=None) -> jnp.ndarray:
    """int32[length]: what ``inventory`` says in ``facts`` (bool[F]); widths as in ``description``."""
    widths = widths or _full_widths(game)
    buffer = min(length, widths.inventory_tokens)
    text = view_text(game, facts, jnp.int32(INVENTORY_VIEW), buffer, widths.inventory)
    return jnp.pad(text, (0, length - buffer), constant_values=PAD)


def feedback(game: TextGame, state, length: int, widths=None) -> jnp.ndarray:
    """int32[length]: the text after ``state``'s last command (a ``kernel.TextState``).

    At the start (no command yet): the objective and the room. After an
    applied command: its success text and view (the new room after ``go``),
    then the won/lost text if it ended the game. After a command of the
    table that did not apply: its refusal. A command that raised the score by a whole number of
    points n (1..``MAX_SCORE_LINE``) adds TextWorld's score line before the won/lost text. After command id -2
    (``UNKNOWN_OBJECT_ID``: a known verb with unknown things): "You can't see
    any such thing."; after any other id: the unknown-command text. widths as in ``description``.
    """
    widths = widths or _full_widths(game)
    k = game.cmd_valid.shape[-1]
    cmd = state.last_command
    known = (cmd >= 0) & (cmd < k) & game.cmd_valid[jnp.clip(cmd, 0, k - 1)]
    applied = state.last_action >= 0
    fresh = state.steps == 0
    width = widths.head
    head = jnp.where(fresh, _row(game.fixed_segs, INTRO, width),
                     jnp.where(applied, _row(game.act_segs, state.last_action, width),
                               jnp.where(known, _row(game.cmd_segs, cmd, width),
                                         _row(game.fixed_segs, jnp.where(cmd == UNKNOWN_OBJECT_ID,
                                                                         NO_SUCH_THING, UNKNOWN), width))))
    view = jnp.where(fresh, room_view(game, state.facts),
                     jnp.where(applied, game.act_view[jnp.maximum(state.last_action, 0)], -1))
    end = jnp.where(~fresh & applied & state.just_ended, jnp.where(state.lost, LOST, WON), -1)
    points = jnp.round(state.last_reward).astype(jnp.int32)
    scored = ~fresh & applied & (points >= 1) & (points <= MAX_SCORE_LINE) & (points == state.last_reward)
    score_line = jnp.where(scored & (game.fixed_segs.shape[0] > SCORE_UP), SCORE_UP + points - 1, -1)
    seq = jnp.concatenate([head, _row(game.view_segs, view, widths.view),
                           _row(game.fixed_segs, score_line, widths.score), _row(game.fixed_segs, end, widths.end)])
    buffer = min(length, widths.feedback_tokens)   # composed no longer than the longest feedback, then padded
    short = SHORT_FEEDBACK if buffer > SHORT_FEEDBACK else None
    return jnp.pad(compose(game, state.facts, seq, buffer, short), (0, length - buffer), constant_values=PAD)

"""The texts of a text game (feedback, room description, inventory), composed on device as tokens.

Each text is a list of segment ids read from the game's lists, laid out by
``composition.compose``: ``act_segs`` (success text of each grounded
action), ``cmd_segs`` (refusal of each command), ``fixed_segs`` (objective,
no such thing, unknown command, score lines, won, lost) and ``view_segs``
(inventory, rooms, contents, examine states). Every function takes ``game``
as a TextGame or as a ``game.GameRows`` (a bank's game read in place).
"""
from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.text.compiled_game import (INTRO, INVENTORY_VIEW, LOST, MAX_SCORE_LINE, NO_SUCH_THING, SCORE_UP,
                                              UNKNOWN, UNKNOWN_OBJECT_ID, WON, TextGame)
from jaxlab.levels.text.vocab import PAD
from jaxlab.render.text.composition import compose, fact_holds

#: a feedback is laid out in this many tokens first; only the rows whose feedback is longer (3% of a random
#: agent's steps on tw-cooking, whose feedbacks run to 939 tokens at most) are laid out again in full
SHORT_FEEDBACK = 64


def room_view(game: TextGame, facts: jnp.ndarray) -> jnp.ndarray:
    """int32[]: the view of the room the player is in (-1 if none)."""
    here = fact_holds(facts, game.room_fact[:], True) & (game.room_view[:] >= 0)
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
    (``longest_text``). view_common: the slots that 7 in 8 of the views
    with a segment fill (rounded up to 8, at most ``view``); a feedback checks
    the slots beyond on the rows whose view reaches them only.
    """

    head: int
    view: int
    inventory: int
    score: int
    end: int
    inventory_tokens: int
    view_tokens: int
    feedback_tokens: int
    view_common: int


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
        view_tokens=_most_tokens(lengths, game.view_segs), feedback_tokens=_longest(game, lengths),
        view_common=_common_width(game.view_segs))


#: ``TextWidths.view_common`` covers this share of the views with a segment
COMMON_VIEWS = 7 / 8


def _common_width(view_segs) -> int:
    """The slots (a multiple of 8, at most the widest view's) that ``COMMON_VIEWS`` of the views of
    ``view_segs`` (int32[..., R, W], -1 pads) with a segment fill."""
    filled = (np.asarray(view_segs) >= 0).sum(axis=-1)
    filled = filled[filled > 0]
    if filled.size == 0:
        return 1
    widest = int(filled.max())
    return min(-(-int(np.quantile(filled, COMMON_VIEWS, method="higher")) // 8) * 8, widest)


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
                      feedback_tokens=1 << 30, view_common=view)


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
    buffer = min(length, widths.feedback_tokens)   # composed no longer than the longest feedback, then padded
    short = SHORT_FEEDBACK if buffer > SHORT_FEEDBACK else None
    sparse = None
    if widths.view_common < widths.view:  # the widest views' tail, beyond most views' slots
        sparse = (widths.head + widths.view_common, widths.head + widths.view)
    text = compose(game, state.facts, feedback_segments(game, state, widths), buffer, short, sparse)
    return jnp.pad(text, (0, length - buffer), constant_values=PAD)


def feedback_segments(game: TextGame, state, widths=None) -> jnp.ndarray:
    """int32[N]: the segment ids (-1 pads) of ``feedback``'s text: its head (objective, success text,
    refusal or unknown command), view, score line and won/lost text; N is the sum of ``widths``'s
    ``head``, ``view``, ``score`` and ``end``."""
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
    return jnp.concatenate([head, _row(game.view_segs, view, widths.view),
                            _row(game.fixed_segs, score_line, widths.score), _row(game.fixed_segs, end, widths.end)])

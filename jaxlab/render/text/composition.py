"""Segments laid out as the tokens of a text, on device: pure jnp, fixed shapes.

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
group's run and the run's length (``seg_place``, ``seg_run``). The composed
tokens are written into a fixed ``int32[T]`` buffer (0 pads); a text longer
than T keeps its whole segments that fit (or, if not even the first fits,
its first T tokens).

Every function takes ``game`` as a TextGame or as a ``game.GameRows`` (a
bank's game read in place): it only indexes the game's arrays.

Cost of one text over N segment slots, in full (``compose_full``): each slot
with C + C2 fact gathers and a few gathers of its segment's fields, group
counts from population counts of packed flags, a prefix sum of the sizes, a
histogram of N ends summed over T, and per output token one read of its
packed slot and one token gather. The short path (``compose_short``) does
the fact gathers over N slots and the rest over the 32 first holding
segments and a short buffer. Neither grows with the game's other sizes
(facts, actions, commands). Prefix sums cost a dozen elementwise ops per
element on the CPU, and reductions along the last axis are not vectorized;
the static structure (group runs) is precomputed instead (``tables``).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxlab.bits import counts_before, packed_words, set_bits
from jaxlab.env import in_blocks, where_rows
from jaxlab.levels.text.compiled_game import FALLBACK, FIRST, HEADER, LIST, PLAIN, TextGame
from jaxlab.levels.text.vocab import AND, COMMA, PAD


def fact_holds(facts: jnp.ndarray, idx: jnp.ndarray, pad) -> jnp.ndarray:
    """bool[idx.shape]: ``facts`` (bool[F]) at ``idx`` (int32[...]), ``pad`` where idx is -1."""
    return jnp.where(idx >= 0, facts[jnp.maximum(idx, 0)], pad)


def _run_sums(flags, first: jnp.ndarray, last: jnp.ndarray):
    """Per flag array of ``flags`` (bool[N] each): (count of it before each position within its run,
    count in its run). Counts are packed side by side into int32 lanes, so one read at the run's
    first and last positions serves several flags."""
    bits = max(first.shape[0].bit_length(), 1)  # a count is at most N
    per_sum = max(31 // bits, 1)
    mask = (1 << bits) - 1
    out = []
    for k in range(0, len(flags), per_sum):
        group = flags[k:k + per_sum]
        exclusive = sum(counts_before(x) << (bits * i) for i, x in enumerate(group))
        inclusive = exclusive + sum(x.astype(jnp.int32) << (bits * i) for i, x in enumerate(group))
        before, total = exclusive - exclusive[first], inclusive[last] - exclusive[first]
        out += [((before >> (bits * i)) & mask, (total >> (bits * i)) & mask) for i in range(len(group))]
    return out


def compose(game: TextGame, facts: jnp.ndarray, seg_ids: jnp.ndarray, length: int, short=None,
            sparse=None) -> jnp.ndarray:
    """The tokens (int32[length], 0 pads) of segments ``seg_ids`` (int32[N], -1 pads) given ``facts`` (bool[F]).

    short: optional static int < ``length``: a text is first composed from its first ``SHOWN_AT_MOST``
    segments whose condition holds, in a buffer of ``short`` tokens (``compose_short``); only the
    rows where that is not the whole text (more segments hold, or the text is longer) are composed
    again in full (``jaxlab.env.where_rows``). The result is the same, the work much smaller when
    most texts are short: a view lists many segments (tw-cooking's inventory: 126) of which few hold.
    Only batches that ``where_rows`` splits into blocks take the short path (``jaxlab.env.in_blocks``);
    one text, or a small batch, is composed in full. sparse: optional static (start, stop) for the short
    path: slots that are -1 in most rows (the tail of the widest views), checked only on the rows that
    use them (``segment_holds``)."""
    if short is None or short >= length:
        return compose_full(game, facts, seg_ids, length)
    return in_blocks(lambda g, f, ids: compose_full(g, f, ids, length),
                     lambda g, f, ids: _short_then_full(g, f, ids, length, short, sparse), (game, facts, seg_ids))


def _short_then_full(game: TextGame, facts: jnp.ndarray, seg_ids: jnp.ndarray, length: int, short: int, sparse):
    text, whole = compose_short(game, seg_ids, segment_holds(game, facts, seg_ids, sparse), short)
    # long texts are few (2% of a random agent's feedbacks on tw-cooking): blocks of 1/32 of a batch
    return where_rows(~whole, lambda g, f, ids, _: compose_full(g, f, ids, length),
                      lambda g, f, ids, t: jnp.pad(t, (0, length - short), constant_values=PAD),
                      (game, facts, seg_ids, text), shares=(32,))


def segment_holds(game: TextGame, facts: jnp.ndarray, seg_ids: jnp.ndarray, sparse=None) -> jnp.ndarray:
    """bool[N]: the segments of ``seg_ids`` (int32[N], -1 pads) whose condition holds in ``facts``.

    sparse: optional static (start, stop): slots that are -1 in most rows. Under ``jax.vmap`` they are
    checked only on the rows with a segment there (``where_rows``, blocks of 1/4 of the batch; a
    tw-cooking view has 13 slots in the median and 146 at most)."""
    if sparse is None:
        return _holds(game, facts, seg_ids)
    start, stop = sparse
    tail = where_rows(jnp.any(seg_ids[start:stop] >= 0), _holds, lambda g, f, ids: jnp.zeros(ids.shape, bool),
                      (game, facts, seg_ids[start:stop]), shares=(4,))
    return jnp.concatenate([_holds(game, facts, seg_ids[:start]), tail, _holds(game, facts, seg_ids[stop:])])


def _holds(game: TextGame, facts: jnp.ndarray, seg_ids: jnp.ndarray) -> jnp.ndarray:
    s = jnp.maximum(seg_ids, 0)
    return ((seg_ids >= 0) & jnp.all(fact_holds(facts, game.seg_pos[s], True), axis=-1)
            & ~jnp.any(fact_holds(facts, game.seg_neg[s], False), axis=-1))


def compose_full(game: TextGame, facts: jnp.ndarray, seg_ids: jnp.ndarray, length: int) -> jnp.ndarray:
    """``compose`` over every segment slot: int32[length]."""
    n = seg_ids.shape[0]
    valid = seg_ids >= 0
    s = jnp.maximum(seg_ids, 0)
    holds = segment_holds(game, facts, seg_ids)
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
    return _lay_out(game, phrase, size, sep, rank == count - 1, jnp.cumsum(size), length)


#: the short path of ``compose`` reads a text's first this many segments whose condition holds (one
#: 32-bit word of flags each)
SHOWN_AT_MOST = 32


def compose_short(game: TextGame, seg_ids: jnp.ndarray, holds: jnp.ndarray, short: int):
    """(int32[short] tokens, bool[]: whether they are the whole text): ``compose`` over the first
    ``SHOWN_AT_MOST`` segments of ``seg_ids`` whose condition ``holds`` (bool[N]).

    Only holding segments matter to a text (the kinds' rules count holding segments of a group), so
    they are gathered into M = ``SHOWN_AT_MOST`` slots in order, and each kind's rule reads bit masks
    of one word over those slots: a group's slots are those from its first slot to the next group's."""
    m = SHOWN_AT_MOST
    at, held = set_bits(holds, m)
    filled = jnp.arange(m) < held
    seg = jnp.maximum(seg_ids[at], 0)
    kind = jnp.where(filled, game.seg_kind[seg], -1)
    group = at - game.seg_place[seg]  # the position where the slot's group starts
    bit = jnp.uint32(1) << jnp.arange(m, dtype=jnp.uint32)   # slot j's bit
    below = bit - jnp.uint32(1)                               # the slots before slot j
    starts = _one_word(filled & (group != jnp.concatenate([jnp.array([-1]), group[:-1]])))
    first = 31 - lax.clz(starts & (below | bit)).astype(jnp.int32)   # slot j's group's first slot
    after = starts & ~(below | bit)                           # group starts after slot j
    end = jnp.where(after != 0, lax.population_count((after & -after) - jnp.uint32(1)).astype(jnp.int32), m)
    in_group = _bits_below(end) & ~_bits_below(first)
    listed = kind == LIST
    content = (_one_word((kind == PLAIN) | listed | (kind == FIRST)) & in_group) != 0
    earlier = (_one_word(kind == FIRST) & in_group & below) != 0
    listed_bits = _one_word(listed) & in_group
    rank = lax.population_count(listed_bits & below).astype(jnp.int32)
    count = lax.population_count(listed_bits).astype(jnp.int32)
    shown = filled & jnp.select([kind == HEADER, kind == FALLBACK, kind == FIRST], [content, ~content, ~earlier], True)
    sep = (shown & listed & (rank > 0)).astype(jnp.int32)
    phrase = game.seg_text[seg]
    size = jnp.where(shown, game.txt_len[phrase] + sep, 0)
    ends = _sums_to(size)
    whole = (held <= m) & (ends[-1] <= short)
    return _lay_out(game, phrase, size, sep, rank == count - 1, ends, short), whole


def _sums_to(size: jnp.ndarray) -> jnp.ndarray:
    """int32[m]: the cumulative sums of ``size`` (int32[m], m small), as m sums of masked rows over a
    leading axis (vectorized on the CPU, unlike ``cumsum``)."""
    m = size.shape[0]
    upto = np.arange(m)[:, None] <= np.arange(m)[None, :]   # [k, j]: slot k counts towards end j
    return jnp.sum(jnp.where(upto, size[:, None], 0), axis=0)


def _one_word(flag: jnp.ndarray) -> jnp.ndarray:
    """uint32[]: ``flag`` (bool[m], m <= 32) as one word, flag j in bit j (``packed_words``)."""
    return packed_words(flag, spare=False)[0]


def _bits_below(k: jnp.ndarray) -> jnp.ndarray:
    """uint32[...]: the bits below bit ``k`` (int32[...] in 0..32)."""
    return jnp.where(k >= 32, ~jnp.uint32(0), (jnp.uint32(1) << k.astype(jnp.uint32)) - jnp.uint32(1))


#: ``_lay_out`` counts each token's slot over the slots when slots x tokens is at most this (the short
#: path's 32 x 64), and by a histogram of the slot ends otherwise
SMALL_LAYOUT = 32 * 64


def _lay_out(game: TextGame, phrase, size, sep, final, end, length: int) -> jnp.ndarray:
    """int32[length]: the tokens of N slots (phrase, size with its separator, separator int32[N] (1: one),
    final: bool[N] the last item of its list ("and" before it), end: int32[N] cumulative sizes), cut
    after the last whole slot that fits (or at ``length`` if none does)."""
    n = end.shape[0]
    # a slot that is not shown ends where the last shown one did: every end at most length is a shown end
    fits = jnp.max(jnp.where(end <= length, end, 0))
    out_len = jnp.where(end[-1] <= length, end[-1], jnp.where(fits > 0, fits, length))
    # Output token t belongs to slot i(t) = #{j: end[j] <= t}: for few slots and tokens, counted over a
    # leading axis of slots (vectorized); else a histogram of the ends, summed.
    t = jnp.arange(length)
    if n * length <= SMALL_LAYOUT:
        i = jnp.sum((end[:, None] <= t[None, :]).astype(jnp.int32), axis=0)
    else:
        i = jnp.cumsum(jnp.zeros(length, jnp.int32).at[end].add(1, mode="drop"))
    i = jnp.minimum(i, n - 1)
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

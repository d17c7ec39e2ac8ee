"""Compile a game's :class:`~jaxlab.levels.text.grammar.Script` into the text arrays of its TextGame.

:func:`compile_text` resolves each sentence's condition against the fact
vector (a fact that never changes is decided here: true ones drop out of the
condition, a false one drops the sentence), encodes the sentences with the
game's vocabulary (the shipped words plus the game's new words, sorted),
splits texts longer than a phrase row at sentence ends, and lays out the
segment table and the lists that ``narration`` composes. :func:`share_vocab`
gives several games one vocabulary (the shipped words, then the sorted union
of their new words), as a bank needs.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from jaxlab.bank import on_device
from jaxlab.levels.text.compiled_game import FIRST, GameInfo, LIST, TextGame
from jaxlab.levels.text.grammar import Script, Seg, World, narrate
from jaxlab.levels.text.grounding import index_array, fact_text
from jaxlab.levels.text.vocab import NEWLINE, Vocab, new_words

ROW = 24  #: most tokens in one phrase row; longer texts take several segments
_ENDS = frozenset((".", "!", "?", "<nl>"))


def _chunks(tokens: List[int], vocab: Vocab) -> List[List[int]]:
    """``tokens`` cut into rows of at most ROW, at sentence ends where possible."""
    if len(tokens) <= ROW:
        return [tokens] if tokens else []
    sentences, cur = [], []
    for t in tokens:
        cur.append(t)
        if t == NEWLINE or vocab.words[t] in _ENDS:
            sentences.append(cur)
            cur = []
    sentences += [cur] if cur else []
    rows: List[List[int]] = [[]]
    for sentence in sentences:
        if rows[-1] and len(rows[-1]) + len(sentence) > ROW:
            rows.append([])
        rows[-1] += sentence
        while len(rows[-1]) > ROW:
            rows[-1:] = [rows[-1][:ROW], rows[-1][ROW:]]
    return [r for r in rows if r]


class _Builder:
    def __init__(self, vocab: Vocab, facts: Sequence[str], init):
        self.vocab, self.init = vocab, init
        self.index = {f: i for i, f in enumerate(facts)}
        self.phrases: Dict[Tuple[int, ...], int] = {}
        self.segments: Dict[tuple, int] = {}
        self._done: Dict[Seg, List[int]] = {}

    def condition(self, seg: Seg) -> Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]]:
        """(facts that must hold, facts that must not) as indices; None if it can never hold."""
        pos, neg = [], []
        for fact, want, out in [(f, True, pos) for f in seg.pos] + [(f, False, neg) for f in seg.neg]:
            i = self.index.get(fact_text(fact))
            if i is not None:
                out.append(i)
            elif (fact in self.init) != want:
                return None
        return tuple(dict.fromkeys(pos)), tuple(dict.fromkeys(neg))

    def ids(self, segs: Sequence[Seg]) -> List[int]:
        """The segment ids that say ``segs``, in order."""
        out = []
        for seg in segs:
            if seg not in self._done:
                cond = self.condition(seg)
                rows = []
                if cond is not None:
                    tokens = self.vocab.encode(seg.text)
                    rows = _chunks(tokens[:ROW] if seg.kind in (LIST, FIRST) else tokens, self.vocab)
                self._done[seg] = [self.segments.setdefault(
                    (self.phrases.setdefault(tuple(r), len(self.phrases)), cond, seg.kind, seg.group),
                    len(self.segments)) for r in rows]
            out += self._done[seg]
        return out

    def arrays(self) -> Dict[str, np.ndarray]:
        phrases = list(self.phrases) or [()]
        tokens = np.zeros((len(phrases), max([1] + [len(p) for p in phrases])), np.int32)
        for i, p in enumerate(phrases):
            tokens[i, :len(p)] = p
        segs = list(self.segments) or [(0, ((), ()), 0, 0)]
        return dict(txt_tokens=tokens, txt_len=np.array([len(p) for p in phrases], np.int32),
                    seg_text=np.array([s[0] for s in segs], np.int32),
                    seg_pos=index_array([s[1][0] for s in segs]), seg_neg=index_array([s[1][1] for s in segs]),
                    seg_kind=np.array([s[2] for s in segs], np.int32))

    def group_runs(self, lists: Sequence[Sequence[int]]) -> Dict[str, np.ndarray]:
        """``seg_place`` and ``seg_run`` (int32[S]): each segment's place in its group's run and the
        run's length, read off the lists that show it (a group's segments always stand together, in
        one order; an ungrouped segment is a run of one)."""
        groups = [key[3] for key in self.segments] or [-1]
        place, run = np.zeros(len(groups), np.int32), np.ones(len(groups), np.int32)
        for ids in lists:
            start = 0
            for j in range(1, len(ids) + 1):
                if j == len(ids) or groups[ids[j]] != groups[ids[start]] or groups[ids[start]] < 0:
                    for k in range(start, j):
                        place[ids[k]], run[ids[k]] = k - start, j - start
                    start = j
        return dict(seg_place=place, seg_run=run)


def _rows(lists: Sequence[List[int]], count: int) -> np.ndarray:
    return index_array(list(lists) + [[]] * (count - len(lists)))


def _texts(script: Script) -> List[str]:
    groups = script.views + script.act_head + script.cmd_refusal + script.fixed
    return [seg.text for segs in groups for seg in segs]


def compile_text(spec, logic, game: TextGame, info: GameInfo) -> Tuple[Dict[str, np.ndarray], Tuple[str, ...]]:
    """The text fields of ``game`` (compiled from ``spec`` with ``logic``) and its new words.

    Returns ``(fields, words)``: ``fields`` maps the TextGame text fields
    (``txt_tokens`` ... ``room_view``, see ``game.TextGame``) to arrays;
    ``words`` are the words beyond the shipped vocabulary, sorted, that the
    token ids refer to (``GameInfo.words``).
    """
    script = narrate(World(spec, logic, info, np.asarray(game.act_cmd).tolist()))
    words = new_words(_texts(script))
    builder = _Builder(Vocab(words), info.facts, frozenset(spec.facts))
    views = [builder.ids(v) for v in script.views]
    heads = [builder.ids(h) for h in script.act_head]
    refusals = [builder.ids(r) for r in script.cmd_refusal]
    fixed = [builder.ids(f) for f in script.fixed]
    rooms = [(builder.index.get(fact_text(f), -1), v) for f, v in script.rooms if v >= 0]
    fields = dict(
        view_segs=_rows(views, 1),
        act_segs=_rows(heads, int(game.act_cmd.shape[0])),
        act_view=np.array(script.act_view + [-1] * (int(game.act_cmd.shape[0]) - len(script.act_view)), np.int32),
        cmd_segs=_rows(refusals, int(game.cmd_valid.shape[0])),
        fixed_segs=_rows(fixed, len(script.fixed)),
        room_fact=np.array([f for f, _ in rooms] or [-1], np.int32),
        room_view=np.array([v for _, v in rooms] or [-1], np.int32),
    )
    fields.update(builder.arrays())
    fields.update(builder.group_runs(views + heads + refusals + fixed))
    return {k: np.asarray(v) for k, v in fields.items()}, words


def share_vocab(games: Sequence[TextGame], infos: Sequence[GameInfo]):
    """Give ``games`` (and their ``infos``) one vocabulary, as a bank needs.

    Returns ``(games, infos, vocab)``: the games with their ``txt_tokens``
    renumbered, the infos with ``words`` set to the shared new words (the
    sorted union of every game's), and the shared :class:`~jaxlab.levels.text.vocab.Vocab`.
    The ids do not depend on the order of the games.
    """
    words = tuple(sorted(set().union(*(i.words for i in infos))))
    vocab = Vocab(words)
    out_games, out_infos = [], []
    for game, info in zip(games, infos):
        if info.words != words:
            table = np.array([vocab.id(w) for w in Vocab(info.words).words], np.int32)
            game = game.replace(txt_tokens=on_device(table[np.asarray(game.txt_tokens)]))
            info = dataclasses.replace(info, words=words)
        out_games.append(game)
        out_infos.append(info)
    return out_games, tuple(out_infos), vocab

"""Word-level tokens for the text of text games.

A token is a lower-case word (letters and digits, with inner apostrophes or
hyphens: ``can't``, ``king-size``), a punctuation mark, ``-=``/``=-`` (room
headers), a run of ``*`` or the newline token ``<nl>``. Id 0 is padding
(``<pad>``), id 1 stands for a word the vocabulary lacks (``<unk>``), and
ids 2, 3, 4 are ``<nl>``, ``,`` and ``and`` (lists are joined on device).

The shipped word list (``data/vocab.txt``) comes first, with stable ids: it
only ever grows at its end. A compiled game refers to the shipped words and,
after them, to the words new to it (``GameInfo.words``, sorted). A bank of
games shares one vocabulary: the shipped words, then the sorted union of
every game's new words (``tables.share_vocab``), so the ids do not depend on
the order in which games are listed.

:func:`decode` reassembles readable text: sentences and room-header words
capitalised, no space before punctuation, newlines kept.
"""
from __future__ import annotations

import functools
import importlib.resources
import re
from typing import Iterable, List, Sequence, Tuple

import numpy as np

PAD, UNK, NEWLINE, COMMA, AND = 0, 1, 2, 3, 4
_FIXED = ("<pad>", "<unk>", "<nl>", ",", "and")
_TOKEN = re.compile(r"\n|-=|=-|\*+|[^\W_]+(?:['\-][^\W_]+)*|\S")
_NO_SPACE_BEFORE = frozenset(".,!?:;)]%")
_NO_SPACE_AFTER = frozenset("([")
_SENTENCE_END = frozenset(".!?")


@functools.lru_cache(maxsize=1)
def shipped_words() -> Tuple[str, ...]:
    """The shipped vocabulary (``data/vocab.txt``): token id i is ``shipped_words()[i]``."""
    text = importlib.resources.files("jaxlab.levels.text").joinpath("data/vocab.txt").read_text(encoding="utf-8")
    words = tuple(line.strip() for line in text.splitlines() if line.strip())
    if words[:len(_FIXED)] != _FIXED or len(set(words)) != len(words):
        raise ValueError(f"data/vocab.txt must start with {' '.join(_FIXED)} and list each token once")
    return words


def tokenize(text: str) -> List[str]:
    """The tokens of ``text`` as strings (lower case; a newline is ``<nl>``)."""
    return list(_tokens(text))


@functools.lru_cache(maxsize=1 << 16)
def _tokens(text: str) -> Tuple[str, ...]:
    text = text.replace("\u2019", "'").replace("\r\n", "\n")
    return tuple("<nl>" if t == "\n" else t.lower() for t in _TOKEN.findall(text))


def new_words(texts: Iterable[str]) -> Tuple[str, ...]:
    """The sorted words of ``texts`` that the shipped vocabulary lacks."""
    known = set(shipped_words())
    return tuple(sorted({t for text in set(texts) for t in _tokens(text)} - known))


class Vocab:
    """The shipped words followed by ``extra`` words (ids ``len(shipped_words()) + i``)."""

    def __init__(self, extra: Sequence[str] = ()):
        self.words: Tuple[str, ...] = shipped_words() + tuple(extra)
        self._ids = {w: i for i, w in enumerate(self.words)}
        if len(self._ids) != len(self.words):
            raise ValueError("extra words repeat a word of the vocabulary")

    def __len__(self) -> int:
        return len(self.words)

    def id(self, word: str) -> int:
        """The id of one token string (``UNK`` if absent)."""
        return self._ids.get(word, UNK)

    def encode(self, text: str) -> List[int]:
        """The token ids of ``text`` (words the vocabulary lacks become ``UNK``)."""
        ids = self._ids
        return [ids.get(t, UNK) for t in _tokens(text)]

    def decode(self, ids) -> str:
        """Readable text from token ids (int array or list; 0 = padding is skipped).

        Capitalises the first word of each sentence and line, every word of a
        ``-= room =-`` header and the word ``i``; no space before punctuation;
        leading and trailing whitespace is dropped.
        """
        words = [self.words[i] if 0 <= i < len(self.words) else "<unk>"
                 for i in np.asarray(ids, np.int64).reshape(-1).tolist() if i != PAD]
        return _join(words)


def _join(words: Sequence[str]) -> str:
    out: List[str] = []
    capital, header, quote_open, prev = True, False, False, "<nl>"
    for w in words:
        if w == "<nl>":
            out.append("\n")
            capital, prev = True, w
            continue
        text = w
        if w[:1].isalpha() and (capital or header):
            text = w[:1].upper() + w[1:]
        if w == "i" or w.startswith("i'"):
            text = "I" + w[1:]
        opening = w == '"' and not quote_open
        space = not (prev == "<nl>" or w in _NO_SPACE_BEFORE or prev in _NO_SPACE_AFTER
                     or (w == '"' and not opening) or (prev == '"' and quote_open))
        out.append((" " if space else "") + text)
        if w == '"':
            quote_open = opening
        header = (header or w == "-=") and w != "=-"
        capital = w in _SENTENCE_END or w.startswith("*") or (capital and not w[:1].isalnum())
        prev = w
    return "".join(out).strip()

"""DMLab's ``INSTR`` observation as tokens: the language levels' instruction vocabulary.

On the host an instruction is a string, as DMLab gives it (``Lab.observations()["INSTR"]``); on
the device it is ``INSTRUCTION_LENGTH`` token ids (int32, 0 pads the end), so a batch of episodes
carries its instructions in fixed shapes and a level can compose one from traced choices (a shape
drawn per episode becomes its word's id). Every level shares one vocabulary: the padding, the
words of the instruction templates, then DMLab's object shapes and colour names
(``language_objects``), so a batch that mixes levels decodes with one table.

Tokens are whole words as DMLab writes them (``hair_brush`` is one token, capitals kept); ``?`` is
a token of its own, written without a space before it. A level compiled from a DMLab script may use words of
its own (fast_mapping's made-up names): ``level_words`` lists them and their ids follow the vocabulary's
(``vocabulary(words)``); ``encode`` and ``decode`` take them, and native levels have none.
"""
from __future__ import annotations

from typing import Iterable, List, Sequence, Tuple, Union

import jax.numpy as jnp
import numpy as np

from jaxlab.errors import unknown_name_error
from jaxlab.levels.dmlab.language_objects import LANGUAGE_COLOURS, LANGUAGE_SHAPES

#: the longest instruction, in tokens (``Level.instr`` and the device's INSTR observation)
INSTRUCTION_LENGTH = 16
PAD = 0
#: the words of the instruction templates (DMLab's language levels), after the padding
TEMPLATE_WORDS = ("Pick", "the", "object", "in", "room", "Are", "all", "objects", "Is", "any", "anything",
                  "most", "Every", "near", "?")
#: token id i is ``VOCABULARY[i]``
VOCABULARY = ("",) + TEMPLATE_WORDS + tuple(LANGUAGE_SHAPES) + tuple(name for name, _ in LANGUAGE_COLOURS)
FIRST_SHAPE_TOKEN = 1 + len(TEMPLATE_WORDS)
FIRST_COLOUR_TOKEN = FIRST_SHAPE_TOKEN + len(LANGUAGE_SHAPES)
_INDEX = {word: i for i, word in enumerate(VOCABULARY)}
_NO_SPACE_BEFORE = frozenset("?")


def shape_token(shape):
    """int32 token id of DMLab shape ``shape`` (0-based index into ``LANGUAGE_SHAPES``; int or int array)."""
    return jnp.asarray(shape, jnp.int32) + FIRST_SHAPE_TOKEN


def colour_token(colour):
    """int32 token id of DMLab colour ``colour`` (0-based index into ``LANGUAGE_COLOURS``; int or int array)."""
    return jnp.asarray(colour, jnp.int32) + FIRST_COLOUR_TOKEN


def compose(parts: Sequence[Union[str, jnp.ndarray, int]]) -> jnp.ndarray:
    """int32[INSTRUCTION_LENGTH]: an instruction from ``parts``, each a template string of
    vocabulary words (split at spaces, ``?`` apart) or one token id (int32[], traced or not; from
    ``shape_token`` / ``colour_token``), padded with ``PAD``. jit- and vmap-safe: the parts' count
    and words are static. ValueError on a word outside the vocabulary or an instruction too long."""
    tokens = []
    for part in parts:
        if isinstance(part, str):
            tokens.extend(jnp.int32(i) for i in encode_words(part))
        else:
            tokens.append(jnp.asarray(part, jnp.int32))
    if len(tokens) > INSTRUCTION_LENGTH:
        raise ValueError(f"an instruction of {len(tokens)} tokens is longer than {INSTRUCTION_LENGTH}")
    return jnp.stack(tokens + [jnp.int32(PAD)] * (INSTRUCTION_LENGTH - len(tokens)))


def vocabulary(words: Sequence[str] = ()) -> Tuple[str, ...]:
    """The token ids' words of a level with its own ``words`` (``level_words``): id i is ``vocabulary(words)[i]``,
    ``VOCABULARY`` first, then ``words[k]`` at ``len(VOCABULARY) + k``."""
    return VOCABULARY + tuple(words)


def split(text: str) -> List[str]:
    """The words of instruction ``text``: split at spaces, ``?`` a word of its own."""
    return text.replace("?", " ? ").split()


def level_words(texts: Iterable[str]) -> Tuple[str, ...]:
    """The sorted words of ``texts`` (a level's instructions) outside ``VOCABULARY``: the level's own words,
    whose token ids follow the vocabulary's (``vocabulary``). Native levels have none."""
    return tuple(sorted({w for text in texts for w in split(text) if w not in _INDEX}))


def encode_words(text: str, words: Sequence[str] = ()) -> list:
    """The token ids (list of int) of ``text`` (``split``) in ``vocabulary(words)``. ValueError naming the
    first unknown word, with close matches."""
    index = _INDEX if not words else {word: i for i, word in enumerate(vocabulary(words))}
    out = []
    for word in split(text):
        if word not in index:
            raise unknown_name_error("instruction word", word, vocabulary(words)[1:])
        out.append(index[word])
    return out


def encode(text: str, words: Sequence[str] = ()) -> np.ndarray:
    """int32[INSTRUCTION_LENGTH]: ``text`` as tokens of ``vocabulary(words)``, padded (host-side; see
    ``encode_words``). ValueError for an instruction of more than ``INSTRUCTION_LENGTH`` tokens."""
    ids = encode_words(text, words)
    if len(ids) > INSTRUCTION_LENGTH:
        raise ValueError(f"instruction {text!r} has {len(ids)} tokens, more than {INSTRUCTION_LENGTH}")
    return np.asarray(ids + [PAD] * (INSTRUCTION_LENGTH - len(ids)), np.int32)


def check_tokens(tokens, words: Sequence[str] = (), where: str = "instruction") -> None:
    """ValueError (naming ``where``, the ids' owner) unless every int token id of ``tokens`` (any shape;
    host-side) lies in ``vocabulary(words)``: a bank's ``Level.instr`` against its own words."""
    ids = np.asarray(tokens)
    top = len(vocabulary(words)) - 1
    if ids.size and (ids.min() < 0 or ids.max() > top):
        raise ValueError(f"{where} token ids must lie in [0, {top}] (the {len(VOCABULARY)} words of "
                         f"VOCABULARY and {len(words)} of the level's own); got ids from {ids.min()} to {ids.max()}")


def decode(tokens, words: Sequence[str] = ()) -> Union[str, list]:
    """The instruction string of int token ids [..., L] of ``vocabulary(words)`` (host-side): words joined by
    spaces, none before ``?``, padding dropped; a list (nested like the leading axes) for a batch.
    ValueError on an id outside the vocabulary."""
    ids = np.asarray(tokens)
    if ids.ndim > 1:
        return [decode(row, words) for row in ids]
    check_tokens(ids, words)
    table = vocabulary(words)
    text = ""
    for i in ids.tolist():
        word = table[i]
        if word:
            text += word if (not text or word in _NO_SPACE_BEFORE) else " " + word
    return text

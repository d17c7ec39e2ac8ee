"""DMLab's ``INSTR`` observation as tokens: the language levels' instruction vocabulary.

On the host an instruction is a string, as DMLab gives it (``Lab.observations()["INSTR"]``); on
the device it is ``INSTRUCTION_LENGTH`` token ids (int32, 0 pads the end), so a batch of episodes
carries its instructions in fixed shapes and a level can compose one from traced choices (a shape
drawn per episode becomes its word's id). Every level shares one vocabulary: the padding, the
words of the instruction templates, then DMLab's object shapes and colour names
(``language_objects``), so a batch that mixes levels decodes with one table.

Tokens are whole words as DMLab writes them (``hair_brush`` is one token, capitals kept); ``?`` is
a token of its own, written without a space before it.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple, Union

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


def encode_words(text: str) -> list:
    """The token ids (list of int) of ``text``: vocabulary words separated by spaces, ``?`` a word
    of its own. ValueError naming the first unknown word, with close matches."""
    out = []
    for word in text.replace("?", " ? ").split():
        if word not in _INDEX:
            raise unknown_name_error("instruction word", word, VOCABULARY[1:])
        out.append(_INDEX[word])
    return out


def encode(text: str) -> np.ndarray:
    """int32[INSTRUCTION_LENGTH]: ``text`` as tokens, padded (host-side; see ``encode_words``)."""
    ids = encode_words(text)
    if len(ids) > INSTRUCTION_LENGTH:
        raise ValueError(f"instruction {text!r} has {len(ids)} tokens, more than {INSTRUCTION_LENGTH}")
    return np.asarray(ids + [PAD] * (INSTRUCTION_LENGTH - len(ids)), np.int32)


def encode_known(text: str) -> Tuple[np.ndarray, List[str]]:
    """``(int32[INSTRUCTION_LENGTH], left out)``: the tokens of ``text``'s vocabulary words (as ``encode_words``
    splits them), padded, and the words left out: those outside the vocabulary, then those past
    ``INSTRUCTION_LENGTH`` tokens (host-side; a compiled level's instruction may hold any text)."""
    words = text.replace("?", " ? ").split()
    ids = [_INDEX[w] for w in words if w in _INDEX]
    left_out = [w for w in words if w not in _INDEX] + [VOCABULARY[i] for i in ids[INSTRUCTION_LENGTH:]]
    ids = ids[:INSTRUCTION_LENGTH]
    return np.asarray(ids + [PAD] * (INSTRUCTION_LENGTH - len(ids)), np.int32), left_out


def decode(tokens) -> Union[str, list]:
    """The instruction string of int token ids [..., L] (host-side): words joined by spaces, none
    before ``?``, padding dropped; a list (nested like the leading axes) for a batch. ValueError on
    an id outside the vocabulary."""
    ids = np.asarray(tokens)
    if ids.ndim > 1:
        return [decode(row) for row in ids]
    if ids.size and (ids.min() < 0 or ids.max() >= len(VOCABULARY)):
        raise ValueError(f"instruction token ids must lie in [0, {len(VOCABULARY) - 1}]; got {ids.tolist()}")
    text = ""
    for i in ids.tolist():
        word = VOCABULARY[i]
        if word:
            text += word if (not text or word in _NO_SPACE_BEFORE) else " " + word
    return text

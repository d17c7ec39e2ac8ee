"""DMLab's ``INSTR`` observation of a compiled level: each episode's instruction, and the instruction as it plays.

A DMLab level lists ``INSTR`` (type 'String') among its custom observations and answers it from
``api:customObservation('INSTR')``; DMLab's ``decorators.custom_observations`` answers it from a local of its
module that ``api.setInstruction(text)`` sets (in ``start``/``nextMap``, or at play time in ``pickup``). jaxlab's
INSTR is ``INSTRUCTION_LENGTH`` token ids of one vocabulary (``jaxlab.levels.dmlab.instructions``) and the
level's own words:

- each episode's instruction at its start is read on the host after ``nextMap`` and its entities
  (:func:`episode_text`) and becomes the bank's ``Level.instr``;
- when a compiled callback changes a variable that a function set by another file (a decorator's setter) writes
  (``compile_lua.device.upvalues``), the api's live ``customObservation`` (:data:`CALLBACK`, the function DMLab's
  engine calls, wherever it is written) is translated too, for ``'INSTR'``: a string id into the translation's
  string table, which :class:`InstructionHooks` turns into tokens each step (a table, built when traced, of the
  tokens of each string the answer may be).

Words outside the vocabulary are the level's own (``instructions.level_words`` of its start instructions and of
the strings the translated callback may give, :func:`answers`): their token ids follow the vocabulary's, and the
compile's ``meta["instruction_words"]`` lists them for the env (its ``decode``, INSTR's spec). An instruction of
more than ``INSTRUCTION_LENGTH`` words is refused (:func:`instruction_rows`).
"""
from __future__ import annotations

from typing import Any, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from lupa.lua54 import lua_type

from compile_lua.device.host_values import UPVALUE
from compile_lua.device.source import reject
from compile_lua.errors import LuaScriptError
from compile_lua.loading import LoadedScript
from jaxlab.kernels.first_person.observations import INSTRUCTION
from jaxlab.levels.dmlab.instructions import INSTRUCTION_LENGTH, encode, level_words

#: the translated callback that answers INSTR as it plays: the api's live ``customObservation``
CALLBACK = "api.customObservation"


def lists_instruction(loaded: LoadedScript) -> bool:
    """Whether the api's ``customObservationSpec()`` (after ``init``) lists ``INSTR``."""
    api, sandbox = loaded.returned, loaded.sandbox
    if lua_type(api) != "table" or lua_type(api["customObservationSpec"]) != "function" \
            or lua_type(api["customObservation"]) != "function":
        return False
    specs = sandbox.to_python(sandbox.call_method(api, "customObservationSpec")) or []
    return any(isinstance(s, dict) and s.get("name") == INSTRUCTION for s in (specs if isinstance(specs, list) else []))


def plays_instruction(loaded: LoadedScript, touched: Set[str]) -> bool:
    """Whether INSTR is compiled onto the device: the compiled callbacks change a variable a decorator's setter
    writes (``touched``: the state keys they name) and the level lists INSTR."""
    return any(k.startswith(UPVALUE) for k in touched) and lists_instruction(loaded)


def episode_text(sandbox: Any, tab: Any) -> Optional[str]:
    """``api:customObservation('INSTR')`` on the host now (the episode's start), or None when it is no string."""
    value = sandbox.to_python(tab.call("customObservation", INSTRUCTION))
    return value if isinstance(value, str) else None


def _answer(tr: Any, play: Any, inputs: Any) -> Tuple[Any, FrozenSet[str]]:
    """The translated ``api:customObservation('INSTR')`` of ``play`` and ``inputs``: (its string id, int32[] into
    ``tr.strings``; the strings it may be, known when it is traced)."""
    value = tr.run(CALLBACK, play, inputs, [INSTRUCTION])[1][0]
    if isinstance(value, str):
        return jnp.int32(tr.intern(value)), frozenset([value])
    return value.gid, frozenset(value.cands)


def _line(tr: Any) -> Optional[int]:
    """The line of the play source's ``customObservation`` (None: written in another file, a decorator)."""
    where = tr.outline.methods.get("customObservation")
    return where.line if where else None


def check_answer(tr: Any, state: Any) -> None:
    """Reject a translated INSTR answer that is not a string (traced once on play state ``state``)."""
    jax.eval_shape(lambda s, i: tr.callbacks[CALLBACK](s, i, INSTRUCTION)[1], state, tr.inputs())
    if tr.results.get(CALLBACK) != ("string",):
        reject(tr.outline.path, _line(tr), "api:customObservation('INSTR') returning "
               f"{', '.join(tr.results.get(CALLBACK) or ('nothing',))}", "INSTR is a string")


def answers(tr: Any) -> List[str]:
    """The strings the translated ``api:customObservation('INSTR')`` may give as the level plays (traced once,
    after :func:`check_answer`)."""
    check_answer(tr, tr.initial_state())
    found: Set[str] = set()
    jax.eval_shape(lambda s, i: found.update(_answer(tr, s, i)[1]), tr.initial_state(), tr.inputs())
    return sorted(found)


def instruction_rows(texts: Sequence[str], words: Sequence[str], path: str, line: Optional[int]) -> List[np.ndarray]:
    """int32[INSTRUCTION_LENGTH] tokens of each of ``texts`` with the level's own ``words``
    (``instructions.encode``); LuaScriptError at ``path``:``line`` (the script's customObservation) for an
    instruction longer than ``INSTRUCTION_LENGTH`` words (DMLab's INSTR is a string of any length)."""
    rows = []
    for text in texts:
        try:
            rows.append(encode(text, words))
        except ValueError as err:
            raise LuaScriptError(path, line, f"INSTR: {err}: jaxlab's INSTR carries at most {INSTRUCTION_LENGTH} "
                                 "words ('?' counts as one)") from None
    return rows


def level_instructions(starts: Sequence[str], played: Any, path: str, line: Optional[int]
                       ) -> Tuple[List[np.ndarray], Tuple[str, ...]]:
    """(int32[INSTRUCTION_LENGTH] tokens of each episode's instruction at its start (``starts``), the level's own
    words): the words outside the vocabulary of those instructions and of the strings the translated
    ``customObservation('INSTR')`` may give (:func:`answers` of ``played``, its translation; None when INSTR does
    not play), sorted; their token ids follow the vocabulary's. LuaScriptError at ``path``:``line`` for an
    instruction longer than INSTR carries (:func:`instruction_rows`)."""
    texts = list(starts) + (answers(played) if played is not None else [])
    words = level_words(texts)
    return instruction_rows(texts, words, path, line)[:len(starts)], words


class InstructionHooks:
    """The ``ScriptHooks`` part that answers INSTR as it plays (:data:`CALLBACK` among the compiled names);
    needs ``translation``."""

    translation: Any

    def init_instruction(self, names: Iterable[str], words: Sequence[str]) -> None:
        """``names``: the compiled callbacks; ``words``: the level's own instruction words (``meta``'s
        ``instruction_words``)."""
        self.has_instruction = CALLBACK in names
        self.instruction_words = tuple(words)

    def instruction(self, play, inputs):
        """int32[INSTRUCTION_LENGTH]: the tokens of ``api:customObservation('INSTR')`` now: a row of a table,
        built when traced, of the tokens of each string it may be (by string id; other strings' rows pad)."""
        tr = self.translation
        gid, texts = _answer(tr, play, inputs)
        texts = sorted(texts)
        rows = dict(zip(texts, instruction_rows(texts, self.instruction_words, tr.outline.path, _line(tr))))
        pad = np.zeros(INSTRUCTION_LENGTH, np.int32)
        table = np.stack([rows.get(text, pad) for text in tr.strings] or [pad])
        return jnp.asarray(table)[jnp.clip(jnp.asarray(gid, jnp.int32), 0, len(table) - 1)]

    def check_instruction(self, state) -> None:
        """Reject an INSTR answer that is not a string (:func:`check_answer`), then trace :meth:`instruction` once
        (its table: each string it may be, in the level's words)."""
        if self.has_instruction:
            check_answer(self.translation, state)
            jax.eval_shape(self.instruction, state, self.translation.inputs())

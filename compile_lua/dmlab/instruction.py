"""DMLab's ``INSTR`` observation of a compiled level: each episode's instruction, and the instruction as it plays.

A DMLab level lists ``INSTR`` (type 'String') among its custom observations and answers it from
``api:customObservation('INSTR')``; DMLab's ``decorators.custom_observations`` answers it from a local of its
module that ``api.setInstruction(text)`` sets (in ``start``/``nextMap``, or at play time in ``pickup``). jaxlab's
INSTR is ``INSTRUCTION_LENGTH`` token ids of one vocabulary (``jaxlab.levels.dmlab.instructions``):

- each episode's instruction at its start is read on the host after ``nextMap`` and its entities
  (:func:`episode_tokens`) and becomes the bank's ``Level.instr``;
- when a compiled callback changes a variable that a function set by another file (a decorator's setter) writes
  (``compile_lua.device.upvalues``), the api's live ``customObservation`` (:data:`CALLBACK`, the function DMLab's
  engine calls, wherever it is written) is translated too, for ``'INSTR'``: a string id into the translation's
  string table, which :class:`InstructionHooks` turns into tokens each step.

Words outside the vocabulary (and tokens past ``INSTRUCTION_LENGTH``) cannot be carried: a compile warning names
them (:func:`left_out`), and INSTR holds the instruction's other words.
"""
from __future__ import annotations

from typing import Any, Iterable, List, Optional, Set

import jax
import jax.numpy as jnp
import numpy as np
from lupa.lua54 import lua_type

from compile_lua.device.host_values import UPVALUE
from compile_lua.device.source import reject
from compile_lua.loading import LoadedScript
from jaxlab.kernels.first_person.observations import INSTRUCTION
from jaxlab.levels.dmlab.instructions import INSTRUCTION_LENGTH, encode_known

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


def left_out(texts: Iterable[str]) -> Optional[str]:
    """One warning naming the instructions of ``texts`` with words INSTR cannot carry (``encode_known``), or None."""
    found = [(text, encode_known(text)[1]) for text in sorted(set(texts))]
    found = [f"{text!r} ({', '.join(dropped)})" for text, dropped in found if dropped]
    if not found:
        return None
    return (f"INSTR cannot carry every word of {len(found)} instruction(s): {', '.join(found[:4])}"
            f"{', ...' if len(found) > 4 else ''}; jaxlab's INSTR holds at most {INSTRUCTION_LENGTH} words of its "
            "vocabulary (jaxlab.levels.dmlab.instructions.VOCABULARY) and keeps an instruction's other words")


def played_texts(tr: Any) -> List[str]:
    """The strings the variables a decorator's setter writes may hold (the instruction's candidates)."""
    return sorted({s for k, kind in tr.layout.items() if k.startswith(UPVALUE)
                   for s in (kind[1] if kind[0] == "string" else kind[1][1] if kind[:1] == ("maybe",)
                             and kind[1][0] == "string" else ())})


class InstructionHooks:
    """The ``ScriptHooks`` part that answers INSTR as it plays (:data:`CALLBACK` among the compiled names);
    needs ``translation``."""

    translation: Any

    def init_instruction(self, names: Iterable[str]) -> None:
        self.has_instruction = CALLBACK in names

    def instruction(self, play, inputs):
        """int32[INSTRUCTION_LENGTH]: the tokens of ``api:customObservation('INSTR')`` now."""
        tr = self.translation
        gid = tr.callbacks[CALLBACK](play, inputs, INSTRUCTION)[1]
        table = np.stack([encode_known(text)[0] for text in tr.strings] or [np.zeros(INSTRUCTION_LENGTH, np.int32)])
        return jnp.asarray(table)[jnp.clip(jnp.asarray(gid, jnp.int32), 0, len(table) - 1)]

    def check_instruction(self, state) -> None:
        """Reject an INSTR answer that is not a string (traced once)."""
        if not self.has_instruction:
            return
        tr = self.translation
        jax.eval_shape(lambda s, i: tr.callbacks[CALLBACK](s, i, INSTRUCTION)[1], state, tr.inputs())
        if tr.results.get(CALLBACK) != ("string",):
            where = tr.outline.methods.get("customObservation")
            reject(tr.outline.path, where.line if where else None, "api:customObservation('INSTR') returning "
                   f"{', '.join(tr.results.get(CALLBACK) or ('nothing',))}", "INSTR is a string")

"""The compiled text game: a fixed-shape pytree, its host-side names, and banks.

A :class:`TextGame` holds a world as arrays: a fact vector (bool[F]), the
grounded actions (G rule instances) with the facts each needs, adds and
deletes, the command (index into the game's K command strings) each one
answers to, the quests as conjunctions of facts, and the game's text as
token tables (``narration``). Index arrays pad with -1 (no fact / no
command). ``jaxlab.Bank.stack`` pads several games to shared shapes
(``TextGame.PAD_VALUES``, ``TextGame.PAD_FRONT``) and stacks them on a
leading axis, a bank that one jitted step serves; :class:`GameRows` reads
one game of a bank in place. The strings (commands, facts, entity names,
the words of the text) stay on the host in a :class:`GameInfo`.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.bank import Bank, on_device

PLAIN, LIST, HEADER, FALLBACK, FIRST = range(5)  #: segment kinds
INTRO, UNKNOWN, WON, LOST, NO_SUCH_THING = range(5)  #: rows of ``TextGame.fixed_segs``
#: ``fixed_segs`` rows SCORE_UP + n - 1 (n = 1..MAX_SCORE_LINE): "Your score has just gone up by n point(s)."
SCORE_UP, MAX_SCORE_LINE = 5, 10
#: the command id of a known verb with things the game does not have (``parser.UNKNOWN_OBJECT``)
UNKNOWN_OBJECT_ID = -2
INVENTORY_VIEW = 0  #: ``TextGame.view_segs[0]`` is the inventory


@struct.dataclass
class TextGame:
    """One game (or, with a leading axis, a bank of games), every field an array.

    init_facts:   bool[F]     facts true at the start.
    act_pre:      int32[G, P] facts each grounded action needs (-1 pads).
    act_add:      int32[G, A] facts it adds (-1 pads).
    act_del:      int32[G, D] facts it deletes (-1 pads).
    act_cmd:      int32[G]    its command index in [0, K) (-1: padding).
    act_irreversible: bool[G] its rule has no reverse rule (TextWorld: it can
                              make a quest unfinishable).
    act_reverse:  int32[G]    the action of its reverse rule, on the same entities, that undoes
                              it (adds what it deletes and deletes what it adds; -1: none).
    ev_facts:     int32[E, C] each quest event's condition, a conjunction (-1 pads).
    ev_possible:  bool[E]     false when a never-changing fact of the condition is false.
    ev_quest:     int32[E]    the quest of each event.
    ev_win:       bool[E]     winning (true) or failing (false) event.
    ev_tracked:   bool[E]     the event has an action plan (only those can become
                              unfinishable).
    plan_event:   int32[N]    the events that have an action plan (-1 pads); the plan arrays have a row each.
    plan_pre:     int32[N, S, P2] preconditions of each step of each plan (-1 pads).
    plan_add:     int32[N, S, A2] facts each plan step adds (-1 pads).
    plan_readers: uint32[N, S, A2, W] bit j: the fact step i adds is a precondition of the later step j.
    plan_goal:    bool[N, S, A2] the fact step i adds is in the plan's event's condition.
    q_reward:     float32[Q]  reward of each quest.
    q_optional:   bool[Q]     not needed to win.
    q_repeatable: bool[Q]     rewarded each time its condition holds after an action.
    q_completable: bool[Q]    has at least one winning event.
    max_score:    float32[]   TextWorld's max_score (inf with a repeatable rewarded quest).
    num_quests:   int32[]     real quests (0: nothing to win or lose).
    cmd_valid:    bool[K]     real commands (the rest of the command table is padding).
    cmd_span:     int32[K, 2] the grounded actions of each command, ``[start, end)``:
                              actions are grouped by command, in the order tried
                              (padding commands: an empty span).

    The text (see ``narration``; token ids of the game's vocabulary, ``vocab``):
    txt_tokens:   int32[NP, L] phrases (0 pads); txt_len: int32[NP] their lengths.
    seg_text:     int32[S]    each segment's phrase.
    seg_pos, seg_neg: int32[S, C], int32[S, C2] facts that must hold / must not (-1 pads).
    seg_kind:     int32[S]    the segment's kind (``PLAIN`` ...).
    seg_place, seg_run: int32[S] the segment's place in its group's run of segments and the run's length.
    view_segs:    int32[V, W] segments of each view (0: inventory; rooms, contents, examine) (-1 pads).
    act_segs:     int32[G, A] segments of each grounded action's success text (-1 pads).
    act_view:     int32[G]    the view shown after it (-1: none).
    cmd_segs:     int32[K, B] segments of each command's refusal (-1 pads).
    fixed_segs:   int32[5, X] objective, unknown command, won, lost, no such thing (``INTRO`` ...).
    room_fact:    int32[R]    the fact "the player is in room r" (-1: always, or padding).
    room_view:    int32[R]    the view of room r (-1: padding).

    The winning policy (see ``policy``; L positions, the last ones used first):
    pol_init:     int32[L]    the grounded actions of the walkthrough, in positions
                              ``[L - n, L)`` (-1 before: room for pushed reverse actions).
    pol_goal:     int32[C3]   the winning conditions the walkthrough ends with, fact by fact (-1 pads).
    pol_goal_quest: int32[C3] the quest each goal fact is for (-1 pads).
    pol_src:      int32[L + 1, W] for each position (row L: the goal) and each fact it
                              reads (its action's preconditions, ``act_pre`` order; the
                              goal's facts), how many positions back the latest action
                              touching that fact is (0: none).
    pol_adds:     bool[L + 1, W]  whether that action adds the fact (false: deletes it).
    """

    init_facts: jnp.ndarray
    act_pre: jnp.ndarray
    act_add: jnp.ndarray
    act_del: jnp.ndarray
    act_cmd: jnp.ndarray
    act_irreversible: jnp.ndarray
    act_reverse: jnp.ndarray
    ev_facts: jnp.ndarray
    ev_possible: jnp.ndarray
    ev_quest: jnp.ndarray
    ev_win: jnp.ndarray
    ev_tracked: jnp.ndarray
    plan_pre: jnp.ndarray
    plan_add: jnp.ndarray
    plan_readers: jnp.ndarray
    plan_event: jnp.ndarray
    plan_goal: jnp.ndarray
    q_reward: jnp.ndarray
    q_optional: jnp.ndarray
    q_repeatable: jnp.ndarray
    q_completable: jnp.ndarray
    max_score: jnp.ndarray
    num_quests: jnp.ndarray
    cmd_valid: jnp.ndarray
    cmd_span: jnp.ndarray
    txt_tokens: jnp.ndarray
    txt_len: jnp.ndarray
    seg_text: jnp.ndarray
    seg_pos: jnp.ndarray
    seg_neg: jnp.ndarray
    seg_kind: jnp.ndarray
    seg_place: jnp.ndarray
    seg_run: jnp.ndarray
    view_segs: jnp.ndarray
    act_segs: jnp.ndarray
    act_view: jnp.ndarray
    cmd_segs: jnp.ndarray
    fixed_segs: jnp.ndarray
    room_fact: jnp.ndarray
    room_view: jnp.ndarray
    pol_init: jnp.ndarray
    pol_goal: jnp.ndarray
    pol_goal_quest: jnp.ndarray
    pol_src: jnp.ndarray
    pol_adds: jnp.ndarray

    #: bank padding (``jaxlab.bank``): index fields (no fact / action / command / segment) pad with -1,
    #: every other field with 0 / False. Padding adds facts that are always false, actions with no
    #: command, impossible events, optional zero-reward quests, text that is never referenced and unused
    #: policy positions, so play, text and policy are unchanged.
    PAD_VALUES = dict.fromkeys(("act_pre", "act_add", "act_del", "act_cmd", "act_reverse", "ev_facts", "plan_event", "plan_pre",
                                "plan_add", "seg_pos", "seg_neg", "view_segs", "act_segs", "act_view", "cmd_segs",
                                "fixed_segs", "room_fact", "room_view", "pol_init", "pol_goal", "pol_goal_quest"), -1)
    #: fields whose first axis pads at the front (the policy's positions are used from the end)
    PAD_FRONT = ("pol_init", "pol_src", "pol_adds")

    @property
    def num_facts(self) -> int:
        """F, the size of the fact vector (static)."""
        return int(self.init_facts.shape[-1])

    @property
    def num_commands(self) -> int:
        """K, the size of the (padded) command table (static)."""
        return int(self.cmd_valid.shape[-1])


@dataclasses.dataclass(frozen=True)
class GameInfo:
    """Host-side description of a compiled game (strings never enter a step).

    commands: K command strings, sorted; ``commands[i]`` is command id i.
    facts: F fact strings such as ``"at(P, r_0)"``; ``facts[i]`` is fact i.
    actions: G ``(rule name, entity ids)`` of the grounded actions.
    entity_names: entity id -> display name (``None`` when the game gives none).
    walkthrough: the game's walkthrough commands, if it has one.
    objective: the game's objective text.
    path: the file the game was loaded from ("" if built in memory).
    words: the words its token ids use beyond the shipped vocabulary (id
      ``len(vocab.shipped_words()) + i`` is ``words[i]``; see ``vocab``).
    """

    commands: Tuple[str, ...]
    facts: Tuple[str, ...]
    actions: Tuple[Tuple[str, Tuple[str, ...]], ...]
    entity_names: Dict[str, Optional[str]]
    walkthrough: Tuple[str, ...] = ()
    objective: str = ""
    path: str = ""
    words: Tuple[str, ...] = ()

    def command_id(self, command: str) -> int:
        """The id of ``command`` (stripped), or -1 if the game has no such command."""
        try:
            return self.commands.index(command.strip())
        except ValueError:
            return -1


def silent_text(num_actions: int, num_commands: int) -> Dict[str, np.ndarray]:
    """The text fields of a game that says nothing (G = ``num_actions``, K = ``num_commands`` rows)."""
    none = np.full((1, 1), -1, np.int32)
    zero = np.zeros(1, np.int32)
    return dict(txt_tokens=np.zeros((1, 1), np.int32), txt_len=zero, seg_text=zero, seg_pos=none, seg_neg=none,
                seg_kind=zero, seg_place=zero, seg_run=np.ones(1, np.int32), view_segs=none,
                act_segs=np.full((num_actions, 1), -1, np.int32),
                act_view=np.full(num_actions, -1, np.int32), cmd_segs=np.full((num_commands, 1), -1, np.int32),
                fixed_segs=np.full((5, 1), -1, np.int32), room_fact=np.full(1, -1, np.int32),
                room_view=np.full(1, -1, np.int32))


class _FieldRows:
    def __init__(self, array, index):
        self._array, self._index = array, index

    @property
    def shape(self) -> Tuple[int, ...]:
        return tuple(self._array.shape[1:])

    def __getitem__(self, idx):
        if (self._array.ndim < 2 or not isinstance(idx, (int, np.integer, np.ndarray, jax.Array))
                or not jnp.issubdtype(jnp.result_type(idx), jnp.integer)):
            return self._array[(self._index,) + (idx if isinstance(idx, tuple) else (idx,))]
        # one index array: read the games' rows as one flat table (a gather by one offset each, where
        # a (game, row) pair needs its index vectors built), with numpy's negatives and JAX's clamping
        rows = self._array.shape[1]
        idx = jnp.asarray(idx)
        idx = jnp.clip(jnp.where(idx < 0, idx + rows, idx), 0, rows - 1)
        flat = self._array.reshape((-1,) + self._array.shape[2:])
        return flat[jnp.asarray(self._index, idx.dtype) * rows + idx]


@jax.tree_util.register_pytree_node_class
class GameRows:
    """Game ``index`` (int32[], may be traced) of a ``Bank`` of TextGames (or of another dataclass of
    per-game arrays), read in place.

    ``rows.field[i]`` is ``bank.levels.field[index, i]`` and
    ``rows.field.shape`` the shape of one game's field; code that only
    indexes a game's arrays (as ``narration`` does) reads a bank's game
    through it without the copy of every array that ``bank.get(index)``
    makes for each game of a vmapped batch. A pytree (the bank's arrays and
    the index), so it can be passed to a function (``jaxlab.env.where_rows``).
    """

    def __init__(self, bank: Bank, index):
        self._games, self._index = bank.levels, index

    def tree_flatten(self):
        return (self._games, self._index), None

    @classmethod
    def tree_unflatten(cls, _, children):
        rows = object.__new__(cls)
        rows._games, rows._index = children
        return rows

    def __getattr__(self, name: str) -> _FieldRows:
        if name.startswith("_") or name not in type(self._games).__dataclass_fields__:
            raise AttributeError(name)
        return _FieldRows(getattr(self._games, name), self._index)


def game_on_device(game: TextGame) -> TextGame:
    """``game`` with every field moved to the device (``on_device``): games are built in numpy."""
    return jax.tree_util.tree_map(on_device, game)

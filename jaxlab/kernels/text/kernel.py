"""The text-game state machine: pure jnp, fixed shapes, jit- and vmap-safe.

Semantics follow TextWorld's ``GameProgression`` (its JSON backend):

- A command is admissible when one of its grounded actions has all its
  preconditions true. Playing an admissible command applies the first such
  action (facts it deletes become false, facts it adds true) and counts a
  move; any other command changes nothing and counts no move.
- Quests are checked once at the start and after every applied action. A
  quest that is done (completed, failed or unfinishable) is never checked
  again, so a completed quest stays completed even when its condition stops
  holding. A quest completes when one of its winning events' conditions
  holds, and fails when a failing event's does. A repeatable quest is
  rewarded each time its condition holds after an action.
- An event that came with an action plan becomes unfinishable when an
  action whose rule has no reverse deletes a fact the rest of the plan
  (what it still needs after the action) needs and the event does not hold
  afterwards. TextWorld tracks this with
  a dependency tree of the plan; here the plan still needed is regressed
  from the condition over the facts: a plan step is needed when it adds a
  needed fact that is false, and then its preconditions are needed.
- score = sum of reward x completions; won = every non-optional quest that
  can be won is completed; lost = a non-optional quest failed or became
  unfinishable. A game without quests is never won nor lost.
- Every function reads ``game`` only by indexing its fields, so it takes a
  ``TextGame`` or a bank's game read in place (``compiled_game.GameRows``,
  which spares a vmapped batch a copy of each game's arrays per step).
- The winning policy (the actions still to play to win) and the
  intermediate reward follow each applied action as in ``policy``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.bits import packed_words
from jaxlab.env import select_tree, where_rows
from jaxlab.kernels.text import policy as policies
from jaxlab.levels.text.compiled_game import TextGame


@struct.dataclass
class TextState:
    """The state of one game being played (every field an array).

    facts: bool[F]; q_completed, q_failed, q_unfinishable: bool[Q] (sticky,
    except completion of repeatable quests); ev_dead: bool[E] events that
    became unfinishable; completions: int32[Q]; score: float32[]; moves:
    int32[] (applied commands); steps: int32[] (every command); won, lost,
    done: bool[]; game_index: int32[] (into a bank); key: PRNG key.
    What to narrate (``narration.feedback``): last_command: int32[] the
    command id last played (-1 at the start); last_action: int32[] the
    grounded action it applied (-1: none); just_ended: bool[] that command
    won or lost the game; last_reward: float32[] the score it added (TextWorld's "Your score has just
    gone up" line). policy: the winning policy (a ``policy.Policy`` of
    arrays; TextWorld reports none once the game is won or lost);
    intermediate_reward: float32[] of the last command
    (``policy.intermediate_reward``; 0 at the start).
    """

    facts: jnp.ndarray
    q_completed: jnp.ndarray
    q_failed: jnp.ndarray
    q_unfinishable: jnp.ndarray
    ev_dead: jnp.ndarray
    completions: jnp.ndarray
    score: jnp.ndarray
    moves: jnp.ndarray
    steps: jnp.ndarray
    won: jnp.ndarray
    lost: jnp.ndarray
    done: jnp.ndarray
    game_index: jnp.ndarray
    key: jax.Array
    last_command: jnp.ndarray
    last_action: jnp.ndarray
    just_ended: jnp.ndarray
    last_reward: jnp.ndarray
    policy: policies.Policy
    intermediate_reward: jnp.ndarray


def _gather(values: jnp.ndarray, idx: jnp.ndarray, pad) -> jnp.ndarray:
    """values[idx] with -1 entries read as ``pad``."""
    return jnp.where(idx >= 0, values[jnp.maximum(idx, 0)], pad)


def applicable(game: TextGame, facts: jnp.ndarray) -> jnp.ndarray:
    """bool[G]: grounded actions whose preconditions all hold in ``facts`` (bool[F])."""
    return jnp.all(_gather(facts, game.act_pre[:], True), axis=-1) & (game.act_cmd[:] >= 0)


def admissible(game: TextGame, facts: jnp.ndarray) -> jnp.ndarray:
    """bool[K]: the admissible-command mask over the game's command table.

    A command is admissible when one of its actions (a contiguous span of
    the action table) applies. The applicable actions are packed into 32-bit
    words; the count of applicable actions before a position is a prefix sum
    over the words plus a population count inside one word, read at both
    ends of each span (no scatter, no prefix sum over all G actions).
    ``command_masks.admissible`` is the faster path a ``TextEnv`` takes."""
    packed = packed_words(applicable(game, facts))
    prefix = jnp.concatenate([jnp.zeros(1, jnp.int32),
                              jnp.cumsum(jax.lax.population_count(packed).astype(jnp.int32))])

    def count_before(g):
        low = (jnp.uint32(1) << (g % 32).astype(jnp.uint32)) - jnp.uint32(1)
        return prefix[g // 32] + jax.lax.population_count(packed[g // 32] & low).astype(jnp.int32)

    span = game.cmd_span[:]
    return count_before(span[:, 1]) > count_before(span[:, 0])


def chosen_action(game: TextGame, facts: jnp.ndarray, command_id: jnp.ndarray, span_width=None):
    """(valid bool[], g int32[]): whether command ``command_id`` (int32[]) applies in ``facts``
    and the grounded action it plays, the first of its span whose preconditions hold.

    span_width: optional static int at least the widest command span
    (``widest_span``); only that window of actions is checked instead of all G.
    """
    k, num_actions = game.cmd_span.shape[0], game.act_cmd.shape[0]
    width = num_actions if span_width is None else max(min(int(span_width), num_actions), 1)
    span = game.cmd_span[jnp.clip(command_id, 0, k - 1)]
    start = jnp.clip(span[0], 0, num_actions - width)
    g = start + jnp.arange(width)
    pre = game.act_pre[g]
    ok = (jnp.all(_gather(facts, pre, True), axis=-1) & (g >= span[0]) & (g < span[1])
          & (command_id >= 0) & (command_id < k))
    return jnp.any(ok), g[jnp.argmax(ok)].astype(jnp.int32)


def has_irreversible(game: TextGame) -> bool:
    """Host: whether some action of ``game`` (or of a bank of games) is irreversible (``step``'s flag)."""
    return bool(np.any(np.asarray(game.act_irreversible)))


def widest_span(game: TextGame) -> int:
    """Host: the most grounded actions one command of ``game`` (or of a bank of games) has."""
    span = np.asarray(game.cmd_span)
    return max(int(np.max(span[..., 1] - span[..., 0], initial=0)), 1)


def _any_per_quest(game: TextGame, event_flags: jnp.ndarray) -> jnp.ndarray:
    q = game.q_reward.shape[-1]
    return jnp.zeros(q, bool).at[game.ev_quest[...]].max(event_flags, mode="drop")


def _outcome(game: TextGame, state: TextState) -> TextState:
    tracking = game.num_quests[...] > 0
    required = game.q_completable[...] & ~game.q_optional[...]
    score = jnp.sum(game.q_reward[...] * state.completions.astype(jnp.float32))
    won = tracking & jnp.all(state.q_completed | ~required)
    lost = tracking & jnp.any((state.q_failed | state.q_unfinishable) & ~game.q_optional[...])
    return state.replace(score=score, won=won, lost=lost, done=won | lost)


def needed_words(game: TextGame, facts: jnp.ndarray) -> jnp.ndarray:
    """uint32[N, W]: the steps each plan (of event ``plan_event``) still needs in ``facts`` (bool[F]),
    step k in bit k % 32 of word k // 32.

    Going backwards over a plan, a step is needed when it adds a fact that is false and that its
    event's condition or a later needed step reads (``plan_goal``, ``plan_readers``). Before the
    backward pass, each step's missing facts are folded into whether its event reads one, and into
    one bit set of the later steps that read one; the pass then reads one word pair per step.
    """
    steps, words = game.plan_add.shape[1], game.plan_readers.shape[-1]
    add = game.plan_add[:]
    missing = (add >= 0) & ~facts[jnp.maximum(add, 0)]  # [N, S, A2]
    goal = jnp.any(missing & game.plan_goal[:], axis=-1)  # [N, S]
    readers = jnp.where(missing[..., None], game.plan_readers[:], jnp.uint32(0))  # [N, S, A2, W]
    reach = readers[:, :, 0]
    for a in range(1, readers.shape[2]):
        reach = reach | readers[:, :, a]  # [N, S, W]: the later steps that read a missing fact of step k
    word_of = jnp.arange(words)

    def back(needed, step):  # needed: uint32[N, W]
        wanted, later, k = step
        now = wanted | jnp.any((later & needed) != 0, axis=-1)  # [N]
        bit = jnp.where(word_of == k // 32, jnp.uint32(1) << (k % 32).astype(jnp.uint32), jnp.uint32(0))
        return needed | jnp.where(now[:, None], bit[None, :], jnp.uint32(0)), None

    backwards = (jnp.moveaxis(goal, 1, 0)[::-1], jnp.moveaxis(reach, 1, 0)[::-1], jnp.arange(steps)[::-1])
    return jax.lax.scan(back, jnp.zeros((add.shape[0], words), jnp.uint32), backwards)[0]


def needs_any(game: TextGame, facts: jnp.ndarray, gone: jnp.ndarray) -> jnp.ndarray:
    """bool[E]: some fact of ``gone`` (int32[D], -1 pads) is still needed by the event in ``facts``
    (bool[F]): it is in the event's condition or a precondition of a step its plan still needs
    (false for events without a plan: they cannot become unfinishable). The steps that read a gone
    fact are packed into words and met with ``needed_words``."""
    event, words = game.plan_event[:], game.plan_readers.shape[-1]

    def reads_gone(ids):  # bool[...]: a row of fact ids (-1 pads) names a fact of ``gone``
        return jnp.any((ids[..., None] == gone) & (ids[..., None] >= 0), axis=(-2, -1))

    steps_reading = packed_words(reads_gone(game.plan_pre[:]), spare=False)  # [N, ceil(S / 32)]
    steps_reading = jnp.pad(steps_reading, ((0, 0), (0, words - steps_reading.shape[-1])))
    hit = reads_gone(game.ev_facts[jnp.maximum(event, 0)]) | jnp.any(
        (steps_reading & needed_words(game, facts)) != 0, axis=-1)
    e = game.ev_facts.shape[0]
    return jnp.zeros(e, bool).at[jnp.where(event >= 0, event, e)].max(hit, mode="drop")


def update_quests(game: TextGame, state: TextState, broken: jnp.ndarray) -> TextState:
    """Check the quests of ``state`` after an action (or at the start).

    broken: bool[E] events whose needed facts an irreversible action just
    deleted (all false at the start). Returns the state with quests,
    completions, score, won, lost and done updated.
    """
    q_done = state.q_completed | state.q_failed | state.q_unfinishable
    active = ~q_done[game.ev_quest[...]] & ~state.ev_dead
    holds = game.ev_possible[...] & jnp.all(_gather(state.facts, game.ev_facts[...], True), axis=-1)
    triggered = active & holds
    dead = active & ~holds & game.ev_tracked[...] & broken
    win_q = _any_per_quest(game, triggered & game.ev_win[...])
    fail_q = _any_per_quest(game, triggered & ~game.ev_win[...])
    unfinishable_q = _any_per_quest(game, dead & game.ev_win[...])
    completions = state.completions + win_q.astype(jnp.int32)
    state = state.replace(
        q_completed=(state.q_completed | win_q) & ~game.q_repeatable[...],
        q_failed=state.q_failed | fail_q,
        q_unfinishable=state.q_unfinishable | unfinishable_q,
        ev_dead=state.ev_dead | dead,
        completions=completions,
    )
    return _outcome(game, state)


def initial_state(game: TextGame, key: jax.Array, game_index=0) -> TextState:
    """The start of a game: initial facts, quests checked once, zero moves."""
    q, e = game.q_reward.shape[-1], game.ev_quest.shape[-1]
    state = TextState(
        facts=game.init_facts[...], q_completed=jnp.zeros(q, bool), q_failed=jnp.zeros(q, bool),
        q_unfinishable=jnp.zeros(q, bool), ev_dead=jnp.zeros(e, bool), completions=jnp.zeros(q, jnp.int32),
        score=jnp.float32(0.0), moves=jnp.int32(0), steps=jnp.int32(0), won=jnp.bool_(False),
        lost=jnp.bool_(False), done=jnp.bool_(False), game_index=jnp.asarray(game_index, jnp.int32), key=key,
        last_command=jnp.int32(-1), last_action=jnp.int32(-1), just_ended=jnp.bool_(False),
        last_reward=jnp.float32(0.0),
        policy=policies.start(game), intermediate_reward=jnp.float32(0.0))
    return update_quests(game, state, jnp.zeros(e, bool))


def step(game: TextGame, state: TextState, command_id, span_width=None, track_policy: bool = True,
         irreversible: bool = True) -> tuple:
    """Play command ``command_id`` (int32[], an index into the command table).

    span_width: optional static bound on the command spans (``widest_span``),
    which makes finding the played action cheaper. track_policy: static; when
    False the winning policy is not followed (``state.policy`` keeps its value
    and ``intermediate_reward`` stays 0), which spares its cost to an env that
    observes neither. irreversible: static; False when no action of the game
    (or bank) is irreversible (``has_irreversible``), so no plan can break and
    that check is skipped.

    Returns ``(state, reward float32[])`` with reward the score change. An
    inadmissible or out-of-range command changes nothing but ``steps`` and
    what to narrate (``last_command``, ``last_action``, ``just_ended``). The
    game keeps being played after it is won or lost, as TextWorld does
    (``TextEnv`` stops at the end of an episode instead).
    """
    command_id = jnp.asarray(command_id, jnp.int32)
    valid, g = chosen_action(game, state.facts, command_id, span_width)
    f = state.facts.shape[-1]
    dels = jnp.where(game.act_del[g] >= 0, game.act_del[g], f)
    adds = jnp.where(game.act_add[g] >= 0, game.act_add[g], f)
    deleted = jnp.zeros(f, bool).at[dels].set(True, mode="drop") & valid
    added = jnp.zeros(f, bool).at[adds].set(True, mode="drop") & valid
    facts = (state.facts & ~deleted) | added
    open_quests = ~(state.q_completed | state.q_failed | state.q_unfinishable)
    after = state.replace(facts=facts, moves=state.moves + 1)
    if track_policy:
        after = after.replace(policy=policies.advance(game, state.policy, g, facts, open_quests))

    def unbroken(*_):
        return jnp.zeros(game.ev_facts.shape[0], bool)

    # what the plan still needs after the action (a plan step the action just did is no longer needed,
    # as TextWorld removes it from its tree before pushing the action's inverse); only an irreversible
    # action (a few in a hundred steps) can break a plan, so a batch computes it for those rows alone,
    # in one block of 1/32 of the batch (a random agent on tw-cooking plays one in 1.65% of its steps)
    played = valid & game.act_irreversible[g]
    broken = (where_rows(played, needs_any, unbroken, (game, facts, jnp.where(played, game.act_del[g], -1)),
                         shares=(32,)) if irreversible else unbroken())
    after = update_quests(game, after, broken)
    new = select_tree(valid, after, state)
    new = new.replace(steps=state.steps + 1, last_command=command_id, last_action=jnp.where(valid, g, -1),
                      just_ended=(new.won | new.lost) & ~(state.won | state.lost),
                      last_reward=(new.score - state.score).astype(jnp.float32),
                      intermediate_reward=(policies.intermediate_reward(state.policy, new.policy, new.won, new.lost)
                                           if track_policy else jnp.float32(0.0)))
    return new, new.score - state.score

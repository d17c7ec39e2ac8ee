"""The winning policy and the intermediate reward, as TextWorld reports them
(``EnvInfos.policy_commands``, ``intermediate_reward``): pure jnp, fixed shapes.

The policy is the list of actions still to play to win. It starts as the
walkthrough and follows play as TextWorld's quest progressions do. After an
applied action g, the first that applies of:

1. *compression*: when a shorter suffix of the policy can be played from
   the new facts (each action's preconditions hold when its turn comes, and
   at the end the goal holds: the winning conditions of the required quests
   not yet done), the shortest such suffix is the policy (a shortcut, or
   coming back after a detour);
2. *pop*: g is the policy's first action: it is done;
3. *push*: g's reverse action (``TextGame.act_reverse``: going back the way
   g went, putting back what g took) adds a fact that the policy reads (an
   action's precondition, or the goal) and that no earlier action of the
   policy provides (g itself aside, when it is a leaf, below): the reverse
   goes in front (going the wrong way pushes the way back);
4. *leaf*: g is in the policy and none of its preconditions is provided by
   an earlier action of the policy (a leaf of TextWorld's dependency tree):
   it is done early and leaves the policy.

Anything else leaves it unchanged (taking a distractor whose reverse no
action needs). An irreversible action that destroys what the policy needs
makes the game lost (``kernel.needs_any``), and then there is no policy.
``intermediate_reward`` is +1 on steps where the game is won, -1 where it
is lost, otherwise the sign of how much shorter the policy became (0 at
the start and after a command that did not apply).

Differences from TextWorld, which keeps a dependency tree of each quest
event's actions and flattens it into a list: its policy comes from the
quests' action plans (here: the walkthrough, which TextWorld's generators
make from the same plans; a quest without a plan gives TextWorld no policy
at all); its compression also drops infixes, not only prefixes, and also
runs at the start; flattening orders actions that do not depend on each
other by its own rules, which can differ from the walkthrough's order after
a compression or a push (for instance a reverse action needed only late in
the policy goes just before that action, not in front). Along walkthroughs
with detours that come back, policies and intermediate rewards agree
exactly on games of TextWorld's generators; along random walks about 98-99%
of steps agree (see ``tests/test_text_policy.py``).

Layout: the policy lives in positions ``[head, L)`` of an int32[L] array
(``TextGame.pol_init``: the walkthrough in the last positions); positions
never move: a pop or a compression raises ``head``, a push writes position
``head - 1`` (a push with no position left is dropped), a leaf leaves a
hole (-1). Row L stands for the goal. For every fact each position reads,
:class:`Policy` keeps the latest earlier position that touches it and
whether it adds it, so which suffixes can be played is a few vector
operations over the L + 1 rows, without simulating them.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxlab.levels.text.compiled_game import TextGame

@struct.dataclass
class Policy:
    """The winning policy being followed (positions ``[head, L)``; row L: the goal).

    actions: int32[L] grounded actions (the policy's from ``head`` on; -1: a hole).
    head:    int32[]  the first position of the policy, which holds an action (L: empty).
    src:     int32[L + 1, W] for each fact each row reads, the latest earlier
             position touching it (none if below ``head`` or a hole, or -1).
    adds:    bool[L + 1, W] whether that position's action adds the fact.
    """

    actions: jnp.ndarray
    head: jnp.ndarray
    src: jnp.ndarray
    adds: jnp.ndarray

    @property
    def length(self) -> jnp.ndarray:
        """int32[]: the number of actions in the policy."""
        return jnp.sum(_live(self)).astype(jnp.int32)


def start(game: TextGame) -> Policy:
    """The policy at the start of ``game``: its walkthrough."""
    size = game.pol_init.shape[-1]
    back = game.pol_src[...]
    rows = jnp.arange(size + 1)[:, None]
    actions = game.pol_init[...]
    return Policy(actions=actions, head=jnp.int32(size) - jnp.sum(actions >= 0).astype(jnp.int32),
                  src=jnp.where(back > 0, rows - back, -1), adds=game.pol_adds[...])


def _live(policy: Policy) -> jnp.ndarray:
    """bool[L]: the positions that hold an action of the policy."""
    return (jnp.arange(policy.actions.shape[-1]) >= policy.head) & (policy.actions >= 0)


def _reads(game: TextGame, policy: Policy, open_quests: jnp.ndarray) -> jnp.ndarray:
    """int32[L + 1, W]: the facts each row reads (-1: none; rows that hold no action read none, and
    the goal only the conditions of ``open_quests``, bool[Q])."""
    width = policy.src.shape[-1]
    pre = jnp.where(_live(policy)[:, None], game.act_pre[jnp.maximum(policy.actions, 0)], -1)
    quest = game.pol_goal_quest[:]
    goal = jnp.where((quest >= 0) & open_quests[jnp.maximum(quest, 0)], game.pol_goal[:], -1)[None, :]
    return jnp.concatenate([jnp.pad(pre, ((0, 0), (0, width - pre.shape[1])), constant_values=-1),
                            jnp.pad(goal, ((0, 0), (0, width - goal.shape[1])), constant_values=-1)])


def _among(reads: jnp.ndarray, facts: jnp.ndarray) -> jnp.ndarray:
    """bool[L + 1, W]: which reads are one of ``facts`` (int32[N], -1 pads)."""
    return jnp.any((reads[..., None] == facts) & (facts >= 0), axis=-1) & (reads >= 0)


def advance(game: TextGame, policy: Policy, action, facts: jnp.ndarray, open_quests: jnp.ndarray) -> Policy:
    """The policy after grounded action ``action`` (int32[]) was applied, giving ``facts`` (bool[F]),
    while the quests ``open_quests`` (bool[Q]) were neither completed, failed nor unfinishable."""
    size = policy.actions.shape[-1]
    reads = _reads(game, policy, open_quests)
    known = reads >= 0
    rows = jnp.arange(size + 1)
    live = _live(policy)
    # The latest earlier toucher of each read, if it is still in the policy (else -1).
    kept = (policy.src >= policy.head) & jnp.append(live, False)[jnp.maximum(policy.src, 0)]
    src = jnp.where(kept, policy.src, -1)
    provided = kept & policy.adds
    # 1. The suffix from position i fails when a read's latest toucher at or after i deletes it, or
    #    when a read at or after i is false now and no toucher lies between i and it.
    spoiled = jnp.max(jnp.where(known & ~policy.adds, src, -1))
    missing = jnp.min(jnp.where(known & ~facts[jnp.maximum(reads, 0)], src, size + 1), axis=1)
    suffix_min = jax.lax.associative_scan(jnp.minimum, missing, reverse=True)  # cheaper than cummin on the CPU
    playable = (suffix_min >= rows) & (rows > spoiled) & (rows > policy.head)
    shortest = jnp.max(jnp.where(playable, rows, -1))
    compressed = shortest > policy.head
    # 2. The first action was played (`head` always holds an action, or is L).
    found = live & (policy.actions == action)
    at = jnp.argmax(found)
    pop = ~compressed & jnp.any(found) & (at == policy.head)
    # 3. The reverse action gives back a fact the policy needs: it adds what `action` deleted (and
    #    deletes what it added).
    leaf = jnp.any(found) & ~jnp.any(provided[at])
    reverse = game.act_reverse[action]
    gives = _among(reads, game.act_del[action])
    needs = gives & ~provided & (~leaf | (rows != at))[:, None]
    push = ~compressed & ~pop & (reverse >= 0) & (policy.head > 0) & jnp.any(needs)
    front = policy.head - 1
    touched = gives | _among(reads, game.act_add[action])
    # 4. A leaf was played early.
    early = ~compressed & ~pop & ~push & leaf
    position = jnp.arange(size)  # writes as selects: cheaper than scatters on the CPU
    actions = jnp.where(push & (position == front), reverse,
                        jnp.where(early & (position == at), -1, policy.actions))
    head = jnp.select([compressed, pop, push], [shortest, policy.head + 1, front], policy.head)
    head = jnp.min(jnp.where((position >= head) & (actions >= 0), position, size))
    return Policy(actions=actions, head=head.astype(jnp.int32),
                  src=jnp.where(push, jnp.where(kept, policy.src, jnp.where(touched, front, -1)), policy.src),
                  adds=jnp.where(push & ~kept, gives, policy.adds))


def commands(game: TextGame, policy: Policy) -> jnp.ndarray:
    """int32[L]: the command ids of the policy's actions, first first (-1 pads)."""
    live = _live(policy)
    rank = jnp.where(live, jnp.cumsum(live) - 1, live.shape[-1])
    ids = game.act_cmd[jnp.maximum(policy.actions, 0)]
    return jnp.full(live.shape, -1, jnp.int32).at[rank].set(ids, mode="drop")


def intermediate_reward(before: Policy, after: Policy, won, lost) -> jnp.ndarray:
    """float32[]: +1 if ``won``, -1 if ``lost``, else the sign of how much shorter ``after`` is than ``before``."""
    shorter = jnp.sign(before.length - after.length).astype(jnp.float32)
    return jnp.where(won, 1.0, jnp.where(lost, -1.0, shorter)).astype(jnp.float32)

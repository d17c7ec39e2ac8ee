"""Grounding: a logic, a world's facts and its quests compiled into a :class:`TextGame`.

Every rule is instantiated over type-correct entity assignments (an entity
fits a placeholder when its type is the placeholder's type or below it;
distinct placeholders take distinct entities; the constant types ``P`` and
``I`` bind to the entities of the same name), exactly the instances TextWorld
could ever find applicable. Instances are pruned with the facts that never
change: a fact is *dynamic* when some rule adds or deletes a predicate of its
name whose types fit its entities' types; any other fact keeps its initial
truth, so a false one kills the instance and a true one is dropped from its
preconditions. The fact vector holds the facts some instance adds or deletes.

Command texts are the rules' Inform 7 templates with entity names, as
TextWorld prints them; instances sharing a text form one command (the first
applicable in rule-name order is the one played, as TextWorld picks the first
action whose text matches).
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy as np

from jaxlab.levels.text.compiled_game import GameInfo, TextGame, silent_text
from jaxlab.levels.text.logic_text import Logic, Placeholder, Predicate, Rule
from jaxlab.levels.text.policy_tables import compile_policy

Fact = Tuple[str, Tuple[str, ...]]  # (predicate name, entity ids)


@dataclasses.dataclass(frozen=True)
class EventSpec:
    """A quest event: its ``condition`` facts all true.

    ``plan``: the actions recorded with the event, in order, each as
    (precondition facts, added facts); empty for a condition-only event.
    """

    condition: Tuple[Fact, ...]
    plan: Tuple[Tuple[Tuple[Fact, ...], Tuple[Fact, ...]], ...] = ()


@dataclasses.dataclass(frozen=True)
class QuestSpec:
    """A quest: any winning event completes it, any failing event fails it."""

    win_events: Tuple[EventSpec, ...]
    fail_events: Tuple[EventSpec, ...] = ()
    reward: float = 1.0
    optional: bool = False
    repeatable: bool = False


class GroundingError(ValueError):
    """The world cannot be compiled with its logic (unknown rule template, bad facts)."""


@functools.lru_cache(maxsize=1 << 16)
def fact_text(fact: Fact) -> str:
    """``"name(a, b)"`` for a fact."""
    return f"{fact[0]}({', '.join(fact[1])})"


class _Grounder:
    def __init__(self, logic: Logic, init: Set[Fact], types: Dict[str, str]):
        self.logic, self.init, self.types = logic, init, types
        self.sub = {t: set(logic.subtypes(t)) for t in logic.types}
        self.changed = {(p.name, p.signature[1]) for r in logic.rules.values() for p in r.added | r.removed}
        self.constants = {e for e, t in types.items() if Logic.is_constant(t)}
        self.by_type = {t: sorted(e for e, et in types.items() if et in self.sub[t] and e not in self.constants)
                        for t in logic.types}
        self.by_name: Dict[str, List[Fact]] = {}
        for f in sorted(init):
            self.by_name.setdefault(f[0], []).append(f)
        self._dyn: Dict[tuple, bool] = {}
        self._dyn_fact: Dict[Fact, bool] = {}

    def dynamic(self, fact: Fact) -> bool:
        """Some rule can add or delete facts of this predicate over these entities' types."""
        known = self._dyn_fact.get(fact)
        if known is None:
            known = self._dyn_fact[fact] = self._dynamic_types(fact)
        return known

    def _dynamic_types(self, fact: Fact) -> bool:
        key = (fact[0], tuple(self.types.get(a, "") for a in fact[1]))
        if key not in self._dyn:
            self._dyn[key] = any(name == key[0] and len(ts) == len(key[1])
                                 and all(et in self.sub.get(t, ()) for et, t in zip(key[1], ts))
                                 for name, ts in self.changed)
        return self._dyn[key]

    def may_change(self, pred: Predicate) -> bool:
        return any(name == pred.name and len(ts) == len(pred.params)
                   and all(self.sub[p.type] & self.sub.get(t, set()) for p, t in zip(pred.params, ts))
                   for name, ts in self.changed)

    def fits(self, entity: str, ph: Placeholder) -> bool:
        return self.types.get(entity) in self.sub[ph.type]

    def ground(self, rule: Rule) -> List[Dict[Placeholder, str]]:
        binding: Dict[Placeholder, str] = {}
        for ph in rule.placeholders:
            if Logic.is_constant(ph.type):
                if ph.name != ph.type:
                    return []  # the single entity of a constant type is taken by its own placeholder
                binding[ph] = ph.type
        order = sorted(rule.pre, key=lambda p: self.may_change(p))  # never-changing ones bind first
        out: List[Dict[Placeholder, str]] = []
        self._search(rule, order, 0, binding, set(self.constants), out)
        return out

    def _search(self, rule, order, i, binding, used, out) -> None:
        if i == len(order):
            free = [ph for ph in rule.placeholders if ph not in binding]
            for combo in itertools.product(*(self.by_type[ph.type] for ph in free)):
                if len(set(combo)) == len(combo) and not used.intersection(combo):
                    out.append({**binding, **dict(zip(free, combo))})
            return
        pred = order[i]
        unbound = list(dict.fromkeys(p for p in pred.params if p not in binding))
        if not unbound:
            fact = (pred.name, tuple(binding[p] for p in pred.params))
            if self.dynamic(fact) or fact in self.init:
                self._search(rule, order, i + 1, binding, used, out)
            return
        for fact in self.by_name.get(pred.name, ()):  # facts that never change
            if len(fact[1]) != len(pred.params) or self.dynamic(fact):
                continue
            new = self._extend(pred, fact[1], binding, used)
            if new is not None:
                self._search(rule, order, i + 1, new, used | set(new.values()), out)
        if self.may_change(pred):  # facts that may become true
            for combo in itertools.product(*(self.by_type[p.type] for p in unbound)):
                if len(set(combo)) != len(combo) or used.intersection(combo):
                    continue
                new = {**binding, **dict(zip(unbound, combo))}
                if self.dynamic((pred.name, tuple(new[p] for p in pred.params))):
                    self._search(rule, order, i + 1, new, used | set(combo), out)

    def _extend(self, pred: Predicate, args, binding, used) -> Optional[Dict[Placeholder, str]]:
        new = dict(binding)
        for ph, ent in zip(pred.params, args):
            if ph in new:
                if new[ph] != ent:
                    return None
            elif ent in used or ent in new.values() or not self.fits(ent, ph):
                return None
            else:
                new[ph] = ent
        return new


def _command_text(template: str, rule: Rule, binding: Dict[Placeholder, str], names) -> str:
    by_name = {ph.name: binding[ph] for ph in binding}

    def sub(m):
        key = m.group(1)
        if key not in by_name:
            raise GroundingError(f"rule {rule.name!r}: command template {template!r} names unknown placeholder {key!r}")
        return str(names.get(by_name[key], by_name[key]))

    return re.sub(r"\{([^{}]*)\}", sub, template)


def index_array(rows: Sequence[Sequence[int]], width_min: int = 1) -> np.ndarray:
    """int32[max(len(rows), 1), width]: the rows of indices, padded with -1."""
    width = max([width_min] + [len(r) for r in rows])
    out = np.full((max(len(rows), 1), width), -1, np.int32)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def _plan_arrays(plans) -> Tuple[np.ndarray, np.ndarray]:
    """int32[E, S, P2] and int32[E, S, A2] (-1 pads) from per-event lists of (pre, add) index lists."""
    e = max(len(plans), 1)
    s = max([1] + [len(p) for p in plans])
    widths = [max([1] + [len(step[k]) for p in plans for step in p]) for k in (0, 1)]
    out = [np.full((e, s, w), -1, np.int32) for w in widths]
    for i, plan in enumerate(plans):
        for j, step in enumerate(plan):
            for k in (0, 1):
                out[k][i, j, :len(step[k])] = step[k]
    return out[0], out[1]


def plan_links(ev_facts: np.ndarray, plan_pre: np.ndarray, plan_add: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """How each plan step's added facts serve its event, for ``kernel.needed_words``.

    ev_facts: int32[N, C] the condition of each plan's event; plan_pre:
    int32[N, S, P2]; plan_add: int32[N, S, A2] (-1 pads). Returns
    ``plan_readers`` uint32[N, S, A2, W] (W = ceil(S / 32)): bit j of the fact
    that step i adds in slot a (bit j % 32 of word j // 32) is set when the
    later step j reads it (has it as a precondition); and ``plan_goal``
    bool[N, S, A2]: it is in the event's condition.
    """
    steps = plan_pre.shape[1]
    add = plan_add[:, :, :, None, None]
    later = np.arange(steps)[None, :] > np.arange(steps)[:, None]  # [i, j]: j after i
    feeds = np.any((add == plan_pre[:, None, None, :, :]) & (add >= 0), axis=-1) & later[None, :, None, :]
    words = max(-(-steps // 32), 1)
    padded = np.zeros(feeds.shape[:3] + (32 * words,), bool)
    padded[..., :steps] = feeds
    bits = padded.reshape(feeds.shape[:3] + (words, 32)).astype(np.uint64) << np.arange(32, dtype=np.uint64)
    readers = bits.sum(axis=-1).astype(np.uint32)
    goal = np.any((plan_add[:, :, :, None] == ev_facts[:, None, None, :]) & (plan_add[:, :, :, None] >= 0), axis=-1)
    return readers, goal


def ground_world(logic: Logic, facts: Iterable[Fact], quests: Sequence[QuestSpec],
                  entity_types: Dict[str, str], entity_names: Dict[str, Optional[str]],
                  walkthrough: Sequence[str] = ()) -> Tuple[TextGame, GameInfo]:
    """Ground ``logic`` over a world and compile it with its quests.

    Args:
      logic: the parsed game logic.
      facts: the initial facts ``(predicate, entity ids)``.
      quests: the quests, in the game's order.
      entity_types: entity id -> type name.
      entity_names: entity id -> display name used in command texts.
      walkthrough: commands that win; the winning policy starts as their
        actions (``policy_tables.compile_policy``; none without).

    Returns ``(game, info)``: a TextGame with F facts, G grounded actions, K
    commands, E events and Q quests (each axis at least 1; padding is inert)
    with its winning policy, that says nothing (``game.silent_text``;
    ``world.compile_spec`` adds the text), and the host-side GameInfo
    (commands sorted, ``info.path`` empty).
    Raises GroundingError when a rule with instances has no command template.
    """
    init = set(facts)
    entity_types = dict(entity_types)
    for t in logic.types:  # constant types always have their one entity, as in TextWorld
        if Logic.is_constant(t):
            entity_types.setdefault(t, t)
    grounder = _Grounder(logic, init, entity_types)
    raw = []  # (rule name, args, pre, add, del, text)
    for name in sorted(logic.rules):
        rule = logic.rules[name]
        bindings = grounder.ground(rule)
        if bindings and name not in logic.commands:
            raise GroundingError(f"rule {name!r} has no command template (inform7 commands block)")
        for b in sorted(bindings, key=lambda b: tuple(b[ph] for ph in rule.placeholders)):
            pre = [(p.name, tuple(b[x] for x in p.params)) for p in rule.pre]
            post = [(p.name, tuple(b[x] for x in p.params)) for p in rule.post]
            pre_d, post_d = dict.fromkeys(pre), dict.fromkeys(post)
            raw.append((name, tuple(b[ph] for ph in rule.placeholders),
                        [f for f in pre_d if grounder.dynamic(f)],
                        [f for f in post_d if f not in pre_d], [f for f in pre_d if f not in post_d],
                        _command_text(logic.commands[name], rule, b, entity_names)))
    changing = sorted({f for a in raw for f in a[3] + a[4]})
    index = {f: i for i, f in enumerate(changing)}
    acts = [a for a in raw if all(f in index or f in init for f in a[2])]  # drop never-true instances
    commands = sorted({a[5] for a in acts})
    cmd_id = {c: i for i, c in enumerate(commands)}
    # Group the actions by command. Inside a command the first applicable one is played: the one with
    # the most preconditions, as TextWorld decides which of several actions a command played (its
    # Inform7 tracker's detect_action; tw-cooking's "prepare meal" of a 3-ingredient recipe is
    # make/recipe/3, which uses all three, not make/recipe/1), then rule order.
    acts.sort(key=lambda a: (cmd_id[a[5]], -len(logic.rules[a[0]].pre)))
    spans = np.zeros((max(len(commands), 1), 2), np.int32)
    for g, a in enumerate(acts):
        c = cmd_id[a[5]]
        spans[c, 0] = g if spans[c, 1] == 0 else spans[c, 0]
        spans[c, 1] = g + 1
    pre_rows = [[index[f] for f in a[2] if f in index] for a in acts]
    by_effect = {}  # (rule, adds, deletes, entities) -> first such action
    for g, a in enumerate(acts):
        by_effect.setdefault((a[0], frozenset(a[3]), frozenset(a[4]), frozenset(a[1])), g)
    reverse = [by_effect.get((logic.reverse_rules.get(a[0]), frozenset(a[4]), frozenset(a[3]), frozenset(a[1])), -1)
               for a in acts]

    events, ev_quest, ev_win, ev_possible, ev_tracked, plans = [], [], [], [], [], []
    for q, quest in enumerate(quests):
        for win, group in ((True, quest.win_events), (False, quest.fail_events)):
            for ev in group:
                events.append([index[f] for f in dict.fromkeys(ev.condition) if f in index])
                ev_possible.append(all(f in index or f in init for f in ev.condition))
                ev_quest.append(q)
                ev_win.append(win)
                ev_tracked.append(bool(ev.plan))
                plans.append([([index[f] for f in pre if f in index], [index[f] for f in add if f in index])
                              for pre, add in ev.plan])
    num_f = max(len(changing), 1)
    if not any(a[0] not in logic.reverse_rules for a in acts):
        plans = [[] for _ in plans]  # plans only matter to irreversible actions; keep the arrays small
    planned = [e for e, plan in enumerate(plans) if plan]  # only events with a plan can become unfinishable
    plan_pre, plan_add = _plan_arrays([plans[e] for e in planned])
    plan_readers, plan_goal = plan_links(index_array([events[e] for e in planned]), plan_pre, plan_add)
    init_facts = np.zeros(num_f, bool)
    init_facts[[index[f] for f in changing if f in init]] = True

    def pad_q(values, dtype, fill):
        return np.array(list(values) + [fill] * (len(quests) == 0), dtype)

    rewards = [float(q.reward) for q in quests]
    if any(q.repeatable and q.reward > 0 for q in quests):
        max_score = float("inf")
    else:
        max_score = float(sum(q.reward for q in quests if not q.optional or q.reward > 0))
    game = TextGame(
        init_facts=init_facts,
        act_pre=index_array(pre_rows),
        act_add=index_array([[index[f] for f in a[3]] for a in acts]),
        act_del=index_array([[index[f] for f in a[4]] for a in acts]),
        act_cmd=np.array([cmd_id[a[5]] for a in acts] or [-1], np.int32),
        act_irreversible=np.array([a[0] not in logic.reverse_rules for a in acts] or [False]),
        act_reverse=np.array(reverse or [-1], np.int32),
        ev_facts=index_array(events),
        ev_possible=np.array(ev_possible or [False]),
        ev_quest=np.array(ev_quest or [0], np.int32),
        ev_win=np.array(ev_win or [False]),
        ev_tracked=np.array(ev_tracked or [False]),
        plan_pre=plan_pre,
        plan_add=plan_add,
        plan_readers=plan_readers,
        plan_event=np.array(planned or [-1], np.int32),
        plan_goal=plan_goal,
        q_reward=pad_q(rewards, np.float32, 0.0),
        q_optional=pad_q([q.optional for q in quests], bool, True),
        q_repeatable=pad_q([q.repeatable for q in quests], bool, False),
        q_completable=pad_q([len(q.win_events) > 0 for q in quests], bool, False),
        max_score=np.float32(max_score),
        num_quests=np.int32(len(quests)),
        cmd_valid=np.arange(max(len(commands), 1)) < len(commands),
        cmd_span=spans,
        **silent_text(max(len(acts), 1), max(len(commands), 1)),
        # the policy's fields are set just below, from the compiled actions
        **{name: np.zeros(0, np.int32) for name in ("pol_init", "pol_goal", "pol_goal_quest", "pol_src", "pol_adds")},
    )
    game = game.replace(**compile_policy(game, [cmd_id.get(c.strip(), -1) for c in walkthrough]))
    info = GameInfo(commands=tuple(commands), facts=tuple(fact_text(f) for f in changing),
                    actions=tuple((a[0], a[1]) for a in acts), entity_names=dict(entity_names))
    return game, info

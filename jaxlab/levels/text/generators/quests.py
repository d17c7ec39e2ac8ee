"""Quests from a played walkthrough, in TextWorld's shapes.

TextWorld states a quest's goal as the postconditions of its last action
and records the actions that reach it (the event's plan); a failing event
is a bare condition. Intermediate rewards (``tw-simple``'s dense and
balanced settings) are quests whose goal is the main effect of one step of
the walkthrough, each with the walkthrough up to that step as its plan.
"""
from __future__ import annotations

from typing import Iterable, List, Sequence, Tuple

from jaxlab.levels.text.generators.plays import Act, PlanStep, Walker, added, ground
from jaxlab.levels.text.grounding import EventSpec, Fact, QuestSpec
from jaxlab.levels.text.logic_text import Logic


def goal_of(logic: Logic, act: Act) -> Tuple[Fact, ...]:
    """TextWorld's goal for a quest that ends with ``act``: all of its postconditions."""
    return ground(logic, act)[1]


def effect_of(logic: Logic, act: Act) -> Fact:
    """The main effect of ``act``: the first fact it makes true (``open(d)`` for opening a door)."""
    facts = added(logic, act)
    if not facts:
        raise ValueError(f"{act.rule} changes nothing")
    return facts[0]


def win_quest(condition: Iterable[Fact], plan: Sequence[PlanStep] = (), reward: float = 1.0,
              fails: Sequence[Iterable[Fact]] = ()) -> QuestSpec:
    """A quest won when every fact of ``condition`` holds, with ``plan`` as its recorded actions;
    lost when every fact of one of the ``fails`` conditions holds."""
    return QuestSpec(win_events=(EventSpec(tuple(condition), tuple(plan)),),
                     fail_events=tuple(EventSpec(tuple(c)) for c in fails), reward=reward)


def fail_quest(condition: Iterable[Fact]) -> QuestSpec:
    """A zero-reward quest that is lost when every fact of ``condition`` holds (nothing to win)."""
    return QuestSpec(win_events=(), fail_events=(EventSpec(tuple(condition)),), reward=0.0)


def step_quests(walker: Walker, steps: Iterable[int]) -> List[QuestSpec]:
    """One quest per chosen walkthrough step (indices into ``walker.acts``), goal = the step's main effect.

    A step whose effect held at the start, or is already the goal of an
    earlier quest (walking into a room a second time), gets no quest, as in
    TextWorld. Each quest's plan is the walkthrough up to its step.
    """
    plan = walker.plan()
    start = walker.states[0]
    seen = set()
    out = []
    for i in sorted(set(steps)):
        fact = effect_of(walker.logic, walker.acts[i])
        if fact in start or fact in seen:
            continue
        seen.add(fact)
        out.append(win_quest((fact,), plan[:i + 1]))
    return out

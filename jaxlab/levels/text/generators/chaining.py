"""Quest chaining: choose how a quest ends, then chain backwards to where it starts.

As TextWorld does for its custom games, the quest decides the initial state:

1. A short random walk from the built world sets the scene (the player
   wanders about, opens things, picks some up): the end state.
2. The quest's last act moves an object (take, put, insert, drop) and could
   just have happened in that state; its postconditions are the goal.
3. Going backwards, each earlier step must make true a fact that a later
   act (or the goal) needs, and lead through states not met yet; the step
   is undone and the state before it becomes the current one. A step is
   one act, or a walk: the moves along a shortest way from some room to
   the room the player needs to be in (two walks never follow each other).

Once the acts number ``length``, the current state is the game's initial
state and the acts, in forward order, its walkthrough: every act is needed
by construction. Within one chain an object is picked up at most once and
put down at most once. A quest of several parts is chained from its last
part to its first; an earlier part's goal must not be undone by a later one.
"""
from __future__ import annotations

from collections import deque
from typing import Collection, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from jaxlab.levels.text.generators.plays import COMPASS_FACTS, Act, added, applicable, ground
from jaxlab.levels.text.grounding import Fact
from jaxlab.levels.text.logic_text import Logic

#: rules a quest may use
MIDDLE_RULES = ("go/north", "go/south", "go/east", "go/west", "open/c", "open/d", "unlock/c", "unlock/d",
                "take", "take/c", "take/s", "put", "insert", "drop")
#: rules a quest (or a part of one) may end with
FINAL_RULES = ("take", "take/c", "take/s", "put", "insert", "drop")
TAKE_RULES = ("take", "take/c", "take/s")
PLACE_RULES = ("drop", "put", "insert")
WANDER_STEPS = 8
SEARCH_BUDGET = 200  # chain states expanded per attempt

State = FrozenSet[Fact]
Step = Tuple[Act, ...]  # one act, or the moves of a walk


def before(logic: Logic, state: State, act: Act) -> Optional[State]:
    """The state ``act`` was played in if it could have produced ``state``; None if it could not."""
    pre, post = ground(logic, act)
    gone = set(pre) - set(post)
    if not state.issuperset(post) or gone & state:
        return None
    return (state - frozenset(added(logic, act))) | frozenset(pre)


def replay(logic: Logic, start: Collection[Fact], acts: Sequence[Act]) -> Optional[List[State]]:
    """The states before and after each of ``acts`` played from ``start``; None if one is not admissible in turn."""
    states = [frozenset(start)]
    for act in acts:
        pre, post = ground(logic, act)
        if not states[-1].issuperset(pre):
            return None
        states.append((states[-1] - frozenset(pre)) | frozenset(post))
    return states


def _order(rng: np.random.Generator, steps: Sequence[Step]) -> List[Step]:
    """``steps`` in a random order where each kind (a rule, or walking) is equally likely to come first."""
    if not steps:
        return []
    kinds = ["go" if s[0].rule.startswith("go/") else s[0].rule for s in steps]
    weights = np.array([1.0 / kinds.count(k) for k in kinds])
    return [steps[i] for i in rng.choice(len(steps), size=len(steps), replace=False, p=weights / weights.sum())]


def walks_to(state: State, room: str, longest: int) -> List[Step]:
    """Every walk of at most ``longest`` moves along a shortest free way from another room to ``room``."""
    came_from: Dict[str, Dict[str, str]] = {}  # room -> {room one can step into from it: direction}
    for name, (b, a) in ((n, args) for n, args in state if n in COMPASS_FACTS):
        if ("free", (a, b)) in state and ("free", (b, a)) in state:
            came_from.setdefault(b, {})[a] = COMPASS_FACTS[name]
    walks, paths, todo = [], {room: ()}, deque([room])
    while todo:
        cur = todo.popleft()
        if len(paths[cur]) == longest:
            continue
        for prev, direction in sorted(came_from.get(cur, {}).items()):
            if prev not in paths:
                paths[prev] = (Act.of(f"go/{direction}", {"r": prev, "r'": cur}),) + paths[cur]
                walks.append(paths[prev])
                todo.append(prev)
    return walks


def wander(logic: Logic, start: State, steps: int, rng: np.random.Generator, types) -> State:
    """The state after up to ``steps`` random admissible acts from ``start``."""
    state = start
    for _ in range(steps):
        acts = applicable(logic, state, types, MIDDLE_RULES)
        if not acts:
            break
        state = replay(logic, state, _order(rng, [(a,) for a in acts])[0])[-1]
    return state


def chain_back(logic: Logic, end: State, final: Act, length: int, rng: np.random.Generator,
               types) -> Optional[Tuple[List[Act], State]]:
    """``(acts, start)``: ``length`` acts ending with ``final`` that lead from ``start`` to ``end``, each needed.

    A depth-first search over earlier steps in random order, expanding at
    most ``SEARCH_BUDGET`` states; None if no chain is found.
    """
    budget = [SEARCH_BUDGET]
    non_moves = [r for r in MIDDLE_RULES if not r.startswith("go/")]

    def handled(act: Act, acts: Sequence[Act]) -> bool:
        for kind in (TAKE_RULES, PLACE_RULES):
            if act.rule in kind and any(a.rule in kind and a["o"] == act["o"] for a in acts):
                return True
        return False

    def undo(state: State, needed: frozenset, step: Step, seen: frozenset):
        """(states before each act of ``step``, needed facts before it), or None."""
        states = []
        for act in reversed(step):
            prior = before(logic, state, act)
            if prior is None or prior in seen or not needed.intersection(added(logic, act)):
                return None
            needed = (needed - frozenset(added(logic, act))) | frozenset(ground(logic, act)[0])
            state = prior
            states.append(state)
        return states, needed

    def extend(state: State, needed: frozenset, acts: List[Act], seen: frozenset):
        if len(acts) == length:
            return acts, state
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        steps = [(a,) for a in applicable(logic, state, types, non_moves, side="post") if not handled(a, acts)]
        if not acts[0].rule.startswith("go/"):
            here = next(args[1] for name, args in state if name == "at" and args[0] == "P")
            steps += walks_to(state, here, length - len(acts))
        for step in _order(rng, sorted(steps, key=lambda s: [(a.rule, a.binding) for a in s])):
            undone = undo(state, needed, step, seen)
            if undone is not None:
                found = extend(undone[0][-1], undone[1], list(step) + acts, seen.union(undone[0]))
                if found is not None:
                    return found
        return None

    first = before(logic, end, final)
    return extend(first, frozenset(ground(logic, final)[0]), [final], frozenset((end, first)))


def sample_quest(logic: Logic, start: Collection[Fact], parts: Sequence[int], rng: np.random.Generator,
                 types: Mapping[str, str], attempts: int = 30) -> Optional[Tuple[List[Act], Tuple[Fact, ...], State]]:
    """``(acts, goal, initial state)`` of a quest in parts of the given lengths, or None after ``attempts`` tries.

    The goal joins the parts' goals (each its last act's postconditions;
    where the player stands counts for the last part only). It holds after
    the last act and at no earlier state.
    """
    start = frozenset(start)
    for _ in range(attempts):
        state = wander(logic, start, int(rng.integers(WANDER_STEPS + 1)), rng, types)
        acts: List[Act] = []
        goal: List[Fact] = []
        undone = set()  # facts that later parts delete
        for k in range(len(parts) - 1, -1, -1):
            last = k == len(parts) - 1
            finals = {}
            for act in applicable(logic, state, types, FINAL_RULES, side="post"):
                part_goal = [f for f in ground(logic, act)[1] if last or not (f[0] == "at" and f[1][0] == "P")]
                if before(logic, state, act) is not None and not undone.intersection(part_goal):
                    finals[act] = part_goal
            if not finals:
                break
            final = _order(rng, [(a,) for a in finals])[0][0]
            found = chain_back(logic, state, final, parts[k], rng, types)
            if found is None:
                break
            part, state = found
            goal = finals[final] + goal
            undone.update(f for a in part for f in set(ground(logic, a)[0]) - set(ground(logic, a)[1]))
            acts = part + acts
        else:
            goal = list(dict.fromkeys(goal))
            states = replay(logic, state, acts)
            if states is not None and set(goal) <= states[-1] and not any(set(goal) <= s for s in states[:-1]):
                return acts, tuple(goal), state
    return None

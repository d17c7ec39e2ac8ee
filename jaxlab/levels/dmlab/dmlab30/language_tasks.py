"""The tasks of DMLab's language levels, as data: groups of objects, maps, counts, instructions, rewards.

Facts from DMLab's level files (``language_*.lua``) and its language factory: the object
colours (red, green, blue, cyan, magenta and yellow, solid and medium-sized, except for the
described object), the task tables and their weights, the instruction templates, and the reward
controllers: "simple" (+10 / -10), "balanced" (the goal +10, each distractor minus the goal's
reward shared among the distractors, rounded), "balanced counting" (every goal object +1, the
last one also +10, a distractor minus the goal total shared among the distractors) and
"answer" (+10 for the right answer, -10 for the wrong one). Every taking of an object that
ends the task restarts the map with a new task.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Tuple, Union

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.dmlab30.language_scene import ANY, COMMON, RANDOM, Group, Rule, differ, fixed, same
from jaxlab.levels.dmlab.language_objects import LANGUAGE_COLOURS, LANGUAGE_SHAPES

_COLOUR = {name: i for i, (name, _) in enumerate(LANGUAGE_COLOURS)}
_SHAPE = {name: i for i, name in enumerate(LANGUAGE_SHAPES)}
#: the six object (and floor) colours of the language levels
SIX_COLOURS = tuple(_COLOUR[c] for c in ("red", "green", "blue", "cyan", "magenta", "yellow"))
ALL_SHAPES = tuple(range(len(LANGUAGE_SHAPES)))
ALL_COLOURS = tuple(range(len(LANGUAGE_COLOURS)))
#: language_select_described_object's five shapes
DESCRIBED_SHAPES = tuple(_SHAPE[s] for s in ("cake", "car", "cassette", "hat", "tv"))
BALL, WHITE, BLACK = _SHAPE["ball"], _COLOUR["white"], _COLOUR["black"]
GOAL_REWARD = 10.0
#: an instruction part: a template string, or (role, attribute) with role "goal" / "other" and
#: attribute "shape" / "colour" / "floor" (the goal's room's floor colour)
Part = Union[str, Tuple[str, str]]
#: the execute task's map choices: indices into its map set (two areas, two rooms, four rooms, six rooms)
TWO, FOUR, SIX = (0, 1), (2,), (3,)


class Task(NamedTuple):
    """One task: ``groups`` (group 0 the goal's unless ``goal_group``), the maps it draws among
    (indices into the level's map set), ``counts`` (a static tuple, or a function of a key giving
    int32[G]), instruction templates (one drawn uniformly; each a tuple of ``Part``), ``in_rooms``
    (room placer, else random), ``counting`` (the balanced counting controller, else balanced)
    and the ``other`` group the templates' "other" refers to."""

    name: str
    groups: Tuple[Group, ...]
    maps: Tuple[int, ...]
    counts: Union[Tuple[int, ...], Callable]
    instructions: Tuple[Tuple[Part, ...], ...]
    in_rooms: bool = False
    counting: bool = False
    goal_group: int = 0
    other: int = 1


def uniform_int(key, low, high) -> jnp.ndarray:
    """int32[]: uniform in [low, high] (both inclusive; int32[] or ints, may be traced)."""
    return jax.random.randint(key, (), low, jnp.asarray(high) + 1).astype(jnp.int32)


def group_counts(key, mins, total, maxs=None, passes: int = 6) -> jnp.ndarray:
    """int32[G]: group sizes at least ``mins`` (and at most ``maxs``, -1 no limit; both int sequences
    or int32[G], may be traced) summing to ``total`` (int32[], may be traced), as DMLab's item counts
    draw them: in a shuffled group order, each group in turn takes a uniform number of the objects
    left (up to its maximum), pass after pass. DMLab repeats until none are left; here ``passes``
    passes run and any rest then goes to the first groups in that order with room (the rest is almost
    always 0 by then)."""
    mins = jnp.asarray(mins, jnp.int32)
    g = mins.shape[0]
    maxs = jnp.full((g,), -1, jnp.int32) if maxs is None else jnp.asarray(maxs, jnp.int32)
    k_order, k_draw = jax.random.split(key)
    order = jax.random.permutation(k_order, g)

    def room(i, out, left):
        return jnp.where(maxs[i] >= 0, jnp.minimum(maxs[i] - out[i], left), left)

    def turn(t, carry):
        out, left = carry
        i = order[t % g]
        took = uniform_int(jax.random.fold_in(k_draw, t), 0, room(i, out, left))
        return out.at[i].add(took), left - took

    carry = jax.lax.fori_loop(0, passes * g, turn, (mins, jnp.asarray(total, jnp.int32) - jnp.sum(mins)))

    def rest(j, carry):
        out, left = carry
        i = order[j]
        took = room(i, out, left)
        return out.at[i].add(took), left - took

    return jax.lax.fori_loop(0, g, rest, carry)[0]


def _setup(key, options) -> jnp.ndarray:
    """int32[G]: counts drawn by ``group_counts`` with total 4 from one of ``options`` ((weight, mins,
    maxs) each), chosen by weight."""
    k_pick, k_counts = jax.random.split(key)
    pick = jax.random.categorical(k_pick, jnp.log(jnp.asarray([w for w, _, _ in options], jnp.float32)))
    mins = jnp.asarray([m for _, m, _ in options], jnp.int32)[pick]
    maxs = jnp.asarray([x for _, _, x in options], jnp.int32)[pick]
    return group_counts(k_counts, mins, 4, maxs)


# ---------------------------------------------------------------- language_select_described_object

#: a goal and a distractor of another of the five shapes; colours and patterns random
DESCRIBED = Task("describedShapeTask", (Group(1, reward=GOAL_REWARD), Group(1, shape=differ(0), reward=-GOAL_REWARD)),
                 (0,), (1, 1), ((("goal", "shape"),),))

# ---------------------------------------------------------------- language_select_located_object

_LOCATED_INSTRUCTION = (("Pick the", ("goal", "colour"), "object in the", ("goal", "floor"), "room"),)


def _located(name: str, maps, extra: int) -> Task:
    """A located-object task: the goal in a random room, a distractor of another colour in its room,
    one of the goal's colour in another room, one of the second's colour beside it, and ``extra``
    random ones anywhere."""
    groups = (Group(1, region=Rule(RANDOM)), Group(1, colour=differ(0), region=same(0)),
              Group(1, colour=same(0), region=differ(0)), Group(1, colour=same(1), region=same(2) if not extra
                                                                  else Rule(ANY)))
    if extra:
        groups += (Group(extra),)
    counts = (1, 1, 1, 1) + ((extra,) if extra else ())
    return Task(name, groups, maps, counts, _LOCATED_INSTRUCTION, in_rooms=True)


#: (weight, task): two rooms twice as often as four or six
LOCATED_TASKS = ((2, _located("twoRoomColorTask", TWO, 0)), (1, _located("fourRoomColorTask", FOUR, 4)),
                 (1, _located("sixRoomColorTask", SIX, 8)))

# ---------------------------------------------------------------- language_execute_random_task

_PICK_INSTRUCTIONS = ((("goal", "colour"),), (("goal", "shape"),), (("goal", "colour"), ("goal", "shape")))


def _pick(name, maps, distractors) -> Task:
    return Task(name, (Group(1, reward=GOAL_REWARD), Group(distractors, shape=differ(0), colour=differ(0))), maps,
                (1, distractors), _PICK_INSTRUCTIONS)


def _pick_both(name, maps, each) -> Task:
    return Task(name, (Group(1, reward=GOAL_REWARD), Group(each, shape=differ(0), colour=same(0)),
                       Group(each, shape=same(0), colour=differ(0))), maps, (1, each, each),
                ((("goal", "colour"), ("goal", "shape")),))


def _every(name, maps, attribute: str, counts) -> Task:
    """Every goal object of a common shape (or colour); distractors of another."""
    goal = Group(6 if callable(counts) else 2, **{attribute: Rule(COMMON)}, reward=1.0)
    other = Group(6 if callable(counts) else 2, **{attribute: differ(0)})
    text = (("Every", ("goal", "shape")),) if attribute == "shape" else (("Every", ("goal", "colour"), "object"),)
    return Task(name, (goal, other), maps, counts, text, counting=True)


def _varied_every(key) -> jnp.ndarray:
    k_total, k_counts = jax.random.split(key)
    return group_counts(k_counts, (2, 2), uniform_int(k_total, 4, 8))


def _near(name, maps, near: Tuple[Group, ...], text) -> Task:
    return Task(name, near, maps, (1,) * len(near[:-1]) + ((2,) if len(near) > 4 else (1,)), (text,), in_rooms=True)


_REGION_RANDOM = Rule(RANDOM)
SHAPE_NEAR_SHAPE_TWO = (Group(1, region=_REGION_RANDOM, reward=GOAL_REWARD), Group(1, shape=differ(0), region=same(0)),
                        Group(1, shape=same(0), region=differ(0)), Group(1, shape=differ(1), region=same(2)))
SHAPE_NEAR_SHAPE_FOUR = SHAPE_NEAR_SHAPE_TWO + (Group(1, shape=same(1), region=differ(0, 2)),
                                                Group(1, shape=differ(0), region=same(4)),
                                                Group(2, shape=differ(0, 1), region=differ(0, 2, 4)))
SHAPE_NEAR_COLOUR = (Group(1, region=_REGION_RANDOM, reward=GOAL_REWARD), Group(1, colour=differ(0), region=same(0)),
                     Group(1, shape=same(0), colour=differ(1), region=differ(0)),
                     Group(1, colour=differ(1), region=same(2)),
                     Group(1, colour=same(1), shape=differ(0), region=differ(0, 2)),
                     Group(1, shape=differ(0), region=same(4)),
                     Group(2, shape=differ(0), colour=differ(1), region=differ(0, 2, 4)))
#: every object has group 0's shape unless a rule says otherwise
_SAME_SHAPE = same(0)
COLOUR_NEAR_COLOUR = (Group(1, region=_REGION_RANDOM, reward=GOAL_REWARD),
                      Group(1, shape=_SAME_SHAPE, colour=differ(0), region=same(0)),
                      Group(1, shape=_SAME_SHAPE, colour=same(0), region=differ(0)),
                      Group(1, shape=_SAME_SHAPE, colour=differ(1), region=same(2)),
                      Group(1, shape=_SAME_SHAPE, colour=same(1), region=differ(0, 2)),
                      Group(1, shape=_SAME_SHAPE, colour=differ(0), region=same(4)),
                      Group(2, shape=_SAME_SHAPE, colour=differ(0, 1), region=differ(0, 2, 4)))

#: (weight, task), DMLab's table
EXECUTE_TASKS = (
    (2, _pick("twoRoomPickTask", TWO, 2)), (1, _pick("fourRoomPickTask", FOUR, 4)),
    (1, _pick("sixRoomPickTask", SIX, 8)),
    (2, _pick_both("twoRoomPickBothTask", TWO, 1)), (1, _pick_both("fourRoomPickBothTask", FOUR, 3)),
    (1, _pick_both("sixRoomPickBothTask", SIX, 5)),
    (2, _every("twoRoomAllShapeTask", TWO, "shape", (2, 2))),
    (1, _every("fourRoomAllShapeTask", FOUR, "shape", _varied_every)),
    (2, _every("twoRoomAllColorTask", TWO, "colour", (2, 2))),
    (1, _every("fourRoomAllColorTask", FOUR, "colour", _varied_every)),
    (2, _near("twoRoomShapeNearShapeTask", TWO, SHAPE_NEAR_SHAPE_TWO, (("goal", "shape"), "near", ("other", "shape")))),
    (1, _near("fourRoomShapeNearShapeTask", FOUR, SHAPE_NEAR_SHAPE_FOUR,
              (("goal", "shape"), "near", ("other", "shape")))),
    (1, _near("fourRoomShapeNearColorTask", FOUR, SHAPE_NEAR_COLOUR,
              (("goal", "shape"), "near", ("other", "colour"), "object"))),
    (1, _near("fourRoomColorNearColorTask", FOUR, COLOUR_NEAR_COLOUR,
              (("goal", "colour"), "object near", ("other", "colour"), "object"))),
)

# ---------------------------------------------------------------- language_answer_quantitative_question

#: the answer balls: white (yes) in room A, black (no) in room B; the question's objects go to room D
YES_GROUP = Group(1, shape=fixed(BALL), colour=fixed(WHITE), region=fixed(0))
NO_GROUP = Group(1, shape=fixed(BALL), colour=fixed(BLACK), region=fixed(1))
_SHOWN = dict(region=fixed(3), takeable=False)
_HIDDEN = Group(1, placed=False, takeable=False)


#: isAny / isAnything: at least one visible goal object, or none (visible goals, same shape other colour,
#: other shape), as often
_ANY = ((1, (1, 0, 0), (-1, -1, -1)), (1, (0, 0, 0), (0, -1, -1)))
#: areAll: four goal objects and no distractor, or at least one of each, as often
_ALL = ((1, (4, 0), (-1, -1)), (1, (1, 1), (-1, -1)))
#: areMost's seven count set-ups and weights
_MOST = ((1, (1, 0, 0), (-1, 0, -1)), (1, (2, 0, 0), (-1, 1, -1)), (1, (3, 0, 0), (-1, 1, -1)),
         (1, (4, 0, 0), (-1, 0, -1)), (1, (0, 1, 0), (0, -1, -1)), (2, (0, 1, 0), (1, -1, -1)),
         (1, (0, 2, 0), (2, -1, -1)))


def _any_counts(key) -> jnp.ndarray:
    return jnp.concatenate([jnp.ones((3,), jnp.int32), _setup(key, _ANY)])


def _all_counts(key) -> jnp.ndarray:
    return jnp.concatenate([jnp.ones((2,), jnp.int32), _setup(key, _ALL)])


def _most_counts(key) -> jnp.ndarray:
    return jnp.concatenate([jnp.ones((3,), jnp.int32), _setup(key, _MOST)])


class Question(NamedTuple):
    """A quantitative question: the task (groups: yes, no, then the question's; goal group 2) and
    ``truth``: counts int32[G] -> bool[], the answer."""

    task: Task
    truth: Callable


QUESTIONS = (
    Question(Task("areAllShapesThisColorTask", (YES_GROUP, NO_GROUP, Group(4, shape=Rule(COMMON), colour=Rule(COMMON),
                                                                           **_SHOWN),
                                                Group(3, shape=same(2), colour=differ(2), **_SHOWN)),
                  (0,), _all_counts, (("Are all", ("goal", "shape"), "objects", ("goal", "colour"), "?"),),
                  in_rooms=True, goal_group=2), lambda n: n[3] == 0),
    Question(Task("isAnyShapeThisColorTask", (YES_GROUP, NO_GROUP, _HIDDEN,
                                              Group(4, shape=same(2), colour=same(2), **_SHOWN),
                                              Group(4, shape=same(2), colour=differ(2), **_SHOWN),
                                              Group(4, shape=differ(2), **_SHOWN)),
                  (0,), _any_counts, (("Is any", ("goal", "shape"), ("goal", "colour"), "?"),), in_rooms=True,
                  goal_group=2), lambda n: n[3] > 0),
    Question(Task("isAnythingThisColorTask", (YES_GROUP, NO_GROUP, _HIDDEN, Group(4, colour=same(2), **_SHOWN),
                                              Group(4, colour=differ(2), **_SHOWN),
                                              Group(4, colour=differ(2), **_SHOWN)),
                  (0,), _any_counts, (("Is anything", ("goal", "colour"), "?"),), in_rooms=True, goal_group=2),
             lambda n: n[3] > 0),
    Question(Task("areMostShapesThisColorTask", (YES_GROUP, NO_GROUP, _HIDDEN,
                                                 Group(4, shape=same(2), colour=same(2), **_SHOWN),
                                                 Group(4, shape=same(2), colour=differ(2), **_SHOWN),
                                                 Group(4, shape=differ(2), **_SHOWN)),
                  (0,), _most_counts, (("Are most", ("goal", "shape"), "objects", ("goal", "colour"), "?"),),
                  in_rooms=True, goal_group=2), lambda n: n[3] > n[4]),
)
#: the quantitative level's room floors: A green, B red, C orange, D black
QUANTITATIVE_FLOORS = tuple(_COLOUR[c] for c in ("green", "red", "orange", "black"))

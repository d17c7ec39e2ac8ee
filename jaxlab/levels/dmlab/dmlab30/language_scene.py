"""A language level's objects, drawn on the device from groups of rules, placed in a map's slots.

DMLab's language factory describes a task as groups of objects, each attribute given by a rule:
random per object, one random value common to the group, the same as another group's, different
from other groups', or a fixed value; the objects then go to slots at random or into their
group's room. Here a task is a static tuple of ``Group``s (each with a static capacity and a
count that may be drawn per episode); ``draw_scene`` draws every attribute under ``jit``/``vmap``
and ``place`` puts the objects in a map's slots. ``scene_level`` makes the ``Level``.

A group's "first" value of an attribute (what other groups' rules compare with) is its first
object's: for the groups rules refer to, that is the group's value (one object, or a common one).
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.dmlab.dmlab30.language_maps import MapSet
from jaxlab.levels.dmlab.language_objects import LANGUAGE_COLOURS, SIZE_SCALES, SOLID, language_object_kind
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set

MEDIUM = 1
#: the RGB of DMLab's colour names (``LANGUAGE_COLOURS`` order), uint8[13, 3]
COLOUR_RGB = np.asarray([rgb for _, rgb in LANGUAGE_COLOURS], np.uint8)
#: ``Rule.kind`` values
RANDOM, COMMON, SAME, DIFFER, FIXED, ANY = range(6)


class Rule(NamedTuple):
    """How a group draws one attribute: ``kind`` (RANDOM per object, COMMON to the group, SAME as
    the first value of group ``groups[0]``, DIFFER from the first values of ``groups``, FIXED
    ``value``; for regions also ANY room), with group numbers 0-based."""

    kind: int
    groups: Tuple[int, ...] = ()
    value: int = -1


def same(group: int) -> Rule:
    """The first value of ``group`` (0-based)."""
    return Rule(SAME, (group,))


def differ(*groups: int) -> Rule:
    """Per object, any allowed value other than the first values of ``groups`` (0-based)."""
    return Rule(DIFFER, tuple(groups))


def fixed(value: int) -> Rule:
    """Always ``value``."""
    return Rule(FIXED, value=value)


class Group(NamedTuple):
    """One group of a task: ``capacity`` objects at most (the count may be drawn per episode),
    shape, colour and region rules, each object's ``reward`` (float), whether it can be taken
    (``takeable``) and whether it is placed in the map at all (``placed``: DMLab's
    'DO_NOT_PLACE', an object that only seeds the instruction)."""

    capacity: int
    shape: Rule = Rule(RANDOM)
    colour: Rule = Rule(RANDOM)
    region: Rule = Rule(ANY)
    reward: float = 0.0
    takeable: bool = True
    placed: bool = True


@struct.dataclass
class Scene:
    """The objects of one episode's task (M = the groups' capacities summed; arrays [M]).

    shape, colour, pattern, size: int32 indices into ``language_objects``' tables; group: int32
    (0-based); real: bool the object exists (within its group's count); placed: bool it goes into
    the map; room: int32 the room it must go to (-1 any); reward: float32; takeable: bool.
    """

    shape: jnp.ndarray
    colour: jnp.ndarray
    pattern: jnp.ndarray
    size: jnp.ndarray
    group: jnp.ndarray
    real: jnp.ndarray
    placed: jnp.ndarray
    room: jnp.ndarray
    reward: jnp.ndarray
    takeable: jnp.ndarray


def _draw(key, rule: Rule, capacity: int, options, firsts) -> jnp.ndarray:
    """int32[capacity]: one attribute of a group's objects, drawn by ``rule`` from ``options`` (the
    values int32[K] and which of them may be drawn, bool[K]); ``firsts``: the earlier groups' first
    values (int32[] each)."""
    values, ok = options
    if rule.kind == FIXED:
        return jnp.full((capacity,), rule.value, jnp.int32)
    if rule.kind == SAME:
        return jnp.broadcast_to(firsts[rule.groups[0]], (capacity,)).astype(jnp.int32)
    if rule.kind == ANY:
        return jnp.full((capacity,), -1, jnp.int32)
    allowed = ok
    if rule.kind == DIFFER:
        for g in rule.groups:
            allowed = allowed & (values != firsts[g])
    logits = jnp.where(allowed, 0.0, -jnp.inf)
    count = 1 if rule.kind == COMMON else capacity
    picks = values[jax.random.categorical(key, logits, shape=(count,))]
    return jnp.broadcast_to(picks, (capacity,)).astype(jnp.int32)


def draw_scene(key: jax.Array, groups: Sequence[Group], counts, shapes: Sequence[int], colours: Sequence[int],
               rooms_valid, patterns: Optional[Sequence[int]] = None) -> Scene:
    """The objects of ``groups`` (static) with ``counts`` (int32[G], each at most its capacity).

    shapes, colours: the allowed shape and colour indices (static); rooms_valid: bool[Q] the map's
    rooms (regions draw among them); patterns: the allowed patterns (None: solid only). Sizes are
    medium. Groups are drawn in order, so a rule may refer only to earlier groups.
    """
    pattern_options = (SOLID,) if patterns is None else tuple(patterns)
    tables = {"shape": (jnp.asarray(shapes, jnp.int32), jnp.ones((len(shapes),), bool)),
              "colour": (jnp.asarray(colours, jnp.int32), jnp.ones((len(colours),), bool)),
              "region": (jnp.arange(rooms_valid.shape[0], dtype=jnp.int32), jnp.asarray(rooms_valid, bool))}
    firsts = {name: [] for name in tables}
    parts = {name: [] for name in list(tables) + ["pattern", "group", "real", "placed", "reward", "takeable"]}
    for g, (group, k) in enumerate(zip(groups, jax.random.split(key, len(groups)))):
        keys = jax.random.split(k, 4)
        for name, sub in zip(tables, keys[:3]):
            drawn = _draw(sub, getattr(group, name), group.capacity, tables[name], firsts[name])
            firsts[name].append(drawn[0])
            parts[name].append(drawn)
        table = jnp.asarray(pattern_options, jnp.int32)
        parts["pattern"].append(table[jax.random.randint(keys[3], (group.capacity,), 0, len(pattern_options))])
        parts["group"].append(jnp.full((group.capacity,), g, jnp.int32))
        parts["real"].append(jnp.arange(group.capacity) < counts[g])
        parts["placed"].append(jnp.full((group.capacity,), group.placed))
        parts["reward"].append(jnp.full((group.capacity,), group.reward, jnp.float32))
        parts["takeable"].append(jnp.full((group.capacity,), group.takeable))
    cat = {name: jnp.concatenate(values) for name, values in parts.items()}
    return Scene(shape=cat["shape"], colour=cat["colour"], pattern=cat["pattern"],
                 size=jnp.full(cat["shape"].shape, MEDIUM, jnp.int32), group=cat["group"], real=cat["real"],
                 placed=cat["placed"] & cat["real"], room=cat["region"], reward=cat["reward"],
                 takeable=cat["takeable"])


def place_randomly(key: jax.Array, scene: Scene, maps: MapSet) -> jnp.ndarray:
    """int32[M]: each placed object's slot in a random order of the map's slots (-1: not placed, or
    no slot left); rooms are ignored (DMLab's random placer)."""
    order = jnp.argsort(jnp.where(maps.slot_valid, jax.random.uniform(key, maps.slot_valid.shape), 2.0))
    rank = jnp.cumsum(scene.placed) - 1
    slot = order[jnp.clip(rank, 0, order.shape[0] - 1)]
    ok = scene.placed & (rank < jnp.sum(maps.slot_valid))
    return jnp.where(ok, slot, -1).astype(jnp.int32)


def place_in_rooms(key: jax.Array, scene: Scene, maps: MapSet) -> jnp.ndarray:
    """int32[M]: each placed object's slot, drawn among the free slots of its room (any room for
    room -1), objects in order (DMLab's room placer); -1 when not placed or no slot is free."""
    def one(free, item):
        k, room, placed = item
        fits = free & ((maps.slot_room == room) | (room < 0))
        pick = jax.random.categorical(k, jnp.where(fits, 0.0, -jnp.inf))
        ok = placed & fits.any()
        return free & ~(ok & (jnp.arange(free.shape[0]) == pick)), jnp.where(ok, pick, -1).astype(jnp.int32)

    keys = jax.random.split(key, scene.shape.shape[0])
    return jax.lax.scan(one, jnp.asarray(maps.slot_valid), (keys, scene.room, scene.placed))[1]


def room_floors(maps: MapSet, room_colour) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """(floor_rect float32[Q, 4], floor_rect_rgb uint8[Q, 3]) of the map's rooms with colours
    ``room_colour`` (int32[Q], indices into ``LANGUAGE_COLOURS``; -1: the theme's floor, an empty
    rectangle)."""
    painted = (room_colour >= 0) & maps.room_valid
    return (jnp.where(painted[:, None], maps.room_rect, 0.0),
            jnp.asarray(COLOUR_RGB)[jnp.maximum(room_colour, 0)])


def scene_level(maps: MapSet, scene: Scene, slot, finishes, instr, episode_seconds: float, spawn_range: float,
                room_colour=None, counted=None, counted_bonus=0.0) -> Level:
    """The Level of a scene placed in one map (``maps``, picked).

    slot: int32[M] (``place_*``); finishes: bool[M] taking the object ends the map (DMLab's
    ``finishMap``); instr: int32[INSTRUCTION_LENGTH]; episode_seconds; spawn_range: degrees, the
    spawn faces east (DMLab's angle 0) turned by up to half of it either way; room_colour: int32[Q]
    or None (the theme's floors); counted: bool[M] objects whose taking counts towards restarting
    the map once all ``counted`` real ones are taken, paying ``counted_bonus`` (None: no count).
    """
    valid = slot >= 0
    pos = jnp.asarray(maps.slot_xy)[jnp.maximum(slot, 0)]
    kind = language_object_kind(scene.shape, scene.colour, scene.pattern)
    scale = jnp.asarray(SIZE_SCALES)[scene.shape, scene.size]
    counts = jnp.zeros(valid.shape, bool) if counted is None else counted & valid
    pickups = pickup_set(pos, kind, scene.reward, valid, is_goal=finishes, takeable=scene.takeable,
                         counts=counts, scale=scale)
    spawns = maps.spawn_xy.shape[0]
    floors = {} if room_colour is None else dict(zip(("floor_rect", "floor_rect_rgb"), room_floors(maps, room_colour)))
    return assemble_level(maps.cells, maps.variation, jnp.zeros((1, 2), jnp.int32), jnp.zeros((1,), bool), pickups,
                          maps.spawn_xy, maps.spawn_valid, episode_seconds, spawn_yaw=jnp.zeros((spawns,)),
                          spawn_yaw_range=jnp.full((spawns,), spawn_range), instr=instr,
                          end_after_pickups=jnp.sum(counts).astype(jnp.int32), counted_restarts=counted is not None,
                          counted_bonus=counted_bonus, **floors)

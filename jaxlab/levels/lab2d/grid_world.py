"""Lab2D's grid world as level data: what ``grid_world.World{...}`` declares, with Lab2D's numbering.

A world names its states, the layers they stand on, their sprites, groups and contacts, the update
phases and the beams (``hits``). Lab2D numbers every kind of name as its engine does, and so does
:func:`world_from_config`, because the numbers show in observations (a layer view holds sprite ids):

- sprites, groups, contacts and hits: sorted, each name once;
- layers: the ``renderOrder`` layers first, in that order, then every other layer a state or a hit
  names, sorted;
- updates: ``updateOrder``'s order (an entry is a name, or ``{name = ..., func = ...}`` whose
  ``func`` names the ``onUpdate`` callback);
- states: sorted by name.

Only the first ``num_render_layers`` layers are drawn; a piece on another layer (or on none) is
invisible but still blocks, counts in its groups and makes contacts. ``jaxlab.kernels.lab2d_grid``
runs the world; this module only holds its description (static Python data, hashable).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence, Tuple

from jaxlab.errors import unknown_name_error

#: the orientations, Lab2D's order and names: 0 N, 1 E, 2 S, 3 W
ORIENTATIONS = ("N", "E", "S", "W")
#: (dx, dy) of each orientation; x grows east, y grows south
ORIENTATION_VECTORS = ((0, -1), (1, 0), (0, 1), (-1, 0))


class GridWorldError(ValueError):
    """A world declaration Lab2D would refuse (the message says which entry and why)."""


@dataclasses.dataclass(frozen=True)
class GridWorld:
    """A declared world (see the module docstring for the numbering). Per state (index = state id):
    ``state_layer`` (layer id, -1 none), ``state_sprite`` (sprite id, -1 none), ``state_contact``
    (contact id, -1 none), ``state_groups`` (group ids). Per hit: ``hit_layer``, ``hit_sprite``
    (-1 none). ``update_functions``: the ``onUpdate`` name each update calls."""

    state_names: Tuple[str, ...]
    state_layer: Tuple[int, ...]
    state_sprite: Tuple[int, ...]
    state_contact: Tuple[int, ...]
    state_groups: Tuple[Tuple[int, ...], ...]
    layer_names: Tuple[str, ...]
    num_render_layers: int
    sprite_names: Tuple[str, ...]
    group_names: Tuple[str, ...]
    contact_names: Tuple[str, ...]
    update_names: Tuple[str, ...]
    update_functions: Tuple[str, ...]
    hit_names: Tuple[str, ...]
    hit_layer: Tuple[int, ...]
    hit_sprite: Tuple[int, ...]
    out_of_bounds_sprite: int = -1
    out_of_view_sprite: int = -1

    @property
    def num_states(self) -> int:
        """The number of states."""
        return len(self.state_names)

    @property
    def num_layers(self) -> int:
        """The number of layers (render layers first)."""
        return len(self.layer_names)

    def _index(self, kind: str, names: Tuple[str, ...], name: str) -> int:
        if name not in names:
            raise unknown_name_error(kind, name, names)
        return names.index(name)

    def state(self, name: str) -> int:
        """The id of state ``name`` (an unknown name is an error with close matches)."""
        return self._index("grid state", self.state_names, name)

    def layer(self, name: str) -> int:
        """The id of layer ``name``."""
        return self._index("grid layer", self.layer_names, name)

    def group(self, name: str) -> int:
        """The id of group ``name``."""
        return self._index("grid group", self.group_names, name)

    def contact(self, name: str) -> int:
        """The id of contact ``name``."""
        return self._index("grid contact", self.contact_names, name)

    def update(self, name: str) -> int:
        """The id of update ``name``."""
        return self._index("grid update", self.update_names, name)

    def hit(self, name: str) -> int:
        """The id of hit (beam) ``name``."""
        return self._index("grid hit", self.hit_names, name)

    def sprite(self, name: str) -> int:
        """The id of sprite ``name``."""
        return self._index("grid sprite", self.sprite_names, name)


def _names(value: Any, where: str) -> Tuple[str, ...]:
    if value is None or (isinstance(value, Mapping) and not value):   # nil, or {} (an empty Lua table)
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise GridWorldError(f"{where} must be a list of names, got {value!r}")
    for v in value:
        if not isinstance(v, str) or not v:
            raise GridWorldError(f"{where} must hold non-empty names, got {v!r}")
    return tuple(value)


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise GridWorldError(f"{where} must be a name (a string), got {value!r}")
    return value


def world_from_config(config: Mapping[str, Any]) -> GridWorld:
    """The world ``grid_world.World(config)`` declares: ``config`` as Lab2D's Lua table, read into
    Python (``renderOrder``, ``updateOrder``, ``states``, ``hits``, ``customSprites``,
    ``outOfBoundsSprite``, ``outOfViewSprite``; see the module docstring for the numbering)."""
    unknown = set(config) - {"renderOrder", "updateOrder", "states", "hits", "customSprites",
                             "outOfBoundsSprite", "outOfViewSprite"}
    if unknown:
        raise GridWorldError(f"grid_world.World: unknown entries {sorted(unknown)}")
    states = config.get("states") or {}
    hits = config.get("hits") or {}
    if not isinstance(states, Mapping) or not isinstance(hits, Mapping):
        raise GridWorldError("grid_world.World: 'states' and 'hits' must be tables keyed by name")
    render_order = _names(config.get("renderOrder"), "renderOrder")
    sprites = list(_names(config.get("customSprites"), "customSprites"))
    out_of_bounds = _text(config.get("outOfBoundsSprite"), "outOfBoundsSprite")
    out_of_view = _text(config.get("outOfViewSprite"), "outOfViewSprite")
    sprites += [s for s in (out_of_bounds, out_of_view) if s]
    layers, groups, contacts = set(), set(), set()
    read_states = {}
    for name in sorted(states):
        entry = states[name] or {}
        if not isinstance(name, str) or not isinstance(entry, Mapping):
            raise GridWorldError(f"grid_world.World: state {name!r} must be a table keyed by its name")
        extra = set(entry) - {"layer", "sprite", "groups", "contact"}
        if extra:
            raise GridWorldError(f"grid_world.World: state {name!r} has unknown entries {sorted(extra)}")
        read = {key: _text(entry.get(key), f"state {name!r} {key}") for key in ("layer", "sprite", "contact")}
        read["groups"] = _names(entry.get("groups"), f"state {name!r} groups")
        read_states[name] = read
        layers.update([read["layer"]] if read["layer"] else [])
        sprites += [read["sprite"]] if read["sprite"] else []
        contacts.update([read["contact"]] if read["contact"] else [])
        groups.update(read["groups"])
    read_hits = {}
    for name in sorted(hits):
        entry = hits[name] or {}
        if not isinstance(entry, Mapping):
            raise GridWorldError(f"grid_world.World: hit {name!r} must be a table")
        read_hits[name] = (_text(entry.get("layer"), f"hit {name!r} layer"),
                           _text(entry.get("sprite"), f"hit {name!r} sprite"))
        layers.update([read_hits[name][0]] if read_hits[name][0] else [])
        sprites += [read_hits[name][1]] if read_hits[name][1] else []
    layer_names = tuple(render_order) + tuple(sorted(layers - set(render_order)))
    sprite_names = tuple(sorted(set(sprites)))
    group_names, contact_names = tuple(sorted(groups)), tuple(sorted(contacts))
    update_names, update_functions = [], []
    for entry in config.get("updateOrder") or ():
        if isinstance(entry, str):
            update_names.append(entry)
            update_functions.append(entry)
        elif isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
            update_names.append(entry["name"])
            update_functions.append(entry.get("func") or entry["name"])
        else:
            raise GridWorldError(f"updateOrder entries are names or {{name = ..., func = ...}}, got {entry!r}")

    def idx(names, name):
        return names.index(name) if name else -1

    return GridWorld(
        state_names=tuple(read_states),
        state_layer=tuple(idx(layer_names, s["layer"]) for s in read_states.values()),
        state_sprite=tuple(idx(sprite_names, s["sprite"]) for s in read_states.values()),
        state_contact=tuple(idx(contact_names, s["contact"]) for s in read_states.values()),
        state_groups=tuple(tuple(sorted(group_names.index(g) for g in set(s["groups"])))
                           for s in read_states.values()),
        layer_names=layer_names, num_render_layers=len(render_order), sprite_names=sprite_names,
        group_names=group_names, contact_names=contact_names, update_names=tuple(update_names),
        update_functions=tuple(update_functions), hit_names=tuple(read_hits),
        hit_layer=tuple(idx(layer_names, h[0]) for h in read_hits.values()),
        hit_sprite=tuple(idx(sprite_names, h[1]) for h in read_hits.values()),
        out_of_bounds_sprite=idx(sprite_names, out_of_bounds), out_of_view_sprite=idx(sprite_names, out_of_view))

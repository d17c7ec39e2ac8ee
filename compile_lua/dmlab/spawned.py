"""Pickups a DMLab script spawns as it plays: ``pickups_spawn:spawn`` in ``api:pickup``.

DMLab's engine module ``dmlab.system.pickups_spawn`` adds an entity to the map while the level plays. The
compiler asks ``api:pickup(id)`` ahead of time for every pickup (``EpisodeSteps.pickups``); the entities it
spawns there become pickups of the episode's Level, absent until pickup ``id`` is taken
(``Level.pickup_spawned_by``), and their own ``api:pickup`` is asked in turn.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from compile_lua.dmlab.entities import position

#: pickups a map may hold with those its pickups spawn (a pickup that spawns another that spawns it
#: again would never end)
MAX_PICKUPS = 256


class SpawnedPickups:
    """Mixed into the DMLab compiler beside ``EpisodeSteps`` (uses its ``pickups`` and ``error``)."""

    def spawned_pickups(self, rows: Sequence[Dict[str, Any]], spawns: Sequence[Sequence[Tuple[Tuple[str, str], ...]]],
                        to_level: Optional[Callable[[float, float], Tuple[float, float]]],
                        offset: int) -> List[Dict[str, Any]]:
        """The pickup rows of the entities that the pickups ``rows`` spawn (``spawns[i]``: row i's, each
        entity as sorted (key, value) pairs), and of those they spawn in turn. ``offset``: the index of
        ``rows[0]`` among the episode's pickups; ``to_level``: a converted map's coordinates (None for a
        text map)."""
        items, parents = [], []
        for i, made in enumerate(spawns):
            for pairs in made:
                spawn_vars = dict(pairs)
                try:
                    xy = position(spawn_vars)
                except ValueError as err:
                    raise self.error(f"pickups_spawn:spawn in api:pickup: {err}", "pickup") from None
                items.append((spawn_vars["classname"], to_level(*xy) if to_level else xy, spawn_vars))
                parents.append(offset + i)
        if not items:
            return []
        if offset + len(rows) + len(items) > MAX_PICKUPS:
            raise self.error(f"pickups_spawn:spawn in api:pickup: the map's pickups and those they spawn pass "
                             f"{MAX_PICKUPS}", "pickup")
        return self.pickups(items, to_level, parents, offset + len(rows))

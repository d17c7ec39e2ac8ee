"""The built-in first-person levels: a map file plus a few settings each."""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Mapping, Optional, Tuple

from jaxlab.levels.dmlab.level import Level, build_level
from jaxlab.levels.dmlab.map_parser import decode_map_text, parse_text_map

MAP_DIR = Path(__file__).parent / "maps"
EXTRA_PICKUP_CHARS = {"L": "lemon_reward", "S": "strawberry_reward", "F": "fungi_reward",
                      "W": "watermelon_goal", "M": "mango_goal"}


@dataclasses.dataclass(frozen=True)
class LevelDef:
    """A built-in level: ``maps/<map_name>.txt`` (and ``.variations.txt``), its
    episode length in seconds, and whether goal and spawn are drawn per episode."""

    map_name: str
    episode_seconds: float
    random_goal: bool = False


BUILTIN = {
    "seekavoid_arena_01": LevelDef("seekavoid_arena_01", 20.0),
    "nav_maze_static_01": LevelDef("nav_maze_static_01", 60.0),
    "nav_maze_static_02": LevelDef("nav_maze_static_02", 150.0),
    "nav_maze_static_03": LevelDef("nav_maze_static_03", 300.0),
    "nav_maze_random_goal_01": LevelDef("nav_maze_random_goal_01", 60.0, random_goal=True),
    "nav_maze_random_goal_02": LevelDef("nav_maze_random_goal_02", 150.0, random_goal=True),
    "nav_maze_random_goal_03": LevelDef("nav_maze_random_goal_03", 300.0, random_goal=True),
}


def read_map_file(path, pickups: Optional[Mapping[str, str]] = None, require_spawn: bool = True):
    """Parse a text-map file and its optional ``<stem>.variations.txt`` sibling.

    Extra pickup characters default to EXTRA_PICKUP_CHARS (L lemon, S
    strawberry, F fungi, W watermelon goal, M mango goal). Both files are
    read as UTF-8. Returns a ParsedMap; MapError (``file:line:column:``)
    for a malformed map or bytes that are not UTF-8.
    """
    path = Path(path)
    variations = path.with_name(path.name[: -len(path.suffix)] + ".variations" + path.suffix)
    return parse_text_map(
        decode_map_text(path.read_bytes(), str(path)),
        decode_map_text(variations.read_bytes(), str(variations)) if variations.exists() else None,
        pickups=EXTRA_PICKUP_CHARS if pickups is None else pickups,
        source=str(path),
        require_spawn=require_spawn,
    )


@functools.lru_cache(maxsize=None)
def builtin_level(name: str) -> Level:
    """The compiled built-in level ``name`` (numpy arrays)."""
    spec = BUILTIN[name]
    parsed = read_map_file(MAP_DIR / f"{spec.map_name}.txt")
    return build_level(parsed, spec.episode_seconds, random_goal=spec.random_goal)


def builtin_names() -> Tuple[str, ...]:
    """Names of the built-in levels, sorted."""
    return tuple(sorted(BUILTIN))

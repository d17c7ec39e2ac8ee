"""DeepMind Lab's random text mazes for ``dmlab.system.maze_generation`` (the ``randomMazeGeneration`` host call).

The maze is labmaze's ``RandomMaze``, the generator DeepMind Lab's own is built from: the same parameters
and seed give the same maze. The Lua side (``compile_lua/lua/dmlab/system/maze_generation.lua``) turns a
``random = generator`` argument into a ``seed`` before calling; this module checks every argument with
DeepMind Lab's names and defaults and refuses the rest with a message that names it.

Seeds: DeepMind Lab reads ``seed`` as a C ``int`` and seeds its 64-bit Mersenne Twister with it
(sign-extended); labmaze does the same with its ``random_seed``. So an integer seed is wrapped to a signed
32-bit value (``2**31`` is ``-2**31``) and handed to labmaze unchanged. (labmaze takes
``extraConnectionProbability`` as a 32-bit float where DeepMind Lab keeps a double: a draw that falls between
the two roundings, a chance of about 1e-9 a connection, would differ.)
"""
from __future__ import annotations

from typing import Any, Dict, Mapping

import labmaze

from compile_lua.errors import HostError
from compile_lua.lua_values import show_lua

#: the largest height and width of a random maze. labmaze's dead-end and bend removal (``simplify``)
#: grows steeply with the size: about 1 s at 101 x 101, 8 s at 151 x 151, minutes at 301 x 301, and it
#: cannot be interrupted.
MAX_RANDOM_SIDE = 101
#: the most failed room placements allowed (``retryCount``; DeepMind Lab's default is 1000)
MAX_RETRY_COUNT = 1_000_000
_INT32 = 2**31
_WHAT = "maze_generation.randomMazeGeneration"
#: argument -> DeepMind Lab's default; None where there is none: 'height' and 'width' are required, and so
#: is 'seed' (the Lua side turns a 'random' argument into one)
_DEFAULTS: Dict[str, Any] = {
    "seed": None, "random": None, "height": None, "width": None, "maxRooms": 0, "roomMinSize": 3,
    "roomMaxSize": 7, "retryCount": 1000, "extraConnectionProbability": 0.05, "maxVariations": 26,
    "hasDoors": False, "simplify": True, "roomSpawnCount": 0, "spawn": "P", "roomObjectCount": 0,
    "object": "G"}
_RENAMED = {"spawnToken": "spawn", "objectToken": "object", "spawnCount": "roomSpawnCount",
            "objectCount": "roomObjectCount", "roomCount": "maxRooms"}


def _refuse(key: str, wanted: str, value: Any) -> HostError:
    return HostError(f"{_WHAT}: '{key}' must be {wanted}, got {show_lua(value)}")


def _integer(args: Mapping[str, Any], key: str, low: int, high: int, odd: bool = False) -> int:
    """``args[key]`` (or its default) as an int in ``low..high`` (odd when ``odd``); HostError otherwise."""
    value = args.get(key, _DEFAULTS[key])
    ok = (type(value) is int or (type(value) is float and value.is_integer())) and low <= value <= high
    if not ok or (odd and value % 2 == 0):
        kind = "an odd integer" if odd else "an integer"
        raise _refuse(key, f"{kind} in {low}..{high}", value)
    return int(value)


def _boolean(args: Mapping[str, Any], key: str) -> bool:
    value = args.get(key, _DEFAULTS[key])
    if type(value) is not bool:
        raise _refuse(key, "true or false", value)
    return value


def _token(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key, _DEFAULTS[key])
    if not (isinstance(value, str) and len(value) == 1 and value.isascii() and value != "\n"):
        raise _refuse(key, "a single character (one ASCII byte, not a newline)", value)
    return value


def _seed(args: Mapping[str, Any]) -> int:
    """The ``seed`` argument wrapped to a signed 32-bit int, as DeepMind Lab reads it."""
    if "seed" not in args:
        raise HostError(f"{_WHAT}: give 'random' (a random generator, e.g. require 'dmlab.system.random') "
                        "or 'seed' (an integer)")
    value = args["seed"]
    if not (type(value) is int or (type(value) is float and value.is_integer())):
        raise _refuse("seed", "an integer", value)
    return (int(value) + _INT32) % (2 * _INT32) - _INT32


def _probability(args: Mapping[str, Any]) -> float:
    value = args.get("extraConnectionProbability", _DEFAULTS["extraConnectionProbability"])
    if type(value) not in (int, float) or not 0.0 <= value <= 1.0:
        raise _refuse("extraConnectionProbability", "a number in 0..1", value)
    return float(value)


def random_maze(sandbox: Any, args: Any) -> Dict[str, str]:
    """``randomMazeGeneration{...}``: ``args`` are the script's named arguments (``seed`` an integer; see
    :data:`_DEFAULTS`); returns ``{"entity": text, "variations": text}``, each ``height`` rows of ``width``
    characters ending in a newline. Raises HostError for a missing, unknown or bad argument."""
    if not isinstance(args, dict):
        raise HostError(f"{_WHAT} expects a table of named arguments, got {show_lua(args)}")
    for key in args:
        if key not in _DEFAULTS:
            hint = f" (the argument is '{_RENAMED[key]}')" if key in _RENAMED else ""
            raise HostError(f"{_WHAT}: unknown argument {key!r}{hint}; the arguments are {', '.join(_DEFAULTS)}")
    seed = _seed(args)
    height = _integer(args, "height", 1, MAX_RANDOM_SIDE, odd=True)
    width = _integer(args, "width", 1, MAX_RANDOM_SIDE, odd=True)
    max_rooms = _integer(args, "maxRooms", 0, _INT32 - 1)
    room_min = _integer(args, "roomMinSize", 1, MAX_RANDOM_SIDE, odd=True)
    room_max = _integer(args, "roomMaxSize", 1, MAX_RANDOM_SIDE, odd=True)
    if room_min > room_max:
        raise HostError(f"{_WHAT}: 'roomMinSize' ({room_min}) is larger than 'roomMaxSize' ({room_max})")
    if max_rooms > 0 and room_max + 2 > min(height, width):
        raise HostError(f"{_WHAT}: with rooms, 'roomMaxSize' + 2 must fit the maze: roomMaxSize {room_max}, "
                        f"height {height}, width {width}")
    maze = labmaze.RandomMaze(
        height=height, width=width, max_rooms=max_rooms, room_min_size=room_min, room_max_size=room_max,
        retry_count=_integer(args, "retryCount", 1, MAX_RETRY_COUNT),
        extra_connection_probability=_probability(args),
        max_variations=_integer(args, "maxVariations", 1, 26),
        has_doors=_boolean(args, "hasDoors"), simplify=_boolean(args, "simplify"),
        spawns_per_room=_integer(args, "roomSpawnCount", 0, _INT32 - 1), spawn_token=_token(args, "spawn"),
        objects_per_room=_integer(args, "roomObjectCount", 0, _INT32 - 1), object_token=_token(args, "object"),
        random_seed=seed)
    return {"entity": str(maze.entity_layer), "variations": str(maze.variations_layer)}


#: host function name -> fn(sandbox, *args)
FUNCTIONS = {"maze_generation.random": random_maze}

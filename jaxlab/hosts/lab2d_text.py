"""Interop with Lab2D's ``WORLD.TEXT``: read a pushbox room, write any grid state.

Lab2D (the ``dmlab2d`` package) reports ``WORLD.TEXT`` as one line per grid
row, each ended by a newline, a cell showing the first character of the
sprite on its top visible layer (' ' when none shows). For pushbox: '*' wall,
'B' box, 'X' empty goal, '&' box on a goal, 'P' the player, ' ' floor; goals
are drawn over the player, so a player standing on a goal shows as 'X'.

- ``pushbox_from_lab2d_text(text)``: the jaxlab pushbox ``GridState`` (frame
  0) of the room a Lab2D pushbox episode starts in, so both engines can play
  the same room move for move.
- ``world_text(state, world)``: a jaxlab grid state in that same format.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.bank import Bank
from jaxlab.kernels.grid.compile import compile_grid
from jaxlab.kernels.grid.kernel import initial_state
from jaxlab.kernels.grid.state import GridState
from jaxlab.levels.lab2d import pushbox
from jaxlab.levels.lab2d.compiled import CompiledGrid
from jaxlab.levels.lab2d.layout import GridLayout
from jaxlab.levels.lab2d.spec import GridSpec
from jaxlab.render.grid import frames as render

#: characters of a pushbox WORLD.TEXT
PUSHBOX_CHARS = "*BX&P "

_WORLDS: Dict[str, CompiledGrid] = {}
_RESETS: Dict[int, Callable] = {}


def pushbox_world(settings: Optional[Mapping[str, Any]] = None) -> CompiledGrid:
    """The compiled pushbox world for ``settings`` (cached per settings)."""
    name = json.dumps(settings or {}, sort_keys=True, default=str)
    if name not in _WORLDS:
        _WORLDS[name] = compile_grid(pushbox.build(dict(settings or {})))
    return _WORLDS[name]


def _reset_with_room(world: CompiledGrid) -> Callable:
    """jit of ``(chars uint8[H, W], key) -> GridState``: ``world``'s own reset
    with a bank of the one room ``chars`` as its layouts (cached per world)."""
    if id(world) not in _RESETS:
        _RESETS[id(world)] = jax.jit(lambda chars, key: initial_state(world, key, Bank(GridLayout(chars[None]))))
    return _RESETS[id(world)]


def _as_str(text: Union[str, bytes, np.ndarray]) -> str:
    """WORLD.TEXT as a str: accepts str, bytes, or dmlab2d's 0-d object array."""
    if isinstance(text, np.ndarray):
        if text.shape != ():
            raise ValueError(f"WORLD.TEXT must be one string, got an array of shape {text.shape}")
        text = text.item()
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError as error:
            raise ValueError(f"WORLD.TEXT must be ASCII: {error}") from None
    if not isinstance(text, str):
        raise ValueError(f"WORLD.TEXT must be str or bytes, got {type(text).__name__}")
    return text


def parse_pushbox_text(text: Union[str, bytes, np.ndarray]) -> Tuple[str, ...]:
    """The rows of a pushbox WORLD.TEXT (H strings of length W), checked.

    Raises ValueError for an empty text, rows of different lengths, a
    character other than ``PUSHBOX_CHARS``, not exactly one 'P', or a number
    of boxes ('B' + '&') different from the number of goals ('X' + '&').
    """
    text = _as_str(text)
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows = rows[:-1]  # every row ends with a newline
    if not rows or not rows[0]:
        raise ValueError("WORLD.TEXT is empty: expected one line per grid row")
    widths = [len(r) for r in rows]
    if len(set(widths)) != 1:
        bad = next(i for i, w in enumerate(widths) if w != widths[0])
        raise ValueError(f"WORLD.TEXT rows must all have the same length: row 1 has {widths[0]} characters, "
                         f"row {bad + 1} has {widths[bad]} ({rows[bad]!r})")
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch not in PUSHBOX_CHARS:
                raise ValueError(f"WORLD.TEXT row {r + 1}, column {c + 1}: unknown character {ch!r} "
                                 f"(pushbox uses {PUSHBOX_CHARS!r})")
    counts = {ch: sum(row.count(ch) for row in rows) for ch in PUSHBOX_CHARS}
    if counts["P"] != 1:
        raise ValueError(f"WORLD.TEXT must show exactly one player 'P', found {counts['P']} (the player must be "
                         "visible, as at the start of an episode, not standing on a goal)")
    boxes, goals = counts["B"] + counts["&"], counts["X"] + counts["&"]
    if boxes != goals:
        raise ValueError(f"WORLD.TEXT has {boxes} boxes ('B' + '&') but {goals} goals ('X' + '&')")
    return tuple(rows)


def pushbox_from_lab2d_text(text: Union[str, bytes, np.ndarray], settings: Optional[Mapping[str, Any]] = None,
                            key: Optional[jax.Array] = None) -> GridState:
    """The jaxlab pushbox state (frame 0) of a Lab2D pushbox WORLD.TEXT.

    Args:
      text: ``WORLD.TEXT`` of a dmlab2d pushbox episode with the player
        visible (as at its start): str, bytes, or dmlab2d's 0-d object array.
        H lines of W characters, each ended by a newline.
      settings: pushbox settings (``jaxlab.levels.lab2d.pushbox``); its
        ``gridShape`` defaults to the text's size and must match it.
      key: PRNG key of the state (default ``PRNGKey(0)``); pushbox plays no
        randomness after reset, so it changes nothing observable.

    Returns:
      GridState of the world ``pushbox_world(settings)`` (the one
      ``GridEnv(pushbox.build(settings))`` compiles): grid int32[3, H, W],
      pos int32[1, 2] at the 'P' cell, frame 0 — exactly what that env's
      reset gives when its generator draws this room. Raises ValueError for
      malformed text (see ``parse_pushbox_text``) or a mismatched gridShape.
    """
    rows = parse_pushbox_text(text)
    H, W = len(rows), len(rows[0])
    settings = dict(settings or {})
    shape = dict(settings.get("gridShape") or {})
    if shape.get("height", H) != H or shape.get("width", W) != W:
        raise ValueError(f"settings gridShape {shape} does not match the text's {H} rows of {W} columns")
    settings["gridShape"] = {"height": H, "width": W}
    world = pushbox_world(settings)
    chars = np.array([[ord(ch) for ch in row] for row in rows], np.uint8)
    return _reset_with_room(world)(chars, jax.random.PRNGKey(0) if key is None else key)


def world_text(state: Union[GridState, np.ndarray, jnp.ndarray],
               world: Union[CompiledGrid, GridSpec, Any, None] = None) -> str:
    """Lab2D's WORLD.TEXT of one grid state: H lines of W characters, each
    ended by a newline.

    Args:
      state: an unbatched GridState, or its grid int32[L, H, W].
      world: the state's CompiledGrid (a GridSpec, or a GridEnv — its
        ``.world`` — also do). Default: the pushbox world of the grid's size.
    """
    grid = np.asarray(state.grid if isinstance(state, GridState) else state)
    if world is None:
        world = pushbox_world({"gridShape": {"height": int(grid.shape[-2]), "width": int(grid.shape[-1])}})
    elif isinstance(world, GridSpec):
        world = compile_grid(world)
    elif not isinstance(world, CompiledGrid):
        world = getattr(world, "world", world)
        if not isinstance(world, CompiledGrid):
            raise TypeError(f"world must be a CompiledGrid, GridSpec or GridEnv, got {type(world).__name__}")
    expected = (len(world.layers), world.height, world.width)
    if grid.shape != expected:
        raise ValueError(f"grid of shape {grid.shape} does not fit world {world.spec.name!r} "
                         f"(int32{list(expected)}); for a batch, render one state at a time")
    return render.world_text(world, grid)

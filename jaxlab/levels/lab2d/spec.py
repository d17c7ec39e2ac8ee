"""A grid world declared as data: the one input of the grid compiler.

Every grid level — built in (``jaxlab.levels.lab2d``) or authored in Lua
(``compile_lua``) — is a ``GridSpec``. The vocabulary is Lab2D's: a world has
named *layers*; every cell holds at most one *state* per layer; a state has a
sprite (ASCII art plus palette), a character for ``WORLD.TEXT`` and groups.
Players are avatars (states on their layer) driven by per-player actions.
What happens is declared, not scripted:

- ``Contact``: a moving piece (an avatar, or a box it pushes) enters or leaves
  a cell holding another state: reward, change of state, inventory, removal of
  a caught player;
- ``Beam``/``BeamHit``: a fire action casts a beam ahead of the avatar; it
  changes the states it hits and freezes (or rewards) the players it hits;
- ``Transition``: each frame a cell in one state becomes another with a
  probability that may depend on how many cells of some state lie nearby
  (``neighbour``/``radius``) and on a global fraction (``Depletion``);
- ``MatrixGame``: a beam hit between two players resolves a matrix game on
  their inventories.

Positions are (row, column), row 0 at the top (north). Orientations are
0 N, 1 E, 2 S, 3 W. Frames are agent steps (Lab2D steps one frame per call).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, Optional, Tuple, Union

#: Absolute moves, Lab2D's order: action value k (1..4) moves towards COMPASS[k-1].
COMPASS = ("N", "E", "S", "W")
#: (d_row, d_col) per orientation 0 N, 1 E, 2 S, 3 W.
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1))

RGBA = Tuple[int, int, int, int]


class GridSpecError(ValueError):
    """A GridSpec that cannot be compiled (the message says which entry and why)."""


@dataclasses.dataclass(frozen=True)
class Sprite:
    """Sprite art: ``rows`` of equal length, one character per pixel; each
    character is a key of ``palette`` (RGB or RGBA; alpha 0 is transparent).
    Art of any square size is scaled to the world's ``sprite_size`` (8 or 16)
    by nearest neighbour."""

    rows: Tuple[str, ...]
    palette: Dict[str, Union[RGBA, Tuple[int, int, int]]]


@dataclasses.dataclass(frozen=True)
class State:
    """A kind of piece. ``layer`` is one of the world's layers; two pieces
    never share a cell on one layer, so a move into an occupied cell of the
    mover's layer is blocked (unless the occupant is ``pushable`` and the cell
    beyond it is free). ``char`` is its character in ``WORLD.TEXT`` (the top
    visible layer's char wins; ' ' when nothing shows). ``sprite`` None is
    invisible. ``blocks_beams``: beams stop at it."""

    name: str
    layer: str
    sprite: Optional[Sprite] = None
    char: str = " "
    groups: Tuple[str, ...] = ()
    pushable: bool = False
    blocks_beams: bool = False


@dataclasses.dataclass(frozen=True)
class Player:
    """One player: the avatar ``state`` it is drawn as, and the ``spawn``
    state (any layer) whose cells it starts on (a random free one)."""

    state: str
    spawn: str


@dataclasses.dataclass(frozen=True)
class Contact:
    """When a piece in state ``mover`` enters (``on='enter'``) or leaves
    (``on='leave'``) a cell holding ``other`` (on another layer, or the same
    layer when ``other`` is an avatar it catches):

    - ``becomes``: ``other`` changes to this state ('' removes it; None keeps);
    - ``reward``: to the player who moved (or pushed);
    - ``collect``: index into ``GridSpec.items`` added to the mover's inventory;
    - ``other_reward``/``respawn_frames``: when ``other`` is an avatar, its
      player gets ``other_reward`` and is removed for ``respawn_frames``
      frames before it respawns at a free spawn cell (catching)."""

    mover: str
    other: str
    on: str = "enter"
    becomes: Optional[str] = None
    reward: float = 0.0
    collect: Optional[int] = None
    other_reward: float = 0.0
    respawn_frames: int = 0


@dataclasses.dataclass(frozen=True)
class Beam:
    """A fire action (action name ``action``, values 0/1) that casts a beam
    ``length`` cells ahead of the avatar and ``radius`` cells to each side,
    stopped per lane by states with ``blocks_beams``. Drawn for one frame as
    ``overlay`` (a state on its own layer, usually 'overlay'). A player may
    fire again ``cooldown`` frames later; firing costs ``cost`` reward."""

    action: str
    length: int
    radius: int = 0
    overlay: Optional[str] = None
    cooldown: int = 0
    cost: float = 0.0


@dataclasses.dataclass(frozen=True)
class BeamHit:
    """What beam ``beam`` (an action name) does to a cell holding ``target``:
    ``becomes`` changes it ('' removes, None keeps), ``reward`` goes to the
    firer. When ``target`` is an avatar, its player also gets
    ``target_reward`` and is frozen (no moves, turns or beams) for
    ``freeze_frames``."""

    beam: str
    target: str
    becomes: Optional[str] = None
    reward: float = 0.0
    target_reward: float = 0.0
    freeze_frames: int = 0


@dataclasses.dataclass(frozen=True)
class Depletion:
    """A global factor max(0, 1 - f / zero_at) where f is the fraction of
    cells in ``among`` that are in ``state`` (e.g. river pollution)."""

    state: str
    among: Tuple[str, ...]
    zero_at: float


@dataclasses.dataclass(frozen=True)
class Transition:
    """Each frame every cell in ``source`` becomes ``target`` ('' removes)
    with ``probability``: a float, or a tuple indexed by the number of cells
    in state ``neighbour`` within Euclidean ``radius`` (the last entry covers
    any larger count), times ``depletion`` when given. Cells under an avatar
    do not change unless ``under_avatars``."""

    source: str
    target: str
    probability: Union[float, Tuple[float, ...]]
    neighbour: Optional[str] = None
    radius: int = 1
    depletion: Optional[Depletion] = None
    under_avatars: bool = False


@dataclasses.dataclass(frozen=True)
class MatrixGame:
    """A hit by beam ``beam`` on another player resolves a matrix game: each
    player's strategy is its inventory of ``GridSpec.items`` as proportions
    (x, y); the firer gets x·A·y and the hit player y·A·x with A =
    ``payoff`` (rows: the firer's item). Both inventories go back to
    ``GridSpec.initial_inventory``; the hit player is removed for
    ``respawn_frames``. Players holding fewer than ``min_items`` items are
    not resolved (the beam passes them)."""

    beam: str
    payoff: Tuple[Tuple[float, ...], ...]
    respawn_frames: int = 0
    min_items: int = 1


@dataclasses.dataclass(frozen=True)
class View:
    """A player's egocentric window, in cells around its avatar, rotated so
    the avatar faces up: ``left``/``right`` to each side, ``forward`` ahead,
    ``backward`` behind. Lab2D's common 11×11 window is left=right=5,
    forward=9, backward=1."""

    left: int = 5
    right: int = 5
    forward: int = 9
    backward: int = 1


@dataclasses.dataclass(frozen=True)
class GridSpec:
    """A whole grid level as data (see the module docstring).

    map: rows of characters, all the same length (the grid is H×W).
    char_map: map character -> state names placed in that cell (one per layer).
    layers: layer names in render order (later layers drawn on top).
    movement: 'absolute' (move 1..4 = N/E/S/W) or 'relative' (forward, right,
      backward, left of the avatar's orientation).
    episode_frames: frames per episode (the episode is truncated after them).
    end_when_gone: the episode terminates once no cell holds this state,
      adding ``completion_reward`` to every player that frame.
    step_cost: subtracted from every player's reward each frame.
    items: inventory item names; initial_inventory: each player's start.
    action_prefix: per-player action names ``1.move`` (True) or Lab2D
      pushbox's single ``MOVE`` (False, one player, no turn or beams).
    generator: optional pure function ``key -> uint8[H, W]`` of map
      characters (ASCII codes, read through ``char_map``) that replaces
      ``map`` at every reset (e.g. pushbox's rooms); jit- and vmap-safe.
    settings: the level settings the spec was built from (properties API).
    """

    name: str
    map: Tuple[str, ...]
    char_map: Dict[str, Tuple[str, ...]]
    layers: Tuple[str, ...]
    states: Tuple[State, ...]
    players: Tuple[Player, ...]
    contacts: Tuple[Contact, ...] = ()
    beams: Tuple[Beam, ...] = ()
    beam_hits: Tuple[BeamHit, ...] = ()
    transitions: Tuple[Transition, ...] = ()
    matrix_game: Optional[MatrixGame] = None
    items: Tuple[str, ...] = ()
    initial_inventory: Tuple[int, ...] = ()
    movement: str = "absolute"
    topology: str = "bounded"
    sprite_size: int = 8
    view: View = View()
    episode_frames: int = 1000
    end_when_gone: Optional[str] = None
    completion_reward: float = 0.0
    step_cost: float = 0.0
    action_prefix: bool = True
    generator: Optional[Callable[[Any], Any]] = None
    settings: Dict[str, Any] = dataclasses.field(default_factory=dict)

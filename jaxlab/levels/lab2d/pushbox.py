"""pushbox: Sokoban with rooms generated on device (Lab2D's pushbox rules).

One player pushes boxes onto goals in a room made by playing backwards from a
solved state (``pushbox_rooms``). Each frame costs ``stepCost`` (0.1); a box
pushed onto a goal gives +1, off a goal −1; filling every goal gives +10 and
ends the episode; otherwise it ends after ``episodeLengthFrames`` (120). The
single action is ``MOVE`` (0 none, 1 N, 2 E, 3 S, 4 W). Layers, in render
order: 'invisible' (spawn point), 'pieces' (walls, boxes, the player) and
'logic' (goals, drawn over the pieces), so ``WORLD.TEXT`` shows a goal (X or
&) rather than a player standing on it, as Lab2D does.
"""
from __future__ import annotations

import functools
from typing import Any, Dict, Mapping, Optional

from jaxlab.levels.lab2d.checks import merge_settings
from jaxlab.levels.lab2d.pushbox_rooms import check_sizes, generate_room
from jaxlab.levels.lab2d.spec import Contact, Player, Sprite, State, GridSpec
from jaxlab.settings import SettingError

DEFAULT_SETTINGS: Dict[str, Any] = {
    "spriteSize": 8,
    "episodeLengthFrames": 120,
    "gridShape": {"width": 10, "height": 10},
    "topology": "BOUNDED",
    "stepCost": 0.1,
    "numBoxes": 4,
    "roomSteps": 30,
}

#: Lab2D pushbox's WORLD.TEXT characters.
CHARS = {"wall": "*", "box": "B", "goal": "X", "boxGoal": "&", "player": "P"}

_WALL = Sprite(rows=("####",
                     "#..#",
                     "#..#",
                     "####"), palette={"#": (96, 92, 88), ".": (130, 124, 118)})
_BOX = Sprite(rows=("########",
                    "#hhhhhh#",
                    "#h#hh#h#",
                    "#hh##hh#",
                    "#hh##hh#",
                    "#h#hh#h#",
                    "#hhhhhh#",
                    "########"), palette={"#": (120, 72, 30), "h": (190, 132, 62)})
_GOAL = Sprite(rows=("gg....gg",
                     "g......g",
                     "........",
                     "........",
                     "........",
                     "........",
                     "g......g",
                     "gg....gg"), palette={"g": (230, 60, 60), ".": (0, 0, 0, 0)})
_BOX_GOAL = Sprite(rows=_GOAL.rows, palette={"g": (80, 220, 90), ".": (0, 0, 0, 0)})
_PLAYER = Sprite(rows=("........",
                       "...oo...",
                       "..oooo..",
                       "...oo...",
                       ".oooooo.",
                       "...oo...",
                       "..o..o..",
                       ".o....o."), palette={"o": (60, 200, 80), ".": (0, 0, 0, 0)})


def build(settings: Optional[Mapping[str, Any]] = None) -> GridSpec:
    """The pushbox GridSpec for ``settings`` (DEFAULT_SETTINGS merged by
    ``merge_settings``: unknown names raise with suggestions, bad values
    SettingError)."""
    s = merge_settings("pushbox", DEFAULT_SETTINGS, settings)
    height, width = s["gridShape"]["height"], s["gridShape"]["width"]
    fits = "at most as many boxes as the grid holds"
    for name, value, boxes, what in (("gridShape", s["gridShape"], 1, "a grid that holds a room"),
                                     ("numBoxes", s["numBoxes"], s["numBoxes"], fits)):
        try:   # the grid must hold a room with one box, then the room with the boxes asked for
            check_sizes(height, width, boxes, s["roomSteps"])
        except ValueError as err:
            raise SettingError(name, f"{what} ({err})", value, "pushbox") from None
    states = (
        State("spawnPoint", "invisible"),
        State("wall", "pieces", _WALL, CHARS["wall"], blocks_beams=True),
        State("box", "pieces", _BOX, CHARS["box"], pushable=True),
        State("player", "pieces", _PLAYER, CHARS["player"]),
        State("goal", "logic", _GOAL, CHARS["goal"], groups=("empty_goal",)),
        State("boxGoal", "logic", _BOX_GOAL, CHARS["boxGoal"]),
    )
    return GridSpec(
        name="pushbox",
        map=(" " * width,) * height,
        char_map={" ": (), "*": ("wall",), "B": ("box",), "X": ("goal",), "&": ("box", "boxGoal"),
                  "P": ("spawnPoint",)},
        layers=("invisible", "pieces", "logic"),
        states=states,
        players=(Player("player", "spawnPoint"),),
        contacts=(Contact("box", "goal", "enter", becomes="boxGoal", reward=1.0),
                  Contact("box", "boxGoal", "leave", becomes="goal", reward=-1.0)),
        movement="absolute",
        topology=str(s["topology"]).lower(),
        sprite_size=int(s["spriteSize"]),
        episode_frames=int(s["episodeLengthFrames"]),
        end_when_gone="goal",
        completion_reward=10.0,
        step_cost=float(s["stepCost"]),
        action_prefix=False,
        generator=functools.partial(generate_room, height=height, width=width, num_boxes=int(s["numBoxes"]),
                                    room_steps=int(s["roomSteps"])),
        settings=s,
    )

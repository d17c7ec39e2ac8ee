""".map sources (Quake III maps, as in DeepMind Lab's assets/maps/src) converted to jaxlab levels.

Small maps written here, in the format's own terms, pin down the parser (``jaxlab.levels.dmlab.quake_map``)
and the conversion (``quake_layout``, ``quake_flat``); ``compile_script`` with a fake checkout made in
tmp_path covers the lookup (``compile_lua.dmlab.maps``). The tests marked ``needs_checkout`` read a real
DeepMind Lab checkout at /tmp/dmlab and are skipped, each with the reason, without one.
"""
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from compile_lua import CompileWarning, LuaScriptError, compile_script
from jaxlab.levels.dmlab import quake_map
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, MapError
from jaxlab.levels.dmlab.quake_layout import LAYOUT_CELLS, LAYOUT_ROOMS, convert_quake_map
from jaxlab.levels.dmlab.quake_map import UnconvertibleMap, parse_quake_map

CHECKOUT = Path("/tmp/dmlab")
needs_checkout = pytest.mark.skipif(not (CHECKOUT / "assets" / "maps" / "src").is_dir(),
                                    reason=f"no DeepMind Lab checkout at {CHECKOUT} (assets/maps/src)")
PICTURED = ["nav_maze_static_01", "nav_maze_static_02", "nav_maze_static_03", "nav_maze_random_goal_01",
            "nav_maze_random_goal_02", "nav_maze_random_goal_03", "seekavoid_arena_01"]


# -- writing small .map files ---------------------------------------------------------------------------

def box(lo, hi, texture="test/wall"):
    """A brush: the six faces of the box lo..hi, each three points on its plane ordered so that
    (p3 - p1) x (p2 - p1) points out of the box."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    faces = [((x0, 0, 0), (x0, 1, 0), (x0, 0, 1)), ((x1, 0, 0), (x1, 0, 1), (x1, 1, 0)),
             ((0, y0, 0), (0, y0, 1), (1, y0, 0)), ((0, y1, 0), (1, y1, 0), (0, y1, 1)),
             ((0, 0, z0), (1, 0, z0), (0, 1, z0)), ((0, 0, z1), (0, 1, z1), (1, 0, z1))]
    return brush(faces, texture)


def brush(faces, texture="test/wall"):
    """A brush of faces given as three points each."""
    lines = [" ".join(f"( {p[0]:g} {p[1]:g} {p[2]:g} )" for p in face) + f" {texture} 0 0 0 0.5 0.5 0 0 0"
             for face in faces]
    return "{\n" + "\n".join(lines) + "\n}\n"


def entity(classname, origin=None, brushes=(), **fields):
    """An entity: its classname, origin "x y z", other key-values and brushes."""
    pairs = {"classname": classname, **({"origin": origin} if origin else {}), **fields}
    return "{\n" + "".join(f'"{k}" "{v}"\n' for k, v in pairs.items()) + "".join(brushes) + "}\n"


def tiles(cells, walls):
    """World brushes of a room grid: a floor and a sky tile per (i, j) in ``cells`` (tile i along x, j along
    y, 100 units) and a one-unit wall slab inside a tile per (i, j, side) in ``walls``, side one of
    'west', 'east', 'south', 'north'."""
    out = []
    for i, j in cells:
        out.append(box((100 * i, 100 * j, 0), (100 * i + 100, 100 * j + 100, 1), "test/floor"))
        out.append(box((100 * i, 100 * j, 99), (100 * i + 100, 100 * j + 100, 100), "test/sky"))
    for i, j, side in walls:
        x, y = 100 * i, 100 * j
        lo, hi = {"west": ((x, y), (x + 1, y + 100)), "east": ((x + 99, y), (x + 100, y + 100)),
                  "south": ((x, y), (x + 100, y + 1)), "north": ((x, y + 99), (x + 100, y + 100))}[side]
        out.append(box((*lo, 0), (*hi, 100)))
    return out


def enclosing(cells):
    """The slabs on every side of the tiles ``cells`` that faces no tile."""
    steps = {"west": (-1, 0), "east": (1, 0), "south": (0, -1), "north": (0, 1)}
    return [(i, j, side) for i, j in cells for side, (di, dj) in steps.items() if (i + di, j + dj) not in cells]


def room(interior=(400, 292), walls=(), extra=()):
    """A flat room: a floor box, 8-unit walls round an interior of ``interior`` units from (8, 8), more
    world brushes ``walls``, a spawn point near one corner, an apple near the other and ``extra`` entities."""
    w, h = interior
    world = [box((0, 0, -8), (w + 16, h + 16, 0), "test/floor"),
             box((0, 0, 0), (8, h + 16, 128)), box((w + 8, 0, 0), (w + 16, h + 16, 128)),
             box((8, 0, 0), (w + 8, 8, 128)), box((8, h + 8, 0), (w + 8, h + 16, 128)), *walls]
    return (entity("worldspawn", brushes=world) + entity("info_player_start", "50 50 24")
            + entity("apple_reward", f"{w - 40} {h - 40} 16") + "".join(extra))


def grid_text(parsed):
    """A ParsedMap as text: '*' wall, ' ' floor, 'P' spawn, 'A' apple, 'o' another pickup."""
    rows = [["*" if v != CELL_FLOOR else " " for v in row] for row in parsed.cells]
    for r, c in parsed.spawns:
        rows[r][c] = "P"
    for r, c, cls in parsed.pickups:
        rows[r][c] = "A" if cls == "apple_reward" else "o"
    return "\n".join("".join(row) for row in rows)


def convert(text, source="test.map"):
    return convert_quake_map(parse_quake_map(text, source))


# -- room grids ------------------------------------------------------------------------------------------

def test_tiles_with_walls_only_toward_no_floor_are_the_cells():
    """An L of three floor tiles walled where no tile is: each tile is a cell, origins keep their cell."""
    cells = [(0, 0), (1, 0), (1, 1)]
    text = (entity("worldspawn", brushes=tiles(cells, enclosing(cells)))
            + entity("info_player_start", "50 50 30", angle="90") + entity("apple_reward", "150 150 20"))
    converted = convert(text)
    assert converted.layout == LAYOUT_CELLS
    assert grid_text(converted.parsed) == "****\n**A*\n*P *\n****"
    assert converted.level_xy(50, 50) == (150, 150)
    assert converted.spawn_vars == ({"classname": "info_player_start", "origin": "50 50 30", "angle": "90"},
                                    {"classname": "apple_reward", "origin": "150 150 20"})


def test_thin_walls_between_floor_tiles_make_rooms_with_cells_between_them():
    """Four tiles, one wall slab between the two lower ones: rooms at odd (row, col), the cells between
    rooms open where no slab stands, the corner between the four closed (one of its sides is)."""
    cells = [(0, 0), (1, 0), (0, 1), (1, 1)]
    text = (entity("worldspawn", brushes=tiles(cells, enclosing(cells) + [(0, 0, "east")]))
            + entity("info_player_start", "50 50 30") + entity("apple_reward", "150 50 20")
            + entity("goal", "170 180 20"))
    converted = convert(text)
    assert converted.layout == LAYOUT_ROOMS
    assert grid_text(converted.parsed) == "*****\n*  o*\n* * *\n*P*A*\n*****"
    assert converted.level_xy(150, 50) == (350, 150)
    assert converted.level_xy(170, 180) == (370, 380)   # a point keeps its place inside its room


def test_rooms_open_to_each_other_on_all_sides_open_their_corner():
    cells = [(0, 0), (1, 0), (0, 1), (1, 1)]
    walls = enclosing(cells) + [(0, 0, "east"), (1, 0, "west")]   # both faces of one wall, as DMLab writes them
    closed = convert(entity("worldspawn", brushes=tiles(cells, walls)) + entity("info_player_start", "50 150 30"))
    opened = convert(entity("worldspawn", brushes=tiles(cells + [(2, 0)], enclosing(cells + [(2, 0)])
                                                        + [(1, 0, "east"), (2, 0, "west")]))
                     + entity("info_player_start", "50 150 30"))
    assert grid_text(closed.parsed) == "*****\n*P  *\n* * *\n* * *\n*****"
    assert grid_text(opened.parsed) == "*******\n*P  ***\n*   ***\n*   * *\n*******"


def test_a_floor_tile_open_toward_no_floor_is_refused():
    cells = [(0, 0), (1, 0)]
    walls = [w for w in enclosing(cells) if w != (1, 0, "east")]
    with pytest.raises(UnconvertibleMap, match=r"test.map: cannot be converted .* x 200, y 0 .*edge to fall from"):
        convert(entity("worldspawn", brushes=tiles(cells, walls)) + entity("info_player_start", "50 50 30"))


def test_an_entity_off_the_floor_is_refused():
    cells = [(0, 0), (1, 0)]
    text = (entity("worldspawn", brushes=tiles(cells, enclosing(cells))) + entity("info_player_start", "50 50 30")
            + entity("apple_reward", "150 150 20"))
    with pytest.raises(UnconvertibleMap, match=r"'apple_reward' at line \d+ \(origin '150 150 20'\) is not on"):
        convert(text)


# -- flat maps ---------------------------------------------------------------------------------------------

def test_a_flat_room_becomes_whole_cells_with_its_entities_where_they_stand():
    """A 400 x 292 room: 4 x 3 floor cells (the walls move by 4 units), entities at their own points."""
    converted = convert(room())
    assert converted.layout == LAYOUT_CELLS
    assert grid_text(converted.parsed) == "******\n*   A*\n*    *\n*P   *\n******"
    x, y = converted.level_xy(50, 50)
    assert (x - 50, y - 50) == converted.level_xy(0, 0) and 100 < x < 200 and 100 < y < 200
    assert re.search(r"moved onto 100-unit cells by up to ([0-9]|1[0-9]|2[0-5]) units", converted.notes[-1])


RAMP = brush([((100, 8, 0), (100, 9, 0), (100, 8, 1)), ((300, 8, 0), (300, 8, 1), (300, 9, 0)),
              ((0, 100, 0), (0, 100, 1), (1, 100, 0)), ((0, 200, 0), (1, 200, 0), (0, 200, 1)),
              ((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((100, 100, 40), (100, 200, 40), (300, 100, 0))])


@pytest.mark.parametrize("case, expected", [
    ("door", "the door at line \\d+ stands in no doorway"),
    ("pit", "its floor has a gap near"),
])
def test_what_a_map_cannot_hold_is_refused_with_the_reason(case, expected):
    """Refusals, each with its own reason: a door in no doorway, a hole in the floor."""
    texts = {
        "door": room(extra=[entity("func_door", brushes=[box((200, 8, 0), (208, 300, 128))])]),
        "pit": room().replace(box((0, 0, -8), (416, 308, 0), "test/floor"),
                              box((0, 0, -8), (200, 308, 0), "test/floor") + box((260, 0, -8), (416, 308, 0))),
    }
    with pytest.raises(UnconvertibleMap, match=f"test.map: cannot be converted to a jaxlab level: .*{expected}"):
        convert(texts[case])


def heights_of(converted):
    """The converted level's floor_z (row 0 at the top), and a function (x, y) in DeepMind Lab's units -> the
    ground there."""
    floor_z = converted.parsed.floor_z
    assert floor_z is not None and converted.layout == LAYOUT_CELLS
    assert floor_z.shape == tuple(2 * n for n in converted.parsed.cells.shape)

    def at(x, y):
        lx, ly = converted.level_xy(x, y)
        return float(floor_z[floor_z.shape[0] - 1 - int(ly // 50), int(lx // 50)])
    return floor_z, at


def test_a_step_a_thin_wall_and_a_second_spawn_height_become_ground_heights():
    """What a flat map cannot hold: a 16-unit step, a 4-unit wall and a spawn point on a 40-unit block are
    ground on 50-unit height cells; walls are raised to their tops (the ceiling stacked on them), the
    floor keeps its height, the border has no floor."""
    text = room(walls=[box((100, 100, 0), (200, 200, 16)), box((300, 8, 0), (304, 150, 128)),
                       box((300, 200, 0), (380, 280, 40))],
                extra=[entity("info_player_start", "340 240 64")])
    floor_z, at = heights_of(convert(text))
    assert at(150, 150) == 16 and at(50, 50) == 0 and at(340, 240) == 40 and at(302, 60) == 128
    assert at(380, 60) == 0 and at(4, 150) == 128
    assert (floor_z[0] == -4096).all() and (floor_z[:, -1] == -4096).all()


def test_a_ramp_becomes_height_cells_rising_within_the_step_height():
    """A wedge falling 40 units over 200 (x 100..300, a 40-unit face at x 100): the cells over it fall with
    the slope, each step under the 18-unit step height, to the floor; the spawn point on it stands on it."""
    text = room(walls=[RAMP], extra=[entity("info_player_start", "200 150 44")])
    floor_z, at = heights_of(convert(text))
    assert at(50, 150) == 0 and at(350, 150) == 0 and max(at(x, 150) for x in range(50, 400, 25)) <= 40
    rises = np.diff([at(x, 150) for x in (125, 175, 225, 275, 325)])
    assert (rises < 0).all() and (np.abs(rises) <= 18).all()


def teleport_rooms(extra_world=(), extra=(), target="dest"):
    """A room with a teleporter (a trigger_teleport volume over its floor) to a second room 600 units east,
    its destination facing 90 degrees."""
    second = [box((600, 0, -8), (816, 216, 0), "test/floor"), box((600, 0, 0), (608, 216, 128)),
              box((808, 0, 0), (816, 216, 128)), box((608, 0, 0), (808, 8, 128)), box((608, 208, 0), (808, 216, 128))]
    pad = entity("trigger_teleport", brushes=[box((200, 100, 8), (248, 148, 48), "common/trigger")],
                 target=target, id="7")
    ghost = box((200, 100, 0), (248, 148, 10), "map/ghost")
    return room(walls=[*second, ghost, *extra_world],
                extra=[pad, entity("misc_teleporter_dest", "700 100 24", targetname="dest", angle="90"), *extra])


def test_a_teleporter_becomes_a_point_at_its_volume_and_its_destination_a_second_floor():
    """The trigger volume is an entity at its centre keeping its key-values, the destination's room is
    floor too (reached only through the teleporter), the pad's non-solid glow is left out with a note."""
    converted = convert(teleport_rooms())
    pad = next(v for v in converted.spawn_vars if v["classname"] == "trigger_teleport")
    assert pad == {"classname": "trigger_teleport", "target": "dest", "id": "7", "origin": "224 124 8"}
    cells = converted.parsed.cells
    for x, y in ((224, 124), (700, 100), (50, 50)):
        lx, ly = converted.level_xy(x, y)
        assert cells[cells.shape[0] - 1 - int(ly // 100), int(lx // 100)] == CELL_FLOOR
    assert any("1 non-solid brushes (map/ghost, map/nodrop) are left out" in note for note in converted.notes)


def clip_ring(x0, y0, x1, y1):
    """Four 8-unit invisible player-clip brushes (map/poltergeist) 80 high round x0..x1, y0..y1."""
    return [box((x0, y0, 0), (x1, y0 + 8, 80), "map/poltergeist"), box((x0, y1 - 8, 0), (x1, y1, 80), "map/poltergeist"),
            box((x0, y0 + 8, 0), (x0 + 8, y1 - 8, 80), "map/poltergeist"),
            box((x1 - 8, y0 + 8, 0), (x1, y1 - 8, 80), "map/poltergeist")]


def test_invisible_clip_brushes_closed_around_an_object_keep_it_out_of_reach():
    """A ring of clip brushes round a lemon is kept as a box whose inside is out of reach; a ring round
    nothing (an invisible wall) is refused."""
    converted = convert(room(walls=clip_ring(280, 180, 360, 260), extra=[entity("lemon_reward", "320 220 16")]))
    assert converted.enclosures == ((280.0, 180.0, 360.0, 260.0),)
    assert converted.enclosed(*converted.level_xy(320, 220)) and not converted.enclosed(*converted.level_xy(50, 50))
    with pytest.raises(UnconvertibleMap, match=r"invisible player-clip brushes at lines \d+, \d+, \d+, \d+ close "
                                               r"around no entity"):
        convert(room(walls=clip_ring(100, 100, 200, 200)))


@pytest.mark.parametrize("target, expected", [("nowhere", "has target 'nowhere', which names no")])
def test_a_teleporter_to_nowhere_is_refused(target, expected):
    with pytest.raises(UnconvertibleMap, match=expected):
        convert(teleport_rooms(target=target))


def test_a_teleporter_asks_the_scripts_triggers_and_moves_the_player(tmp_path):
    """Compiled: the pad is a pickup back the next frame that pays trigger's addScore and leads to the
    destination facing its angle; the enclosed lemon can never be taken."""
    script = """
        local game = require 'dmlab.system.game'
        return {nextMap = function() return 'pads' end,
                canTrigger = function(self, id, target) return id == 7 and target == 'dest' end,
                trigger = function(self, id, target) game:addScore(3) return false end}
    """
    path, game_scripts = checkout(tmp_path, maps={"pads": teleport_rooms(clip_ring(280, 180, 360, 260), [entity("lemon_reward", "320 220 16")])},
                                  script=script)
    with pytest.warns(CompileWarning):
        levels = compile_script(path, levels_dir=game_scripts).bank.levels
    first = {name: np.asarray(getattr(levels, name))[0] for name in (
        "pickup_teleport", "pickup_reward", "pickup_takeable", "pickup_respawn_frames", "pickup_valid",
        "teleport_pos", "teleport_yaw", "pickup_pos")}
    pad = int(np.argmax(first["pickup_teleport"] >= 0))
    assert first["pickup_reward"][pad] == 3 and first["pickup_respawn_frames"][pad] == 1
    assert first["teleport_yaw"].tolist() == [90.0]
    lemon = [i for i in range(len(first["pickup_valid"])) if first["pickup_valid"][i] and i != pad
             and first["pickup_reward"][i] == -1]
    assert len(lemon) == 1 and not first["pickup_takeable"][lemon[0]]
    assert np.allclose(first["teleport_pos"][0] - first["pickup_pos"][pad], (700 - 224, 100 - 124))


def test_a_gaze_trigger_volume_is_no_wall_but_a_lookat_zone():
    text = room(extra=[entity("trigger_lookat", brushes=[box((200, 100, 0), (260, 160, 60))])])
    converted = convert(text)
    assert grid_text(converted.parsed) == "******\n*   A*\n*    *\n*P   *\n******"
    assert [(z.lo, z.hi) for z in converted.lookat_zones] == [((200, 100, 0), (260, 160, 60))]


def two_rooms(door_fields, box_target=None):
    """Rooms of 3 x 3 cells either side of a wall at x 308-408 with a 100-unit doorway (y 108-208), a
    func_door slab in it (``door_fields`` its key-values), and a box in the west room (``box_target``: its
    target)."""
    wall = [box((308, 8, 0), (408, 108, 128)), box((308, 208, 0), (408, 308, 128))]
    door = entity("func_door", brushes=[box((354, 108, 0), (362, 208, 128))], **door_fields)
    boxed = entity("box", "150 250 16", **({"target": box_target} if box_target else {}))
    return room(interior=(700, 300), walls=wall, extra=[door, boxed])


def test_a_door_stands_at_its_doorway_as_an_entity():
    converted = convert(two_rooms({"targetname": "gate"}, "gate"))
    assert grid_text(converted.parsed) == "*********\n* o *  A*\n*   o   *\n*P  *   *\n*********"   # o: box, door
    door = [f for f in converted.spawn_vars if f["classname"] == "func_door"]
    assert len(door) == 1 and door[0]["direction"] == "I" and door[0]["targetname"] == "gate"
    assert converted.level_xy(*map(float, door[0]["origin"].split()[:2])) == (450.0, 250.0)


@pytest.mark.parametrize("door_fields, box_target, cell, lock, switch", [
    ({"targetname": "gate"}, "gate", 2, -2, True),      # the box opens it: a switch and a SWITCH_LOCK door
    ({"targetname": "gate"}, None, 2, -1, False),       # nothing opens it: shut
    ({}, None, 2, 0, False),                            # a touch door: opens as the player comes near
    ({"targetname": "gate", "spawnflags": "1"}, "gate", 0, None, False),   # starts open: floor
])
def test_a_maps_door_compiles_to_what_opens_it(tmp_path, door_fields, box_target, cell, lock, switch):
    script = "return {nextMap = function() return 'doors' end, createPickup = function(self, c) if c == 'box' then " \
             "return {name = 'Box', class_name = 'box', model_name = 'm', quantity = -3, type = 9} end end}\n"
    path, game_scripts = checkout(tmp_path, maps={"doors": two_rooms(door_fields, box_target)}, script=script)
    with pytest.warns(CompileWarning):
        levels = compile_script(path, levels_dir=game_scripts).bank.levels
    assert int(np.asarray(levels.cells)[0][2, 4]) == cell                  # CELL_DOOR_I is 2, floor 0
    valid = np.asarray(levels.door_valid)[0]
    assert ([int(v) for v in np.asarray(levels.door_lock)[0][valid]] == [lock]) if lock is not None else not valid.any()
    picked = np.asarray(levels.pickup_valid)[0]
    rewards = np.asarray(levels.pickup_reward)[0][picked].tolist()
    assert np.asarray(levels.pickup_switch)[0][picked][rewards.index(-3.0)] == switch


def test_decorations_and_entities_without_an_origin_are_left_out():
    text = room(extra=[entity("light", "100 100 50"), entity("misc_model", "900 900 0"), entity("target_score")])
    converted = convert(text)
    assert [f["classname"] for f in converted.spawn_vars] == ["info_player_start", "apple_reward"]
    assert any("'target_score' entity has no origin and is left out" in note for note in converted.notes)


# -- malformed files: clear errors at file:line:column ---------------------------------------------------

WORLD = entity("worldspawn", brushes=[box((0, 0, 0), (100, 100, 1))])


@pytest.mark.parametrize("text, where, message", [
    (WORLD[:-2], r"10:1",
     r"the file ends where '}' or more of the entity belongs \(the '\{' at line 1 is never closed\)"),
    ("{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) t 0 0 0 1 1\n", r"4:1",
     r"the file ends where the '}' of a brush belongs \(the '\{' at line 3 is never closed\)"),
    (WORLD.replace("( 0 0 1 ) (", "( 0 0 one ) (", 1), r"6:17", r"expected a number, found 'one'"),
    (WORLD.replace("( 0 0 1 ) (", "( 0 0 1e999 ) (", 1), r"6:17", r"expected a number, found '1e999'"),
    (WORLD.replace("( 0 0 1 ) (", "( 0 0 1 2 ) (", 1), r"6:19", r"expected '\)' after a point's three numbers"),
    (WORLD.replace('"worldspawn"', '"worldspawn'), r"2:13", r"a '\"' that is never closed on its line"),
    (WORLD.replace('"worldspawn"', "worldspawn"), r"2:13", r"the key 'classname' needs a quoted value"),
    (WORLD.replace("{\n( 0", "{\nbrushDef\n( 0", 1), r"4:1", r"'brushDef' brushes \(brush primitives\) are not read"),
    (WORLD.replace(" test/wall 0 0 0 0.5 0.5 0 0 0", "", 1), r"5:1",
     r"expected a texture name after a face's three points, found '\('"),
    (WORLD.replace("0.5 0.5 0 0 0", "0.5 half 0 0 0", 1), r"4:51", r"expected a number, found 'half'"),
    ("{\n\"classname\" \"worldspawn\"\n{\n}\n}\n", r"3:1", r"a brush without faces"),
    ("", r"1:1", r"the map has no entities"),
])
def test_malformed_text_is_a_map_error_at_its_place(text, where, message):
    with pytest.raises(MapError, match=f"^bad.map:{where}: {message}"):
        parse_quake_map(text, "bad.map")


def test_caps_on_size_brushes_faces_and_sloped_corners(monkeypatch):
    with pytest.raises(MapError, match=r"^big.map:1:1: the map is larger than 8 MB"):
        parse_quake_map(" " * (quake_map.MAX_MAP_BYTES + 1), "big.map")
    many_faces = brush([((0, 0, z), (1, 0, z), (0, 1, z)) for z in range(quake_map.MAX_FACES + 1)])
    with pytest.raises(MapError, match=r"^f.map:3:1: a brush with more than 64 faces"):
        parse_quake_map(entity("worldspawn", brushes=[many_faces]), "f.map")
    monkeypatch.setattr(quake_map, "MAX_SLOPED_CORNERS", 30)
    wedge = brush([((0, 0, 0), (0, 1, 0), (0, 0, 1)), ((0, 0, 0), (0, 0, 1), (1, 0, 0)),
                   ((0, 1, 0), (1, 1, 0), (0, 1, 1)), ((0, 0, 0), (1, 0, 0), (0, 1, 0)),
                   ((0, 0, 10), (0, 1, 10), (10, 0, 0))])
    parse_quake_map(entity("worldspawn", brushes=[wedge]), "w.map")   # 10 face triples
    with pytest.raises(MapError, match=r"^w.map:\d+:1: too many sloped brush faces"):
        parse_quake_map(entity("worldspawn", brushes=[wedge] * 4), "w.map")
    monkeypatch.setattr(quake_map, "MAX_BRUSHES", 2)
    with pytest.raises(MapError, match=r"^b.map:\d+:1: more than 2 brushes"):
        parse_quake_map(entity("worldspawn", brushes=[box((0, 0, 0), (1, 1, 1))] * 3), "b.map")


def test_text_where_an_entity_should_open_ends_the_map_with_a_note():
    """As DeepMind Lab's map compiler does (two of its nav mazes lose trailing lights so): what follows is
    not read, and a note says which lines."""
    text = WORLD + '\n"classname" "light"\n"origin" "1 2 3"\n}\n' + entity("apple_reward", "5 5 5")
    parsed = parse_quake_map(text, "m.map")
    assert [e.classname for e in parsed.entities] == ["worldspawn"]
    assert parsed.notes == (f"m.map:{WORLD.count(chr(10)) + 2}: 'classname' stands where an entity's '{{' belongs; "
                            f"DeepMind Lab's map compiler stops reading there, so lines {WORLD.count(chr(10)) + 2}-"
                            f"{text.rstrip().count(chr(10)) + 1} are left out, as they are from its built map",)


def test_faces_without_a_plane_and_empty_brushes_are_dropped_with_notes():
    degenerate = brush([((0, 0, 0), (0, 1, 0), (0, 0, 1)), ((5, 5, 5), (5, 5, 5), (0, 0, 0))] * 3)
    empty = box((10, 0, 0), (0, 10, 10))
    parsed = parse_quake_map(entity("worldspawn", brushes=[degenerate, empty, box((0, 0, 0), (1, 1, 1))]), "d.map")
    assert len(parsed.entities[0].brushes) == 1
    assert any("3 of the brush's 6 faces are dropped" in note for note in parsed.notes)
    assert any(re.match(r"d.map:\d+: the brush is dropped: its faces enclose nothing", note) for note in parsed.notes)


def test_a_patch_is_no_brush_but_kept_as_a_patch():
    patch = ("{\npatchDef2\n{\ndecal/x\n( 3 3 0 0 0 )\n(\n( ( 0 0 0 0 0 ) ( 0 0 1 0 0 ) ( 0 0 2 0 0 ) )\n"
             "( ( 1 0 0 0 0 ) ( 1 0 1 0 0 ) ( 1 0 2 0 0 ) )\n( ( 2 0 0 0 0 ) ( 2 0 1 0 0 ) ( 2 0 2 0 0 ) )\n)\n}\n}\n")
    parsed = parse_quake_map(entity("worldspawn", brushes=[patch, box((0, 0, 0), (1, 1, 1))]), "p.map")
    assert len(parsed.entities[0].patches) == 1 and len(parsed.entities[0].brushes) == 1


def test_a_malformed_origin_is_a_map_error():
    with pytest.raises(MapError, match=r"^o.map:\d+:1: entity 'apple_reward' has origin '1 2'"):
        convert(room(extra=[entity("apple_reward", "1 2")]), "o.map")


# -- compiling a script that names a .map in a checkout -----------------------------------------------------

TINY_CELLS = [(0, 0), (1, 0), (2, 0), (2, 1)]
TINY = (entity("worldspawn", brushes=tiles(TINY_CELLS, enclosing(TINY_CELLS) + [(1, 0, "east")]))
        + entity("info_player_start", "50 50 30") + entity("apple_reward", "150 50 20")
        + entity("apple_reward", "250 150 20"))


def checkout(tmp_path, maps=None, script="return {nextMap = function() return 'tiny' end}\n"):
    """A fake DeepMind Lab checkout: game_scripts/level.lua (``script``), assets/maps/src/<name>.map."""
    game_scripts = tmp_path / "lab" / "game_scripts"
    (game_scripts).mkdir(parents=True)
    (tmp_path / "lab" / "assets" / "maps" / "src").mkdir(parents=True)
    for name, text in (maps if maps is not None else {"tiny": TINY}).items():
        (tmp_path / "lab" / "assets" / "maps" / "src" / f"{name}.map").write_text(text)
    (game_scripts / "level.lua").write_text(textwrap.dedent(script))
    return game_scripts / "level.lua", game_scripts


def test_a_script_naming_a_map_source_compiles_with_its_layout(tmp_path):
    path, game_scripts = checkout(tmp_path)
    with pytest.warns(CompileWarning, match=r"map 'tiny': .*tiny.map: 2 x 3 rooms of 100 units"):
        compiled = compile_script(path, levels_dir=game_scripts)
    levels = compiled.bank.levels
    assert np.asarray(levels.cells)[0].tolist() == [
        [1] * 7, [1, 1, 1, 1, 1, 0, 1], [1, 1, 1, 1, 1, 0, 1], [1, 0, 0, 0, 1, 0, 1], [1] * 7]
    assert np.asarray(levels.spawn_pos)[0].tolist() == [[150.0, 150.0]]
    apples = np.asarray(levels.pickup_pos)[0][np.asarray(levels.pickup_valid)[0]]
    assert sorted(map(tuple, apples.tolist())) == [(350.0, 150.0), (550.0, 350.0)]
    real = str((tmp_path / "lab" / "assets" / "maps" / "src" / "tiny.map").resolve())
    assert real in compiled.meta["files"]


def test_update_spawn_vars_sees_and_answers_in_deepmind_labs_coordinates(tmp_path):
    """As DeepMind Lab's random_goal_factory does: origins keyed as written in the file; an answer's origin
    is a point of DeepMind Lab's map, put where that point is in the level."""
    path, game_scripts = checkout(tmp_path, script="""
        local moved = {['150 50 20'] = {classname = 'apple_reward', origin = '250 50 20'}}
        local api = {}
        function api:nextMap() return 'tiny' end
        function api:updateSpawnVars(v)
          if v.classname == 'apple_reward' then return moved[v.origin] end
          if v.classname == 'info_player_start' then return {classname = v.classname, origin = '260 170 30'} end
          return v
        end
        return api
    """)
    with pytest.warns(CompileWarning):
        levels = compile_script(path, levels_dir=game_scripts).bank.levels
    assert np.asarray(levels.spawn_pos)[0].tolist() == [[560.0, 370.0]]
    apples = np.asarray(levels.pickup_pos)[0][np.asarray(levels.pickup_valid)[0]]
    assert apples.tolist() == [[550.0, 150.0]]


def error_of(path, levels_dir):
    with pytest.raises(LuaScriptError) as caught:
        compile_script(path, levels_dir=levels_dir)
    return str(caught.value)


def test_names_out_of_the_maps_folder_get_the_message_of_a_missing_map(tmp_path):
    """'../x', a symlink out of assets/maps/src and a missing name: one message, nothing of the files."""
    path, game_scripts = checkout(tmp_path)
    maps = tmp_path / "lab" / "assets" / "maps"
    (maps / "up.map").write_text(TINY)
    (tmp_path / "secret.map").write_text(TINY)
    (maps / "src" / "link.map").symlink_to(tmp_path / "secret.map")
    messages = []
    for name in ("../up", "link", "missing", "/tmp/x"):
        path.write_text(f"return {{nextMap = function() return '{name}' end}}\n")
        text = error_of(path, game_scripts)
        assert "nor a map source <name>.map in the assets/maps/src of a DeepMind Lab checkout" in text
        messages.append(text.replace(repr(name), "NAME").split("; did you mean")[0])
    assert len(set(messages)) == 1


def test_a_map_source_is_looked_up_only_in_a_checkout(tmp_path):
    path, game_scripts = checkout(tmp_path)
    (tmp_path / "lab" / "assets" / "maps" / "src" / "tiny.map").rename(tmp_path / "tiny.map")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "tiny.map").write_text(TINY)   # a levels folder whose parent holds no assets/maps/src
    assert "neither a map made" in error_of(path, tmp_path / "plain")


def test_maps_deepmind_lab_has_only_built_say_so(tmp_path):
    path, game_scripts = checkout(tmp_path, maps={})
    (tmp_path / "lab" / "assets" / "maps" / "built").mkdir()
    (tmp_path / "lab" / "assets" / "maps" / "built" / "arena.bsp").write_bytes(b"IBSP")
    path.write_text("return {nextMap = function() return 'arena' end}\n")
    assert ("nextMap returned 'arena', which exists in DeepMind Lab only as a compiled BSP file "
            "(assets/maps/built/arena.bsp); no source to convert") in error_of(path, game_scripts)


@pytest.mark.parametrize("case, message", [
    ("unconvertible", r"in api:nextMap: .*stairs.map: cannot be converted to a jaxlab level: its floor has a gap"),
    ("malformed", r"in api:nextMap: .*broken.map:2:1: expected a \"key\" \"value\" pair"),
    ("not_utf8", r"in api:nextMap: .*binary.map:1:3: not UTF-8 text"),
    ("oversize", r"in api:nextMap: .*huge.map is larger than 8388608 bytes"),
])
def test_a_map_source_that_cannot_be_used_fails_the_compile_clearly(tmp_path, case, message):
    name, data = {
        "unconvertible": ("stairs", room().replace(box((0, 0, -8), (416, 308, 0), "test/floor"),
                                                   box((0, 0, -8), (200, 308, 0), "test/floor")).encode()),
        "malformed": ("broken", b"{\nclassname worldspawn\n}\n"),
        "not_utf8": ("binary", b"{ \xff }\n"),
        "oversize": ("huge", b" " * (quake_map.MAX_MAP_BYTES + 1)),
    }[case]
    path, game_scripts = checkout(tmp_path, maps={}, script=f"return {{nextMap = function() return '{name}' end}}\n")
    (tmp_path / "lab" / "assets" / "maps" / "src" / f"{name}.map").write_bytes(data)
    assert re.search(message, error_of(path, game_scripts))


# -- DeepMind Lab's own maps (need the checkout at /tmp/dmlab) ---------------------------------------------

def real_map(name):
    path = CHECKOUT / "assets" / "maps" / "src" / f"{name}.map"
    return parse_quake_map(path.read_text(encoding="utf-8"), str(path))


@needs_checkout
@pytest.mark.parametrize("name", PICTURED)
def test_needs_checkout_deepmind_labs_maps_keep_their_floor_and_entities(name):
    """Every floor tile (100 x 100 x 1 brush at the bottom) is one floor cell of the level (a room of a nav
    maze); seekavoid_arena_01's room keeps its area to 2 %; every entity stands on a floor cell."""
    qmap = real_map(name)
    converted = convert_quake_map(qmap)
    cells = converted.parsed.cells
    world = [b for e in qmap.entities if e.classname == "worldspawn" for b in e.brushes]
    floor_tiles = [b for b in world if b.size.tolist() == [100, 100, 1] and b.lo[2] == 0]
    if name.startswith("nav_maze"):
        assert converted.layout == LAYOUT_ROOMS
        assert int((cells[1::2, 1::2] == CELL_FLOOR).sum()) == len(floor_tiles) > 0
    else:
        assert converted.layout == LAYOUT_CELLS and not floor_tiles
        walls = [b for b in world if b.size[2] >= 100 and b.lo[2] == 0]
        inner = (min(b.lo[0] for b in walls if b.lo[0] > 0) - max(b.hi[0] for b in walls if b.hi[0] < 0),
                 min(b.lo[1] for b in walls if b.lo[1] > 0) - max(b.hi[1] for b in walls if b.hi[1] < 0))
        assert abs((cells == CELL_FLOOR).sum() * 1e4 / (inner[0] * inner[1]) - 1) < 0.02
    kept = [e for e in qmap.entities if e.classname not in ("worldspawn", "light", "misc_model", "_skybox")]
    assert len(converted.spawn_vars) == len(kept) == len(converted.parsed.spawns) + len(converted.parsed.pickups)
    for row, col, *_ in converted.parsed.spawns + converted.parsed.pickups:
        assert cells[row, col] == CELL_FLOOR


@needs_checkout
@pytest.mark.parametrize("number", [1, 2, 3])
def test_needs_checkout_random_goal_mazes_match_deepmind_labs_own_text_of_them(number):
    """nav_maze_random_goal_0N.lua writes its maze as text (entityLayer) for its goal logic: the level
    converted from the .map is that text, cell for cell."""
    name = f"nav_maze_random_goal_0{number}"
    script = (CHECKOUT / "game_scripts" / "levels" / f"{name}.lua").read_text()
    layer = re.search(r"entityLayer = \[\[\n(.*?)\]\]", script, re.S).group(1).rstrip("\n").split("\n")
    converted = convert_quake_map(real_map(name))
    text = ["".join("*" if v != CELL_FLOOR else " " for v in row) for row in converted.parsed.cells]
    assert text == [line.rstrip("\n") for line in layer]


@needs_checkout
def test_needs_checkout_which_of_deepmind_labs_maps_convert():
    """The 28 sources: these convert, the rest are refused with a reason (none crashes)."""
    converts = set(PICTURED) | {"rooms_collect_good_objects", "rooms_exploit_deferred_effects_one_room", "em_watermaze",
                                "em_tmaze_a1", "lookat_test", "rooms_exploit_deferred_effects_two_rooms",
                                "em_non_match", "em_tmaze_a2", "em_tmaze_a3", "em_tmaze_a4", "em_tmaze_a5",
                                "lt_hallway_slope", "lt_horseshoe_color", "stairway_to_melon", "lt_chasm",
                                "lt_space_bounce_01", "lt_space_bounce_simple", "probabilistic_fruit_01", "big_screen"}
    outcomes = {}
    for path in sorted((CHECKOUT / "assets" / "maps" / "src").glob("*.map")):
        try:
            convert_quake_map(real_map(path.stem))
            outcomes[path.stem] = True
        except UnconvertibleMap:
            outcomes[path.stem] = False
    assert len(outcomes) == 28
    assert {name for name, ok in outcomes.items() if ok} == converts


@needs_checkout
def test_needs_checkout_deepmind_labs_script_compiles_with_its_own_maze():
    with pytest.warns(CompileWarning) as caught:
        levels = compile_script(CHECKOUT / "game_scripts" / "levels" / "nav_maze_static_01.lua",
                                levels_dir=CHECKOUT / "game_scripts").bank.levels
    assert any("nav_maze_static_01.map: 5 x 10 rooms" in str(w.message) for w in caught)
    assert np.asarray(levels.cells).shape == (1, 11, 21)
    assert np.asarray(levels.spawn_pos).shape[1] == 43

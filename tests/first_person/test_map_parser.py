"""The DMLab text-map parser and level compiler."""
import numpy as np
import pytest

import jaxlab
from jaxlab.levels.dmlab.level import build_level, cell_center
from jaxlab.levels.dmlab.map_parser import (CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, CELL_WALL, MapError,
                                            parse_text_map)

MAP = """
*******
*P A G*
*H*****
*  I *
****
"""


def test_parse_cells_spawns_pickups_and_padding():
    parsed = parse_text_map(MAP)
    assert parsed.shape == (5, 7)
    assert parsed.cells[0].tolist() == [CELL_WALL] * 7
    assert parsed.cells[1, 1] == CELL_FLOOR and parsed.cells[1, 2] == CELL_FLOOR
    assert parsed.cells[3, 3] == CELL_DOOR_I and parsed.cells[2, 1] == CELL_DOOR_H
    # short lines are padded with walls
    assert (parsed.cells[4] == CELL_WALL).all() and parsed.cells[3, 6] == CELL_WALL
    assert parsed.spawns == ((1, 1),)
    assert sorted(parsed.pickups) == [(1, 3, "apple_reward"), (1, 5, "goal")]


def test_variations_layer():
    parsed = parse_text_map(MAP, variations="\nAAAAAAA\nA.B...A\n")
    assert parsed.variation[0, 0] == 1 and parsed.variation[1, 2] == 2
    assert parsed.variation[1, 1] == 0 and parsed.variation[3, 3] == 0


@pytest.mark.parametrize("text, line, column, words", [
    ("\n*****\n*P X*\n*****\n", 3, 4, "unknown map character 'X'"),
    ("*****\n*   *\n*****\n", 1, 1, "no spawn point"),
    ("*****\n*P   \n*****\n", 2, 5, "not enclosed"),
    ("*** *\n*P  *\n*****\n", 1, 4, "not enclosed"),
    ("*****\n*P\t *\n*****\n", 2, 3, "unknown map character '\\t'"),
    ("", 1, 1, "empty"),
    ("*****\n*PI*\n*****\n", 2, 3, "door 'I' has no room to its right"),
    ("*****\n*P  *\n* H *\n*****\n", 3, 3, "door 'H' has no room below it"),
    ("*****\n*H  *\n*P  *\n*****\n", 2, 2, "door 'H' has no room above it"),
    ("******\n*P I\n******\n", 2, 4,
     "door 'I' has no room to its right: a door crossed left-right needs a floor, spawn or pickup cell on both "
     "of those sides, found a wall (its line ends before it)"),
])
def test_errors_name_line_and_column(text, line, column, words):
    with pytest.raises(MapError) as info:
        parse_text_map(text, source="maze.txt")
    assert str(info.value).startswith(f"maze.txt:{line}:{column}: ")
    assert words in str(info.value)


def test_ragged_rows_are_padded_with_walls_as_in_dmlab():
    """DMLab's text-level format: a map is as wide as its longest line, and a cell no line reaches is a
    wall. A ragged map is accepted and reads exactly as its rectangular form."""
    ragged = "********\n*P A *\n*H ******\n* I G*\n*****"
    width = max(len(line) for line in ragged.split("\n"))
    rectangular = "\n".join(line.ljust(width, "*") for line in ragged.split("\n"))
    a, b = parse_text_map(ragged), parse_text_map(rectangular)
    assert a.shape == (5, 9) and np.array_equal(a.cells, b.cells)
    assert (a.spawns, a.pickups) == (b.spawns, b.pickups)


def test_a_door_crossed_between_two_rooms_is_accepted():
    parsed = parse_text_map("*******\n*P I A*\n*** ***\n*G   **\n*H*****\n* *\n***\n")
    assert parsed.cells[1, 3] == CELL_DOOR_I and parsed.cells[4, 1] == CELL_DOOR_H


def test_variation_errors():
    with pytest.raises(MapError, match=r"maze.txt \(variations\):2:2: unknown variation character '\?'"):
        parse_text_map(MAP, variations="AAA\nA?A\n", source="maze.txt")
    with pytest.raises(MapError, match="longer than the map"):
        parse_text_map(MAP, variations="A" * 9, source="maze.txt")


def test_extra_pickup_legend_and_bad_names():
    parsed = parse_text_map("*****\n*PL *\n*****", pickups={"L": "lemon_reward"})
    assert parsed.pickups == ((1, 2, "lemon_reward"),)
    with pytest.raises(ValueError, match="lemon_reward"):
        parse_text_map("*****\n*PL *\n*****", pickups={"L": "lemon_rewrd"})
    with pytest.raises(ValueError, match="reserved"):
        parse_text_map("*****\n*P  *\n*****", pickups={"*": "apple_reward"})


def test_build_level_world_coordinates_and_rewards():
    level = build_level(parse_text_map(MAP), episode_seconds=30)
    rows = 5
    # y grows upward: row 1 is the second row from the top of 5 rows
    np.testing.assert_allclose(cell_center(1, 3, rows), [350.0, 350.0])
    np.testing.assert_allclose(level.spawn_pos[0], [150.0, 350.0])
    rewards = dict(zip(level.pickup_kind.tolist(), level.pickup_reward.tolist()))
    assert sorted(rewards.values()) == [1.0, 10.0]
    assert level.pickup_is_goal.sum() == 1
    assert level.door_index[3, 3] == 0 or level.door_index[2, 1] == 0
    assert (level.door_index >= 0).sum() == 2
    assert float(level.episode_seconds) == 30


def test_random_goal_spawns_far_from_goal():
    text = """
***********
*P       P*
* ******* *
*P   P   P*
***********
"""
    level = build_level(parse_text_map(text), episode_seconds=60, random_goal=True)
    # every P is a goal choice; the map's own goal pickup is the one that follows it
    assert level.goal_choice_pos.shape[0] == 5 and level.pickup_follows_goal.sum() == 1
    for g in range(5):
        allowed = level.spawn_allowed[g]
        assert allowed.any() and not allowed[g]  # never spawn on the goal itself
        far = np.abs(level.spawn_pos[allowed] - level.goal_choice_pos[g]).sum(-1)
        near = np.abs(level.spawn_pos[~allowed] - level.goal_choice_pos[g]).sum(-1)
        assert far.min() >= near.min()


def test_a_map_file_with_a_door_into_a_wall_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "doors.txt"
    path.write_text("*****\n*P  *\n**I**\n*   *\n*****\n")
    with pytest.raises(MapError, match=rf"^{path}:3:3: door 'I' has no room to its left"):
        jaxlab.make(str(path))

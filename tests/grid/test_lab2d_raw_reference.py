"""The Lab2D raw-API scripts of ``tests/grid/lab2d_raw`` run in dmlab2d as their comments say, reproducibly
from the seed, and jaxlab's level lookup finds the script dmlab2d finds.

These runs are the reference the compiled kernels are compared against: each script is played through
the real ``dmlab2d`` (``lab2d_reference``) on random actions drawn from its action spec, and checked
against a small model of what the script's comment promises.
"""
from pathlib import Path

import numpy as np
import pytest

from grid.lab2d_reference import action_spec, dmlab2d_trajectory, open_level, random_actions
from jaxlab.errors import UnknownNameError
from jaxlab.registry.lab2d_lookup import find_lab2d_level, split_argument

RAW = Path(__file__).parent / "lab2d_raw"
SCRIPTS = ("counter", "countdown", "branching_rewards", "tensor_room", "properties", "goal_reached",
           "random_target", "random_wind", "random_fixed", "throttle", "factory", "records")
RANDOM = ("random_target", "random_wind")   # the scripts whose play depends on their draws
STEPS = 30


def play(level, seed=7, steps=STEPS, action_seed=0, **kwargs):
    actions = random_actions(action_spec(RAW, level), steps, action_seed)
    return dmlab2d_trajectory(RAW, level, seed=seed, actions=actions, **kwargs)


def same(a, b):
    """Whether two trajectories are equal in everything they record."""
    if a["status"] != b["status"] or a["actions"] != b["actions"] or a["properties"] != b["properties"]:
        return False
    if not np.array_equal(a["rewards"], b["rewards"]):
        return False
    return all(np.array_equal(np.asarray(a["observations"][k]), np.asarray(b["observations"][k]))
               for k in a["observations"])


def column(run, name):
    return np.array([action[name] for action in run["actions"]])


def test_the_folder_holds_exactly_the_listed_scripts():
    on_disk = {p.stem if p.suffix == ".lua" else p.name for p in RAW.iterdir()}
    assert on_disk == set(SCRIPTS)
    assert len(SCRIPTS) >= 8


@pytest.mark.parametrize("level", SCRIPTS)
def test_same_seed_same_trajectory(level):
    first, again = play(level), play(level)
    assert same(first, again)
    assert len(first["rewards"]) == STEPS or (first["ended"][-1] and first["ended"].sum() == 1)


@pytest.mark.parametrize("level", SCRIPTS)
def test_seed_matters_only_where_the_script_draws(level):
    runs = [play(level, seed=seed) for seed in range(4)]
    differ = any(not same(runs[0], run) for run in runs[1:])
    assert differ == (level in RANDOM)


def test_counter_counts_frames_and_presses():
    run = play("counter")
    presses = column(run, "press")
    assert np.array_equal(run["observations"]["FRAMES"], np.arange(STEPS + 1))
    assert np.array_equal(run["observations"]["PRESSES"], np.concatenate([[0], np.cumsum(presses)]))
    assert np.array_equal(run["rewards"], presses) and not run["ended"].any()
    assert run["observations"]["FRAMES"].dtype == np.int32 and run["observations"]["FRAMES"].shape == (STEPS + 1,)


@pytest.mark.parametrize("duration", [12, 5])
def test_countdown_ends_when_time_runs_out(duration):
    settings = {} if duration == 12 else {"duration": duration}
    actions = random_actions(action_spec(RAW, "countdown"), STEPS, 3)
    run = dmlab2d_trajectory(RAW, "countdown", settings, seed=1, actions=actions)
    left = duration - np.cumsum(1 + column(run, "hurry"))
    assert left[-1] <= 0 < left[-2]
    assert np.allclose(run["observations"]["TIME_LEFT"][1:], np.maximum(left, 0) / duration)
    assert run["status"][-1] == "TERMINATED" and run["ended"].sum() == 1
    assert np.array_equal(run["rewards"], np.where(run["ended"], 10.0, 0.0))


def test_branching_rewards_follow_each_branch():
    run = play("branching_rewards", steps=50)
    streak, last, expected = 0, -1, []
    for frame, choice in enumerate(column(run, "choice"), start=1):
        streak = min(streak + 1, 5) if choice == last else 1
        last = choice
        if choice == 0:
            expected.append(-0.5)
        elif choice in (1, 2):
            expected.append(2.0 if streak >= 3 else 1.0)
        else:
            expected.append(3.0 if frame % 2 == 0 else -2.0)
        assert run["observations"]["STREAK"][frame] == streak and run["observations"]["LAST"][frame] == choice
    assert np.array_equal(run["rewards"], expected)
    assert {-0.5, 1.0, 2.0, 3.0, -2.0} <= set(expected)


def test_tensor_room_moves_inside_walls_and_pays_first_visits():
    run = play("tensor_room", steps=40)
    rooms, positions = run["observations"]["ROOM"], run["observations"]["POSITION"]
    assert rooms.dtype == np.uint8 and rooms.shape == (41, 4, 5) and positions.dtype == np.int32
    for room, (row, col) in zip(rooms, positions):
        assert room[row - 1, col - 1] == 2 and (room == 2).sum() == 1
        assert (room[0] == 1).all() and (room[-1] == 1).all() and (room[:, 0] == 1).all() and (room[:, -1] == 1).all()
    visited = {tuple(p) for p in positions}
    assert run["rewards"].sum() == len(visited) - 1 and len(visited) > 1


def test_properties_read_write_and_list():
    keys = ("params.bonus", "state.score", "state.frame", "state.missing")
    writes = {5: {"params.bonus": "3", "state.score": "100", "nope": "1"}, 6: {"params.bonus": "12"},
              7: {"params.bonus": "2.5"}}
    run = play("properties", reads=keys, writes=writes)
    bonus = np.where(np.arange(STEPS) >= 5, 3, 1) * column(run, "collect")
    assert np.array_equal(run["rewards"], bonus)
    assert run["properties"]["state.score"] == [str(int(s)) for s in np.concatenate([[0], np.cumsum(bonus)])]
    assert run["properties"]["state.frame"] == [str(i) for i in range(STEPS + 1)]   # advance's frame: 1, 2, ...
    assert run["properties"]["state.missing"] == [None] * (STEPS + 1)
    assert [w[3] for w in run["writes"]] == [True, False, False, False, False]
    lab = open_level(RAW, "properties")
    assert [(k, a.name) for k, a in lab.list_property("")] == [("params", "LISTABLE"), ("state", "LISTABLE")]
    assert [(k, a.name) for k, a in lab.list_property("state")] == [("state.score", "READABLE"),
                                                                    ("state.frame", "READABLE")]
    assert [(k, a.name) for k, a in lab.list_property("params")] == [("params.bonus", "READABLE_WRITABLE")]


def test_goal_reached_ends_each_way():
    ends = {}
    for action_seed in range(12):
        run = play("goal_reached", action_seed=action_seed)
        state = run["observations"]["STATE"]
        assert np.array_equal(state[:, 1] + state[:, 2], np.full(len(state), 30))
        assert run["ended"][-1] and run["ended"].sum() == 1 and run["rewards"][:-1].sum() == 0
        ends[int(state[-1, 0])] = run["rewards"][-1]
    assert ends[7] == 5.0 and ends[1] == -5.0
    assert all(reward == 0 for position, reward in ends.items() if position not in (1, 7))


def test_goal_reached_step_limit():
    run = dmlab2d_trajectory(RAW, "goal_reached", actions=[{"step": 0}] * 40)
    assert len(run["rewards"]) == 30 and run["ended"][-1] and run["rewards"].sum() == 0


def test_random_target_is_drawn_from_the_seed():
    targets = set()
    for seed in range(10):
        guesses = [{"guess": g} for g in range(1, 7)]
        run = dmlab2d_trajectory(RAW, "random_target", seed=seed, actions=guesses)
        target = int(run["observations"]["TARGET"][-1])
        targets.add(target)
        assert (len(run["rewards"]) == target) if target <= 4 else (len(run["rewards"]) == 4)
        assert run["rewards"].sum() == (target <= 4) and (run["observations"]["TARGET"][:-1] == 0).all()
    assert len(targets) >= 3


def test_random_wind_moves_by_draw_and_pull():
    run = play("random_wind", steps=50)
    kite = run["observations"]["KITE"]
    offset, wind = kite[:, 0], kite[1:, 1]
    assert np.array_equal(np.diff(offset), wind + column(run, "pull"))
    assert set(wind) <= {-2, -1, 0, 1, 2} and len(set(wind)) >= 3
    assert np.allclose(run["rewards"], np.where(np.abs(offset[1:]) > 5, -10, -0.25 * np.abs(offset[1:])))


def test_random_fixed_draws_the_one_possible_value():
    run = play("random_fixed", steps=20)
    frames = np.arange(1, 13)
    draws = run["observations"]["DRAWS"]
    assert len(run["rewards"]) == 12 and run["ended"][-1] and (draws[0] == 0).all()
    np.testing.assert_array_equal(draws[1:], np.stack([3 + frames, 0.5 * frames, np.full(12, 3.25), np.ones(12)], 1))
    picked = draws[1:][np.arange(12), column(run, "pick") - 1]
    np.testing.assert_array_equal(run["rewards"], picked + 1)
    np.testing.assert_array_equal(run["observations"]["TOTAL"][1:], np.cumsum(picked + 1))


def test_records_walk_to_both_checkpoints():
    path = [{"move": m} for m in (1, 1, 2, 2, 0, 3, 3, 3, 3, 4, 4, 4)]   # to (1, 5), then to (5, 2)
    run = dmlab2d_trajectory(RAW, "records", actions=path + [{"move": 0}] * 5)
    player = run["observations"]["PLAYER"]
    assert player[0].tolist() == [3, 3, 1] and player[4].tolist() == [1, 5, 2] and player[-1].tolist() == [5, 2, 4]
    assert run["rewards"].tolist() == [0, 0, 0, 1] + [0] * 7 + [1] and run["ended"][-1]
    assert run["observations"]["REACHED"].tolist() == [0] * 4 + [1] * 8 + [2]
    stay = dmlab2d_trajectory(RAW, "records", actions=[{"move": 0}] * 40)
    assert len(stay["rewards"]) == 30 and stay["ended"][-1] and (stay["observations"]["PLAYER"][:, 2] == 1).all()


def test_throttle_takes_continuous_actions():
    run = play("throttle")
    speed = 0.0
    for step, action in enumerate(run["actions"]):
        speed = speed * 0.5 if action["brake"] else 0.75 * speed + action["throttle"]
        assert run["rewards"][step] == pytest.approx(speed)
    assert np.allclose(run["observations"]["CART"][1:, 1], np.cumsum(run["rewards"]))


@pytest.mark.parametrize("name, reward", [("factory", 1.0), ("factory:double", 2.0), ("factory:", 1.0)])
def test_factory_takes_the_name_argument(name, reward):
    run = dmlab2d_trajectory(RAW, name, actions=[{}] * 10)
    assert list(run["rewards"]) == [reward] * 5 and run["status"][-1] == "TERMINATED"


# ----- level lookup: jaxlab finds the script dmlab2d finds -----

MARKED = ("both.lua", "both/init.lua", "pkg/init.lua", "sub/b.lua", "pushbox.lua", "fn.lua")


def marked_script(marker, factory=False):
    """A level whose one String observation WHO says which file it is (and, as a factory, its argument)."""
    body = (f"local api = {{}}\nfunction api:observationSpec() return {{{{name = 'WHO', type = 'String'}}}} end\n"
            f"function api:start() end\nfunction api:advance() return false, 0 end\n"
            f"function api:observation() return '{marker}' .. (ARG and (':' .. ARG) or '') end\n")
    if factory:
        return f"return function(argument)\nlocal ARG = argument\n{body}return api\nend\n"
    return f"local ARG = nil\n{body}return api\n"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    levels = tmp_path / "levels"
    for rel in MARKED:
        (levels / rel).parent.mkdir(parents=True, exist_ok=True)
        (levels / rel).write_text(marked_script(rel, factory=rel == "fn.lua"))
    (tmp_path / "linked").symlink_to(levels)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def dmlab2d_finds(name, directory):
    """What dmlab2d loads for levelName ``name`` (and levelDirectory ``directory``): its WHO
    observation, its observation names for a level with none, or None where it finds nothing."""
    import dmlab2d
    import dmlab2d.runfiles_helper  # noqa: F401  (registers the submodule)

    config = {"levelName": name, **({"levelDirectory": str(directory)} if directory else {})}
    try:
        lab = dmlab2d.Lab2d(dmlab2d.runfiles_helper.find(), config)
    except ValueError:
        return None
    if "WHO" not in lab.observation_names():
        return tuple(lab.observation_names())
    lab.start(0, 0)
    return lab.observation("WHO").decode()


def jaxlab_finds(name, directory, root):
    """The same for jaxlab's lookup: the WHO the found file would report, ``builtin:<name>``, or None."""
    try:
        found = find_lab2d_level(name, directory)
    except (FileNotFoundError, UnknownNameError):
        return None
    if found.builtin:
        return f"builtin:{found.builtin}"
    marker = found.path.resolve().relative_to((root / "levels").resolve()).as_posix()
    return marker + (f":{found.argument}" if marker == "fn.lua" else "")


@pytest.mark.parametrize("name, directory", [
    ("both", "levels"), ("pkg", "levels"), ("sub/b", "levels"), ("both/", "levels"), ("pkg:", "levels"),
    ("fn", "levels"), ("fn:hello", "levels"), ("fn:a:b", "levels"), ("pushbox", "levels"), ("missing", "levels"),
    ("both", "linked"), ("pushbox", "levels/sub"), ("b", "levels/sub/"),
    ("ABS/levels/both.lua", None), ("ABS/levels/fn.lua:zz", None), ("levels/both.lua", None),
    ("levels/both.lua", "levels"), ("both.lua", "levels"), ("missing.lua", None), ("missing", "nowhere"),
])
def test_lookup_finds_what_dmlab2d_finds(folder, name, directory):
    name = name.replace("ABS", str(folder))
    directory = directory and str(folder / directory)
    expected = dmlab2d_finds(name, directory)
    assert jaxlab_finds(name, directory, folder) == expected


def test_lookup_of_built_in_levels(folder):
    assert find_lab2d_level("pushbox").builtin == "pushbox" and find_lab2d_level("pushbox").path is None
    assert "WORLD.TEXT" in dmlab2d_finds("pushbox", None)
    assert dmlab2d_finds("pushbx", None) is None
    with pytest.raises(UnknownNameError, match="pushbox"):
        find_lab2d_level("pushbx")


def test_lookup_of_the_raw_scripts():
    for level in SCRIPTS:
        found = find_lab2d_level(level, str(RAW))
        assert found.path in (RAW / f"{level}.lua", RAW / level / "init.lua")
        assert open_level(RAW, level).observation_names()   # dmlab2d loads the same name
    assert find_lab2d_level("tensor_room", str(RAW)).path == RAW / "tensor_room" / "init.lua"
    assert find_lab2d_level("factory:double", str(RAW)).argument == "double"


def test_split_argument_at_the_last_colon():
    assert split_argument("a") == ("a", "") and split_argument("a:") == ("a", "")
    assert split_argument("a:b:c") == ("a:b", "c")


@pytest.mark.parametrize("name", ["../both", "sub/../../levels/both", "/etc/passwd"])
def test_lookup_refuses_names_that_leave_the_directory(folder, name):
    # dmlab2d joins these as written; jaxlab keeps a name looked up in a folder inside it
    with pytest.raises(ValueError, match="inside levelDirectory"):
        find_lab2d_level(name, str(folder / "levels" / "sub"))


def test_lookup_refuses_an_empty_name_or_a_file_as_folder(folder):
    with pytest.raises(ValueError, match="empty"):
        find_lab2d_level(":x", str(folder / "levels"))
    with pytest.raises(FileNotFoundError, match="is a file, not a folder"):
        find_lab2d_level("both", str(folder / "levels" / "both.lua"))
    assert dmlab2d_finds("", str(folder / "levels")) is None

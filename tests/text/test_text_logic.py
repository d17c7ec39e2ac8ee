"""jaxlab.text without the textworld package: the logic language, grounding,
quest semantics, the env, and bad input, on small hand-written games."""
from __future__ import annotations

import json
import math

import jax
import numpy as np
import pytest

from jaxlab.bank import Bank
from jaxlab.kernels.text import kernel
from jaxlab.levels.text.logic_text import Logic, LogicSyntaxError, parse_logic
from jaxlab.text import TextEnv, TextWorldFormatError, load_textworld
from jaxlab.wrappers import AutoReset

# A small logic of our own: two constant types (Me, Bag), rooms joined east-west, items and snacks.
LOGIC = '''
# The one who plays.
type Me {
    rules { wait :: here(Me, room) -> here(Me, room); }
    reverse_rules { wait :: wait; }
    inform7 { commands { wait :: "wait" :: "waiting"; } }
}
type Bag {
    predicates { carried(item, Bag); }
    rules {
        pick :: $here(Me, room) & at(item, room) -> carried(item, Bag);
        put_down :: $here(Me, room) & carried(item, Bag) -> at(item, room);
        munch :: carried(snack, Bag) -> gone(snack);
    }
    reverse_rules { pick :: put_down; }
    inform7 {
        commands {
            pick :: "pick up {item}" :: "picking up the {item}";
            put_down :: "put down {item}" :: "putting down the {item}";
            munch :: "munch {snack}" :: "munching the {snack}";
        }
    }
}
type room {
    predicates { here(Me, room); at(item, room); east(room, room); west(room, room') = east(room', room); }
    rules {
        go/east :: here(Me, room) & $east(room', room) -> here(Me, room');
        go/west :: here(Me, room) & $west(room', room) -> here(Me, room');
    }
    reverse_rules { go/east :: go/west; }
    inform7 { commands { go/east :: "go east" :: "going east"; go/west :: "go west" :: "going west"; } }
}
type item { }
type snack : item { predicates { gone(snack); } }
'''

TYPES = {"Me": "Me", "Bag": "Bag", "hall": "room", "yard": "room", "coin": "item", "cake": "snack"}
NAMES = {"hall": "hall", "yard": "yard", "coin": "gold coin", "cake": "cake"}


def fact(name, *args):
    return {"name": name, "arguments": [{"name": a, "type": TYPES[a]} for a in args]}


def event(*conditions, actions=()):
    return {"commands": [], "actions": list(actions),
            "condition": {"name": "trigger", "preconditions": list(conditions), "postconditions": []}}


def action(name, pre, post):
    return {"name": name, "preconditions": pre, "postconditions": post}


def quest(win=(), fail=(), reward=1, optional=False, repeatable=False):
    return {"desc": "", "reward": reward, "commands": [], "win_events": list(win), "fail_events": list(fail),
            "optional": optional, "repeatable": repeatable}


GET_COIN = quest([event(fact("carried", "coin", "Bag"))], reward=2)
CAKE_TO_YARD = quest([event(fact("at", "cake", "yard"))], optional=True)
DONT_EAT = quest(fail=[event(fact("gone", "cake"))], reward=0)


def game_json(quests=(GET_COIN, CAKE_TO_YARD, DONT_EAT), **extra):
    world = [fact("here", "Me", "hall"), fact("east", "yard", "hall"), fact("at", "coin", "yard"),
             fact("at", "cake", "hall")]
    data = {"version": 1, "world": world, "grammar": {}, "quests": list(quests),
            "infos": [[k, {"id": k, "type": TYPES[k], "name": NAMES.get(k)}] for k in TYPES],
            "KB": {"logic": LOGIC, "text_grammars_path": ""},
            "metadata": {"walkthrough": ["go east", "pick up gold coin"]}, "objective": "Get the coin."}
    data.update(extra)
    return data


def write(tmp_path, data, name="game.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def play(game, info, commands):
    """[(admissible set, score, won, lost, moves)] at the start and after each command."""
    state = kernel.initial_state(game, jax.random.PRNGKey(0))
    out = []

    def record():
        mask = np.asarray(kernel.admissible(game, state.facts))[:len(info.commands)]
        out.append((set(np.array(info.commands)[mask].tolist()), float(state.score), bool(state.won), bool(state.lost),
                    int(state.moves)))

    record()
    for command in commands:
        state, reward = kernel.step(game, state, info.command_id(command))
        record()
        assert float(reward) == out[-1][1] - out[-2][1]
    return out


# -- the logic language ------------------------------------------------------

def test_parse_logic_features():
    logic = parse_logic(LOGIC + '''
        type box : item {
            predicates { !held(box); }
            rules { grab :: at(x: box, room) & !held(x: box) -> held(x: box); }
            constraints { b1 :: at(box, room) & at(box, room') -> fail(); }
            inform7 {
                type { kind :: "container"; definition :: "boxes are closed."; }
                predicates { at(box, room) :: "The {box} is in {room}"; }
                commands { grab :: "grab {x}" :: "grabbing"; }
                code :: """ Anything; "with quotes" """;
            }
        }''')
    assert logic.types["snack"] == ("item",) and logic.subtypes("item") == ("item", "snack", "box")
    west = logic.rules["go/west"]
    assert [p.name for p in west.pre] == ["here", "east"]  # west(room', room) = east(room, room')
    assert [ph.name for ph in west.pre[1].params] == ["room", "room'"]
    assert {p.name for p in west.added} == {"here"} and {p.name for p in west.removed} == {"here"}
    grab = logic.rules["grab"]
    assert grab.pre[0].params[0].type == "box" and grab.pre[1].name == "not_held"
    assert logic.reverse_rules["pick"] == "put_down" and logic.reverse_rules["put_down"] == "pick"
    assert logic.commands["grab"] == "grab {x}" and "b1" in logic.constraints
    assert Logic.is_constant("Me") and not Logic.is_constant("room")


def test_parse_logic_errors():
    with pytest.raises(LogicSyntaxError, match=r"^3:\d+: expected '->'"):
        parse_logic("type r {\n rules {\n  go :: at(P, r) at(P, r); } }")
    with pytest.raises(LogicSyntaxError, match="conflicting types for 'x'"):
        parse_logic("type r { rules { go :: at(x: r, y: r) & at(x: y) -> at(x, y); } }")
    with pytest.raises(LogicSyntaxError, match="unknown type 'q'"):
        parse_logic("type r { rules { go :: at(q, r) -> at(r, q); } }")
    with pytest.raises(LogicSyntaxError, match=r"^1:10: unexpected character '@'"):
        parse_logic("type r { @ }")
    with pytest.raises(LogicSyntaxError, match="type 'r' declared twice"):
        parse_logic("type r { } type r { }")


# -- grounding and quest semantics -------------------------------------------

def test_commands_and_walkthrough(tmp_path):
    game, info = load_textworld(write(tmp_path, game_json()))
    assert info.commands == ("go east", "go west", "munch cake", "pick up cake", "pick up gold coin",
                             "put down cake", "put down gold coin", "wait")
    assert info.walkthrough == ("go east", "pick up gold coin") and info.objective == "Get the coin."
    assert float(game.max_score) == 3.0  # required 2 + optional with a reward 1 (+ a 0-reward fail quest)
    steps = play(game, info, info.walkthrough)
    assert steps[0] == ({"go east", "pick up cake", "wait"}, 0.0, False, False, 0)
    assert steps[1] == ({"go west", "pick up gold coin", "wait"}, 0.0, False, False, 1)
    assert steps[2] == ({"go west", "wait", "put down gold coin"}, 2.0, True, False, 2)


def test_completed_quests_stay_completed_and_invalid_commands_do_nothing(tmp_path):
    game, info = load_textworld(write(tmp_path, game_json()))
    steps = play(game, info, ["pick up gold coin", "go east", "pick up gold coin", "put down gold coin",
                              "pick up cake", "go west"])
    assert steps[1][1:] == (0.0, False, False, 0)  # not here: nothing happens, no move
    assert steps[3][1:] == (2.0, True, False, 2)
    assert steps[4][1:] == (2.0, True, False, 3)  # the coin is put down: the quest stays completed
    assert steps[5][1:] == (2.0, True, False, 3)  # "pick up cake" is not possible in the yard


def test_optional_and_fail_quests(tmp_path):
    game, info = load_textworld(write(tmp_path, game_json()))
    steps = play(game, info, ["pick up cake", "go east", "put down cake", "pick up cake", "munch cake"])
    assert steps[3][1:] == (1.0, False, False, 3)  # optional quest: rewarded, not needed to win
    assert steps[4][1:] == (1.0, False, False, 4)
    assert steps[5][1:] == (1.0, False, True, 5)  # a failing event holds: lost


def test_repeatable_quest_and_fail_only_game(tmp_path):
    again = quest([event(fact("here", "Me", "yard"))], optional=True, repeatable=True)
    game, info = load_textworld(write(tmp_path, game_json(quests=[GET_COIN, again])))
    assert math.isinf(float(game.max_score))
    steps = play(game, info, ["go east", "wait", "dance", "go west", "wait", "go east"])
    assert [s[1] for s in steps] == [0.0, 1.0, 2.0, 2.0, 2.0, 2.0, 3.0]
    # Nothing to complete: TextWorld counts the game as won from the start.
    game, info = load_textworld(write(tmp_path, game_json(quests=[DONT_EAT]), "fail_only.json"))
    assert play(game, info, [])[0][2:4] == (True, False)
    # No quests at all: never won nor lost.
    game, info = load_textworld(write(tmp_path, game_json(quests=[]), "none.json"))
    assert play(game, info, ["go east"])[1][1:] == (0.0, False, False, 1)
    assert float(game.max_score) == 0.0


def test_irreversible_action_makes_a_planned_quest_unfinishable(tmp_path):
    here, cake_hall = fact("here", "Me", "hall"), fact("at", "cake", "hall")
    carried, there = fact("carried", "cake", "Bag"), fact("here", "Me", "yard")
    plan = [action("pick", [here, cake_hall], [here, carried]),
            action("go/east", [here, fact("east", "yard", "hall")], [fact("east", "yard", "hall"), there]),
            action("put_down", [there, carried], [there, fact("at", "cake", "yard")])]
    planned = quest([event(fact("at", "cake", "yard"), there, actions=plan)])
    game, info = load_textworld(write(tmp_path, game_json(quests=[planned, GET_COIN])))
    assert play(game, info, ["pick up cake", "munch cake"])[2][2:4] == (False, True)
    # The plan no longer needs the cake once it lies in the yard; eating it later does not lose.
    steps = play(game, info, ["pick up cake", "go east", "put down cake", "pick up cake", "munch cake"])
    assert steps[3][1:4] == (1.0, False, False) and steps[5][1:4] == (1.0, False, False)


def test_env_jit_vmap_autoreset(tmp_path):
    loaded = [load_textworld(write(tmp_path, game_json(), "a.json")),
              load_textworld(write(tmp_path, game_json(quests=[GET_COIN]), "b.json"))]
    env = TextEnv(Bank.stack([g for g, _ in loaded]), [i for _, i in loaded], max_steps=20)
    assert env.num_games == 2 and env.action_spec().num_values == 8
    keys = jax.random.split(jax.random.PRNGKey(3), 6)
    actions = jax.random.randint(jax.random.PRNGKey(4), (25, 6), 0, 8)
    auto = AutoReset(env)

    def run(key, acts):
        state, _ = auto.reset(key)

        def one(state, a):
            state, ts = auto.step(state, a)
            return state, (ts.step_type, ts.reward, ts.observation["admissible"], state.game_index)

        return jax.lax.scan(one, state, acts)[1]

    batched = jax.jit(jax.vmap(run))(keys, actions.T)
    one_env = jax.jit(run)  # compiled once for the six envs
    for i in range(6):
        for a, b in zip(one_env(keys[i], actions[:, i]), batched):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b)[i])
    assert (np.asarray(batched[0]) == 0).sum() > 0  # some episodes ended and restarted
    state = env.init_state(jax.random.PRNGKey(0), game_index=1)
    for command in ("go east", "pick up gold coin"):
        state, ts = jax.jit(env.step)(state, env.command_id(1, command))
    assert bool(ts.last()) and float(ts.reward) == 2.0 and env.command_text(1, 0) == "go east"
    assert int(ts.observation["game_index"]) == 1


def test_bank_of_games_shapes(tmp_path):
    (a, _), (b, _) = (load_textworld(write(tmp_path, game_json(), "a.json")),
                      load_textworld(write(tmp_path, game_json(quests=[]), "b.json")))
    bank = Bank.stack([a, b])
    assert bank.size == 2 and bank.levels.q_reward.shape == (2, 3)
    assert np.asarray(bank.levels.act_pre)[1].shape == np.asarray(a.act_pre).shape


# -- bad input ---------------------------------------------------------------

def test_missing_file_and_directory(tmp_path):
    with pytest.raises(TextWorldFormatError, match="no such file") as err:
        load_textworld(tmp_path / "nope.json")
    assert isinstance(err.value, ValueError) and str(tmp_path / "nope.json") in str(err.value)
    with pytest.raises(TextWorldFormatError, match="directory"):
        load_textworld(tmp_path)


def test_corrupt_json(tmp_path):
    text = json.dumps(game_json())
    path = write(tmp_path, text[: len(text) // 2])
    with pytest.raises(TextWorldFormatError, match=r"invalid JSON at line \d+, column \d+") as err:
        load_textworld(path)
    assert str(path) in str(err.value)
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(TextWorldFormatError, match="not a text file"):
        load_textworld(binary)
    compiled = tmp_path / "lonely.z8"     # a compiled game is read through the .json beside it
    compiled.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(TextWorldFormatError, match="lonely.json.*is missing"):
        load_textworld(compiled)


def test_not_a_textworld_game(tmp_path):
    with pytest.raises(TextWorldFormatError, match="not a TextWorld game.*list"):
        load_textworld(write(tmp_path, [1, 2]))
    with pytest.raises(TextWorldFormatError, match="missing key.*quests"):
        load_textworld(write(tmp_path, {k: v for k, v in game_json().items() if k != "quests"}))
    with pytest.raises(TextWorldFormatError, match=r"world\[0\]: expected a fact"):
        load_textworld(write(tmp_path, game_json(world=[{"name": "here", "arguments": [{"name": "Me"}]}])))
    with pytest.raises(TextWorldFormatError, match=r"quests\[0\]: a quest needs"):
        load_textworld(write(tmp_path, game_json(quests=[{"reward": 1}])))
    with pytest.raises(TextWorldFormatError, match="KB.logic: expected"):
        load_textworld(write(tmp_path, game_json(KB={"logic": 3})))
    bad_type = game_json(world=[fact("here", "Me", "hall"), {"name": "at", "arguments": [
        {"name": "hall", "type": "item"}, {"name": "yard", "type": "room"}]}])
    with pytest.raises(TextWorldFormatError, match="entity 'hall' has type 'item' here and 'room' elsewhere"):
        load_textworld(write(tmp_path, bad_type))


def test_unsupported_version(tmp_path):
    with pytest.raises(TextWorldFormatError, match="unsupported TextWorld game version 7"):
        load_textworld(write(tmp_path, game_json(version=7)))


def test_bad_logic(tmp_path):
    broken = LOGIC.replace("-> gone(snack);", "-> gone(snack)")
    with pytest.raises(TextWorldFormatError, match=r"cannot parse KB.logic: 14:\d+: expected ';'"):
        load_textworld(write(tmp_path, game_json(KB={"logic": broken})))
    no_command = LOGIC.replace('munch :: "munch {snack}" :: "munching the {snack}";', "")
    with pytest.raises(TextWorldFormatError, match="unsupported logic: rule 'munch' has no command template"):
        load_textworld(write(tmp_path, game_json(KB={"logic": no_command})))
    bad_template = LOGIC.replace('"munch {snack}"', '"munch {food}"')
    with pytest.raises(TextWorldFormatError, match="unknown placeholder 'food'"):
        load_textworld(write(tmp_path, game_json(KB={"logic": bad_template})))

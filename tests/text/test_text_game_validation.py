"""TextWorld game files are checked against TextWorld's format before use (``jaxlab.levels.text.game_schema``).

Each case starts from a real game file written by TextWorld itself (``tw-treasure_hunter``), changes
one field, and loads it three ways: ``jaxlab.make(path)``, a bank (``load_textworld_bank``) and the
gym drop-in (``jaxlab.text.gym``), the bad file after a good one. Every load must raise
TextWorldFormatError whose message names the file and the field, and holds no control character.
Valid games, TextWorld's and jaxlab's own (``Game.save``), still load all three ways.

Terminal safety: control characters other than newline and tab are refused in every text of a game
(``game_schema.TEXT_CONTROLS``), so ``jaxlab-tw play`` and the ``feedback`` observation never carry
one; the checks against the game's own logic (``game_logic_checks``) refuse rooms related to
themselves, event actions that are no rule and quests that cannot be won.
"""
from __future__ import annotations

import copy
import json
import re

import pytest

import jaxlab
from jaxlab.hosts.text.cli import main as tw_main
from jaxlab.levels.text.game_logic_checks import logic_tables, reachable_predicates
from jaxlab.levels.text.game_schema import MAX_DEPTH, MAX_FILE_BYTES
from jaxlab.levels.text.generators import FAMILIES
from jaxlab.text import TextEnv, TextWorldFormatError, load, load_textworld_bank, make, read_textworld, start
import jaxlab.text.gym as tw_gym

textworld = pytest.importorskip("textworld")

from textworld.challenges import CHALLENGES  # noqa: E402
from textworld.generator.game import GameOptions  # noqa: E402

PLACEHOLDER = "\u2603placeholder\u2603"
#: what no message, printed line or observation may hold: C0 controls but newline and tab, DEL, C1
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: terminal escapes and other control characters a hostile game's text may hold
ESCAPES = {"clear": "\x1b[2J", "osc_title": "\x1b]0;owned\x07", "bel": "\x07", "cr": "\r", "nul": "\x00",
           "del": "\x7f", "c1_csi": "\x9b31m"}


@pytest.fixture(scope="module")
def textworld_game(tmp_path_factory):
    """(path, JSON) of a game written by TextWorld's own ``Game.save``."""
    path = tmp_path_factory.mktemp("textworld") / "hunter.json"
    options = GameOptions()
    options.seeds = 7
    CHALLENGES["tw-treasure_hunter"][1](settings={"level": 5}, options=options).save(str(path))
    return path, json.loads(path.read_text())


def _make(good, bad):
    return jaxlab.make(str(bad))


def _bank(good, bad):
    return load_textworld_bank([good, bad])


def _gym(good, bad):
    return tw_gym.make(tw_gym.register_games([str(good), str(bad)], batch_size=2))


LOADERS = {"make": _make, "bank": _bank, "gym": _gym}


def _fact_index(game: dict, name: str) -> int:
    return next(i for i, fact in enumerate(game["world"]) if fact["name"] == name)


def _refused(tmp_path, textworld_game, loader, change, field: str, problem: str, token: str = None):
    """Write the TextWorld game with ``change(json)`` applied (``token`` written raw in place of
    PLACEHOLDER), load it with ``loader`` and check the error names the file, then the field path
    (a regex; "" for the file as a whole), then the problem (a regex)."""
    good, game = textworld_game
    game = copy.deepcopy(game)
    change(game)
    text = json.dumps(game)
    if token is not None:
        text = text.replace(json.dumps(PLACEHOLDER), token)
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(TextWorldFormatError) as err:
        LOADERS[loader](good, bad)
    assert err.value.path == str(bad)
    message = str(err.value)
    assert re.match(re.escape(f"{bad}: ") + (f"{field}: " if field else ""), message), message
    assert re.search(problem, message), message
    assert not CONTROL.search(message), message


@pytest.mark.parametrize("loader", LOADERS)
def test_nesting_beyond_the_parser(tmp_path, textworld_game, loader):
    _refused(tmp_path, textworld_game, loader, lambda g: g["metadata"].update(deep=PLACEHOLDER), "",
             "nested too deeply to parse", token="[" * 200_000 + "]" * 200_000)


@pytest.mark.parametrize("loader", LOADERS)
def test_nesting_beyond_the_limit(tmp_path, textworld_game, loader):
    depth = MAX_DEPTH + 5
    _refused(tmp_path, textworld_game, loader, lambda g: g["metadata"].update(deep=PLACEHOLDER),
             r"metadata\.deep(\[0\])+", f"nested more than the {MAX_DEPTH} levels", token="[" * depth + "]" * depth)


@pytest.mark.parametrize("loader", LOADERS)
def test_alias_chain_beyond_the_stack(tmp_path, textworld_game, loader):
    chain = " ".join(f"p{i}(r) = p{i + 1}(r);" for i in range(3000))
    logic = (f"type r {{ predicates {{ {chain} p3000(r); }} rules {{ go :: p0(r) -> p0(r); }} "
             'inform7 { commands { go :: "go" :: "going"; } } }')
    _refused(tmp_path, textworld_game, loader, lambda g: g["KB"].update(logic=logic), r"KB\.logic",
             "aliases chain too deeply")


@pytest.mark.parametrize("loader", LOADERS)
def test_integer_walkthrough(tmp_path, textworld_game, loader):
    _refused(tmp_path, textworld_game, loader, lambda g: g["metadata"].update(walkthrough=3),
             r"metadata\.walkthrough", "expected a list of strings, got number 3")


@pytest.mark.parametrize("loader", LOADERS)
def test_string_walkthrough(tmp_path, textworld_game, loader):
    _refused(tmp_path, textworld_game, loader, lambda g: g["metadata"].update(walkthrough="go east"),
             r"metadata\.walkthrough", "expected a list of strings, got string 'go east'")


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("token, shown", [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"),
                                          ("1e999", "Infinity")])
def test_non_finite_reward(tmp_path, textworld_game, loader, token, shown):
    _refused(tmp_path, textworld_game, loader, lambda g: g["quests"][0].update(reward=PLACEHOLDER),
             r"quests\[0\]\.reward", re.escape(f"not a finite number ({shown})"), token=token)


@pytest.mark.parametrize("loader", LOADERS)
def test_non_finite_metadata(tmp_path, textworld_game, loader):
    _refused(tmp_path, textworld_game, loader, lambda g: g["metadata"].update(seeds={"map": PLACEHOLDER}),
             r"metadata\.seeds\.map", r"not a finite number \(NaN\)", token="NaN")


@pytest.mark.parametrize("loader", LOADERS)
def test_reward_out_of_range(tmp_path, textworld_game, loader):
    _refused(tmp_path, textworld_game, loader, lambda g: g["quests"][0].update(reward=1e30),
             r"quests\[0\]\.reward", "out of range")


@pytest.mark.parametrize("loader", LOADERS)
def test_unknown_predicate(tmp_path, textworld_game, loader):
    at = _fact_index(textworld_game[1], "at")
    _refused(tmp_path, textworld_game, loader, lambda g: g["world"][at].update(name="att"),
             rf"world\[{at}\]\.name", "unknown predicate 'att'. Did you mean 'at'")


@pytest.mark.parametrize("loader", LOADERS)
def test_wrong_arity(tmp_path, textworld_game, loader):
    at = _fact_index(textworld_game[1], "at")
    _refused(tmp_path, textworld_game, loader, lambda g: g["world"][at]["arguments"].pop(),
             rf"world\[{at}\]", "predicate 'at' takes 2 argument\\(s\\) in KB.logic, got 1")


@pytest.mark.parametrize("loader", LOADERS)
def test_unknown_type(tmp_path, textworld_game, loader):
    at = _fact_index(textworld_game[1], "at")
    _refused(tmp_path, textworld_game, loader, lambda g: g["world"][at]["arguments"][1].update(type="room"),
             rf"world\[{at}\]\.arguments\[1\]\.type", "unknown type 'room'")


@pytest.mark.parametrize("loader", LOADERS)
def test_entity_typed_otherwise_in_infos(tmp_path, textworld_game, loader):
    room = next(i for i, (_, info) in enumerate(textworld_game[1]["infos"]) if info["type"] == "r")
    _refused(tmp_path, textworld_game, loader, lambda g: g["infos"][room][1].update(type="c"),
             rf"infos\[{room}\]\[1\]\.type", "has type 'c' here and 'r' elsewhere")


@pytest.mark.parametrize("loader", LOADERS)
def test_unknown_key_suggests(tmp_path, textworld_game, loader):
    _refused(tmp_path, textworld_game, loader, lambda g: g.update(quest=g.pop("quests")), "",
             "unknown key 'quest'. Did you mean 'quests'")


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("change, field, problem", [
    (lambda g: g["quests"][0].update(optional="yes"), r"quests\[0\]\.optional", "expected true or false"),
    (lambda g: g.update(objective=3), "objective", "expected a string or null"),
    (lambda g: g["infos"].append("P"), r"infos\[\d+\]", "expected \\[entity id"),
    (lambda g: g["KB"].update(text_grammars_path=[]), r"KB\.text_grammars_path", "expected a string"),
    (lambda g: g["quests"][0]["win_events"][0].pop("condition"), r"quests\[0\]\.win_events\[0\]",
     "missing key\\(s\\) condition"),
    (lambda g: g.update(metadata=[]), "metadata", "expected an object, got list"),
], ids=["flag", "objective", "info", "kb", "event", "metadata"])
def test_wrong_types(tmp_path, textworld_game, loader, change, field, problem):
    _refused(tmp_path, textworld_game, loader, change, field, problem)


@pytest.mark.parametrize("loader", LOADERS)
def test_file_too_large(tmp_path, textworld_game, loader):
    text = json.dumps(textworld_game[1])
    bad = tmp_path / "large.json"
    bad.write_text(text + " " * (MAX_FILE_BYTES - len(text) + 1))
    with pytest.raises(TextWorldFormatError, match=f"{re.escape(str(bad))}: larger than the {MAX_FILE_BYTES} bytes"):
        LOADERS[loader](textworld_game[0], bad)


def test_compiled_game_names_its_json(tmp_path, textworld_game):
    game = copy.deepcopy(textworld_game[1])
    game["quests"][0]["reward"] = "one"
    (tmp_path / "story.json").write_text(json.dumps(game))
    (tmp_path / "story.z8").write_bytes(b"\0" * 64)
    with pytest.raises(TextWorldFormatError, match=re.escape(f"{tmp_path / 'story.json'}: quests[0].reward: "
                                                             "expected a number, got string 'one'")):
        jaxlab.make(str(tmp_path / "story.z8"))


def test_valid_games_still_load(tmp_path, textworld_game):
    paths = [textworld_game[0]] + [make(family, seed=1).save(tmp_path / f"{family}.json") for family in FAMILIES]
    for path in paths:
        env = jaxlab.make(str(path))
        assert isinstance(env, TextEnv) and env.num_games == 1
    bank, infos = load_textworld_bank(paths)
    assert bank.size == len(paths) and all(info.walkthrough for info in infos)
    obs, _ = tw_gym.make(tw_gym.register_games([str(p) for p in paths], batch_size=len(paths))).reset()
    assert len(obs) == len(paths) and all(obs)


def _text_fields(game: dict) -> dict:
    """Setters, by name, that put a text into one text field of the TextWorld game: what reaches
    ``feedback`` (objective, room and object names, descriptions), commands, grammar and metadata."""
    room = next(i for i, (_, info) in enumerate(game["infos"]) if info["type"] == "r")
    thing = next(i for i, (_, info) in enumerate(game["infos"]) if info["type"] not in "rPI" and info["name"])
    return {
        "objective": (lambda g, t: g.update(objective="Find the key." + t), "objective"),
        "room_name": (lambda g, t: g["infos"][room][1].update(name=t + "kitchen"), rf"infos\[{room}\]\[1\]\.name"),
        "thing_desc": (lambda g, t: g["infos"][thing][1].update(desc="Shiny." + t), rf"infos\[{thing}\]\[1\]\.desc"),
        "walkthrough": (lambda g, t: g["metadata"]["walkthrough"].append("go east" + t),
                        r"metadata\.walkthrough\[\d+\]"),
        "quest_command": (lambda g, t: g["quests"][0]["commands"].append(t), r"quests\[0\]\.commands\[\d+\]"),
        "grammar": (lambda g, t: g["grammar"].update(theme="house" + t), r"grammar\.theme"),
        "metadata_key": (lambda g, t: g["metadata"].update({"note" + t: 1}), "metadata"),
    }


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("escape", ESCAPES)
def test_control_characters_are_refused(tmp_path, textworld_game, loader, escape):
    text = ESCAPES[escape]
    setter, field = _text_fields(textworld_game[1])["objective"]
    _refused(tmp_path, textworld_game, loader, lambda g: setter(g, text), field,
             re.escape(f"control character U+{ord(text[0]):04X} at character 13; game text may hold no control "
                       "characters but newline and tab"))


@pytest.mark.parametrize("where", ["room_name", "thing_desc", "walkthrough", "quest_command", "grammar",
                                   "metadata_key"])
def test_control_characters_are_refused_in_every_text(tmp_path, textworld_game, where):
    setter, field = _text_fields(textworld_game[1])[where]
    _refused(tmp_path, textworld_game, "make", lambda g: setter(g, ESCAPES["osc_title"]), field,
             "control character U\\+001B")


def test_newline_and_tab_are_text(tmp_path, textworld_game):
    """TextWorld's own descriptions hold newlines: newline and tab load, and stay in the text."""
    game = copy.deepcopy(textworld_game[1])
    game["objective"] = "First,\tfind the key.\nThen open the chest."
    assert any("\n" in (info.get("desc") or "") for _, info in game["infos"])   # as TextWorld writes them
    path = tmp_path / "spaced.json"
    path.write_text(json.dumps(game))
    assert load(path).objective == game["objective"]


def test_cli_play_prints_one_line_and_no_escape(tmp_path, textworld_game, capsys):
    game = copy.deepcopy(textworld_game[1])
    game["objective"] = "\x1b]0;owned\x07\x1b[2J" + game["objective"]
    bad = tmp_path / "escapes.json"
    bad.write_text(json.dumps(game))
    assert tw_main(["play", str(bad), "--mode", "walkthrough"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"jaxlab-tw play: {bad}: objective: control character U+001B at character 0"), err
    assert not CONTROL.search(out + err)


def test_escapes_never_reach_feedback(tmp_path, textworld_game):
    """The hosts that print or return ``feedback`` refuse the game before any text is made."""
    game = copy.deepcopy(textworld_game[1])
    room = next(i for i, (_, info) in enumerate(game["infos"]) if info["type"] == "r")
    game["infos"][room][1]["name"] = "\x1b[31mkitchen\x9b0m"
    bad = tmp_path / "feedback.json"
    bad.write_text(json.dumps(game))
    for play in (lambda: start(str(bad)).reset(), lambda: tw_gym.make(tw_gym.register_game(str(bad))).reset(),
                 lambda: jaxlab.make(str(bad))):
        with pytest.raises(TextWorldFormatError, match=rf"infos\[{room}\]\[1\]\.name: control character U\+001B"):
            play()


@pytest.mark.parametrize("loader", LOADERS)
def test_room_related_to_itself(tmp_path, textworld_game, loader):
    at = next(i for i, fact in enumerate(textworld_game[1]["world"]) if fact["name"] == "east_of")
    room = textworld_game[1]["world"][at]["arguments"][0]["name"]
    _refused(tmp_path, textworld_game, loader,
             lambda g: g["world"][at]["arguments"][1].update(name=room), rf"world\[{at}\]",
             re.escape(f"east_of({room}, {room}) relates room '{room}' to itself"))


@pytest.mark.parametrize("loader", LOADERS)
def test_event_action_that_is_no_rule(tmp_path, textworld_game, loader):
    action = textworld_game[1]["quests"][0]["win_events"][0]["actions"][0]["name"]
    _refused(tmp_path, textworld_game, loader,
             lambda g: g["quests"][0]["win_events"][0]["actions"][0].update(name=action + "x"),
             r"quests\[0\]\.win_events\[0\]\.actions\[0\]\.name",
             re.escape(f"unknown KB.logic rule '{action}x'. Did you mean '{action}'"))


def _edible_player(game: dict) -> dict:
    """A winning event that needs the player to be edible: ``edible`` is a predicate of the logic, but
    no rule makes anything edible and the world has no edible thing."""
    assert not any(fact["name"] == "edible" for fact in game["world"])
    fact = {"name": "edible", "arguments": [{"name": "P", "type": "P"}]}
    event = copy.deepcopy(game["quests"][0]["win_events"][0])
    event["condition"]["preconditions"] = [fact]
    return event


@pytest.mark.parametrize("loader", LOADERS)
def test_quest_that_cannot_be_won(tmp_path, textworld_game, loader):
    _refused(tmp_path, textworld_game, loader,
             lambda g: g["quests"][0].update(win_events=[_edible_player(g)]),
             r"quests\[0\]\.win_events\[0\]\.condition\.preconditions\[0\]",
             "quest 0 cannot be won: its winning event needs predicate 'edible', which no world fact has and no "
             "rule of KB.logic that can apply makes true")


def test_quest_with_one_winning_event_that_can_happen_loads(tmp_path, textworld_game):
    game = copy.deepcopy(textworld_game[1])
    game["quests"][0]["win_events"].append(_edible_player(game))
    path = tmp_path / "either.json"
    path.write_text(json.dumps(game))
    assert len(read_textworld(path).quests[0].win_events) == 2
    game["quests"][0]["win_events"].reverse()
    path.write_text(json.dumps(game))
    assert len(read_textworld(path).quests[0].win_events) == 2


def test_rules_apply_only_once_their_preconditions_can_hold():
    logic = ("type r { predicates { here(r); lit(r); warm(r); cosy(r); } "
             "rules { light :: here(r) -> lit(r); heat :: warm(r) -> cosy(r); bake :: lit(r) & cosy(r) -> warm(r); "
             "wake :: $lit(r) -> here(r); } "
             'inform7 { commands { light :: "light" :: "lighting"; heat :: "heat" :: "heating"; '
             'bake :: "bake" :: "baking"; wake :: "wake" :: "waking"; } } }')
    tables = logic_tables(logic)
    assert reachable_predicates(tables, {"here"}) == {"here", "lit"}      # cosy needs warm, which needs cosy
    assert reachable_predicates(tables, {"warm"}) == {"warm", "cosy"}
    assert reachable_predicates(tables, {"here", "warm"}) == {"here", "lit", "warm", "cosy"}

"""Free text to command ids: normalisation, synonyms, and the two kinds of unknown command."""
from hypothesis import given, settings, strategies as st

from jaxlab.hosts.text.parser import UNKNOWN_OBJECT, UNKNOWN_VERB, CommandParser, normalise

COMMANDS = ("close wooden chest", "eat red apple", "examine wooden chest", "go east", "go north", "insert red apple into wooden chest",
            "inventory", "look", "open wooden chest", "put red apple on table", "take red apple",
            "take red apple from wooden chest", "unlock wooden door with brass key")


def test_exact_and_typed_forms_find_the_command():
    parser = CommandParser(COMMANDS)
    cases = {
        "take red apple": "take red apple",
        "  Take the Red Apple!  ": "take red apple",
        "get red apple": "take red apple",
        "pick up the red apple": "take red apple",
        "e": "go east",
        "east": "go east",
        "go n": "go north",
        "walk north": "go north",
        "i": "inventory",
        "inv": "inventory",
        "l": "look",
        "x wooden chest": "examine wooden chest",
        "look at the wooden chest": "examine wooden chest",
        "put the red apple in the wooden chest": "insert red apple into wooden chest",
        "insert red apple in wooden chest": "insert red apple into wooden chest",
        "place red apple onto table": "put red apple on table",
        "shut wooden chest": "close wooden chest",
        "get red apple from wooden chest": "take red apple from wooden chest",
        "unlock the wooden door with the brass key": "unlock wooden door with brass key",
    }
    for typed, command in cases.items():
        assert parser.parse(typed) == COMMANDS.index(command), typed


def test_unknown_verbs_and_objects_are_told_apart():
    parser = CommandParser(COMMANDS)
    assert parser.parse("dance") == UNKNOWN_VERB
    assert parser.parse("xyzzy the chest") == UNKNOWN_VERB
    assert parser.parse("") == UNKNOWN_VERB
    assert parser.parse("take unicorn") == UNKNOWN_OBJECT
    assert parser.parse("open red apple") == UNKNOWN_OBJECT
    assert parser.parse("go up") == UNKNOWN_OBJECT
    assert parser.parse_many(["look", "dance"]) == [COMMANDS.index("look"), UNKNOWN_VERB]


def test_normalise_is_idempotent_on_commands():
    for command in COMMANDS:
        assert normalise(normalise(command)) == normalise(command)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_text_parses_to_an_id_or_an_unknown(text):
    parser = CommandParser(COMMANDS)
    result = parser.parse(text)
    assert result in (UNKNOWN_VERB, UNKNOWN_OBJECT) or 0 <= result < len(COMMANDS)

"""How much of TextWorld's own text jaxlab's text says, over many TextWorld games.

Generates ``--games`` games with the ``textworld`` package (coin collector, treasure hunter, tw-simple
and tw-cooking across their settings, each with its own seed; ``--folder`` keeps them between runs)
and compiles each to ``.z8``. Both engines play each game along its walkthrough and then
``--random-steps`` random admissible commands: TextWorld through Jericho (its text), jaxlab through
``jaxlab.text.start`` on the ``.json``. For the first observation (TextWorld's banner cut off) and each
step's feedback it measures:

- **content words**: the fraction of TextWorld's content words (lower-cased words of letters, minus
  a short list of function words) that jaxlab's text of the same moment contains (as a set per
  observation, averaged over observations);
- **state facts**: the fraction of TextWorld's state adjectives followed by a noun (``locked
  wooden door``, ``diced fried purple potato``; the adjectives in ``STATE_WORDS``) whose adjective
  and noun jaxlab's text of the same moment also puts together (adjective before the noun within
  four words);
- **score lines**: the fraction of TextWorld's "score has just gone up" lines jaxlab also prints;
- **same text**: the fraction of observations equal after whitespace is normalised.

Usage::

    PYTHONPATH=. python benchmarks/text_fidelity.py [--games 50] [--folder DIR] [--random-steps 10]
        [--misses] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
from pathlib import Path

from jaxlab.bench.timing import add_output_arguments, device_and_date, finish, log

STOP_WORDS = frozenset("""a an the and or but of to in on at for with from by is are was were be been it its this that
there here you your yours i me my we our as so if then than into onto up down out off over not no can just
what which who whom have has had do does did will would should could may might must very too also
""".split())
STATE_WORDS = ("locked", "closed", "open", "raw", "fried", "roasted", "grilled", "burned", "sliced", "diced",
               "chopped", "cooked", "eaten")
#: words that end a noun phrase in TextWorld's room texts without being its noun ("a closed toolbox
#: nearby", "a closed fridge right there by you", "a closed door leading west")
PHRASE_ENDS = frozenset(("nearby", "right", "leading"))
SCORE_LINE = "score has just gone up"
#: (challenge, settings) cycled through; game i uses seed 1000 + i
SETTINGS = (
    [("tw-coin_collector", {"level": lv}) for lv in (1, 5, 30, 120, 210)]
    + [("tw-treasure_hunter", {"level": lv}) for lv in (1, 8, 15, 22, 29)]
    + [("tw-simple", {"rewards": r, "goal": g, "test": False}) for r, g in (("dense", "detailed"), ("sparse", "brief"))]
    + [("tw-cooking", {"recipe": r, "take": t, "go": g, "open": o, "cook": c, "cut": u, "drop": False,
                       "recipe_seed": 0, "split": s})
       for r, t, g, o, c, u, s in ((1, 1, 1, False, False, False, "train"), (2, 1, 6, True, True, False, "valid"),
                                   (3, 2, 6, True, True, True, "test"), (3, 3, 9, True, True, True, "train"))]
)


def words(text: str):
    """The lower-cased words of letters of ``text``."""
    return re.findall(r"[a-z]+(?:-[a-z]+)?", text.lower())


def content_words(text: str) -> set:
    """The words of ``text`` that are not in ``STOP_WORDS``."""
    return {w for w in words(text) if w not in STOP_WORDS}


def state_pairs(text: str) -> set:
    """``(adjective, noun)`` for each state adjective of ``text`` and the last word of the noun phrase
    after it (up to four words, stopping at a function word, a word of ``PHRASE_ENDS`` or punctuation)."""
    out = set()
    for phrase in re.split(r"[.,;:!?\n]", text.lower()):
        ws = words(phrase)
        for i, w in enumerate(ws):
            if w in STATE_WORDS:
                tail = []
                for nxt in ws[i + 1:i + 5]:
                    if nxt in STOP_WORDS or nxt in PHRASE_ENDS:
                        break
                    tail.append(nxt)
                if tail and tail[-1] not in STATE_WORDS:
                    out.add((w, tail[-1]))
    return out


def has_pair(text: str, pair) -> bool:
    """Whether ``text`` puts the adjective before the noun within four words, in one sentence."""
    adjective, noun = pair
    for phrase in re.split(r"[.,;:!?\n]", text.lower()):
        ws = words(phrase)
        for i, w in enumerate(ws):
            if w == adjective and noun in ws[i + 1:i + 5]:
                return True
    return False


def strip_textworld(text: str) -> str:
    """TextWorld's observation without its banner, prompt and status line."""
    text = re.sub(r"^[\s\S]*?\n\s*\n(?=[A-Z])", "", text) if "$$" in text else text   # the ASCII-art banner
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">")).strip()


def generate(folder: Path, count: int) -> list:
    """``count`` games in ``folder`` (``.json`` + ``.z8``), made once; returns the ``.z8`` paths."""
    from textworld.challenges import CHALLENGES
    from textworld.generator import compile_game
    from textworld.generator.game import GameOptions

    paths = []
    for i in range(count):
        challenge, settings = SETTINGS[i % len(SETTINGS)]
        path = folder / f"{i:03d}-{challenge}.z8"
        if not path.exists():
            log(f"generating {path.name}")
            options = GameOptions()
            options.seeds, options.path = 1000 + i, str(path)
            game = CHALLENGES[challenge][1](settings=dict(settings), options=options)
            compile_game(game, options)
        paths.append(path)
    return paths


def compare(path: Path, random_steps: int, seed: int) -> list:
    """[(kind, TextWorld's text, jaxlab's text)] over the walkthrough and a random walk of ``path``."""
    import textworld

    from jaxlab.text import EnvInfos, start

    theirs = textworld.start(str(path), request_infos=textworld.EnvInfos(admissible_commands=True,
                                                                          extras=["walkthrough"]))
    ours = start(str(path.with_suffix(".json")), request_infos=EnvInfos(admissible_commands=True))
    a, b = theirs.reset(), ours.reset()
    pairs = [("start", strip_textworld(a["feedback"]), b["feedback"])]
    rng = random.Random(seed)
    commands = list(a["extra.walkthrough"])
    for t in range(len(commands) + random_steps):
        command = commands[t] if t < len(commands) else rng.choice(b["admissible_commands"])
        a, _, done_a = theirs.step(command)
        b, _, done_b = ours.step(command)
        pairs.append(("step", strip_textworld(a["feedback"]), b["feedback"]))
        if done_a or done_b:
            break
    theirs.close()
    return pairs


def measures(pairs) -> dict:
    """The four fractions (see the module docstring) over ``pairs``."""
    recall, states_total, states_hit, score_total, score_hit, same = [], 0, 0, 0, 0, 0
    for _, tw, ours in pairs:
        theirs_words = content_words(tw)
        if theirs_words:
            recall.append(len(theirs_words & content_words(ours)) / len(theirs_words))
        for pair in state_pairs(tw):
            states_total += 1
            states_hit += has_pair(ours, pair)
        if SCORE_LINE in tw.lower():
            score_total += 1
            score_hit += SCORE_LINE in ours.lower()
        same += " ".join(tw.split()) == " ".join(ours.split())
    return {"words": statistics.mean(recall), "states": states_hit / max(states_total, 1), "states_n": states_total,
            "score": score_hit / max(score_total, 1), "score_n": score_total, "same": same / len(pairs),
            "observations": len(pairs)}


def misses(pairs) -> list:
    """[(adjective, noun), TextWorld's text, jaxlab's text] for each state pair of TextWorld's that
    jaxlab's text of the same moment does not state."""
    return [(pair, tw, ours) for _, tw, ours in pairs for pair in sorted(state_pairs(tw)) if not has_pair(ours, pair)]


def main(argv=None) -> None:
    """Run the comparison (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50, help="games to compare (default 50)")
    ap.add_argument("--folder", help="keep the generated games here (default: a temporary folder)")
    ap.add_argument("--random-steps", type=int, default=10, help="random commands after each walkthrough")
    ap.add_argument("--misses", action="store_true", help="print each state pair jaxlab's text does not state")
    add_output_arguments(ap)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.folder or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        paths = generate(folder, args.games)
        by_family, everything = {}, []
        for i, path in enumerate(paths):
            log(f"comparing {path.name}")
            pairs = compare(path, args.random_steps, seed=i)
            for pair, tw, ours in misses(pairs) if args.misses else ():
                print(f"--- {path.name}: {' '.join(pair)!r} missed\nTextWorld: {tw}\njaxlab:    {ours}", flush=True)
            by_family.setdefault(path.stem.split("-", 1)[1], []).extend(pairs)
            everything.extend(pairs)
    head = (f"### Text fidelity: {len(paths)} TextWorld games — {device_and_date()}\n\n"
            f"`benchmarks/text_fidelity.py`: first observation and every step's feedback along the walkthrough "
            f"and {args.random_steps} random admissible commands, TextWorld (.z8 through Jericho) against "
            f"jaxlab (the .json). Content words: the share of TextWorld's content words jaxlab's text of "
            f"the same moment has; state facts: the share of TextWorld's state adjective + noun pairs "
            f"(locked door, diced potato, ...) jaxlab also states; score lines: the share of TextWorld's "
            f"\"score has just gone up\" lines jaxlab prints; same text: identical observations.")
    header = ("| games | observations | content words | state facts (n) | score lines (n) | same text |\n"
              "|---|---:|---:|---:|---:|---:|")
    rows = []
    for family, pairs in sorted(by_family.items()) + [("all", everything)]:
        m = measures(pairs)
        rows.append(f"| {family} | {m['observations']} | {m['words']:.1%} | {m['states']:.1%} ({m['states_n']}) "
                    f"| {m['score']:.1%} ({m['score_n']}) | {m['same']:.1%} |")
    if args.markdown:
        print(head + "\n\n" + header + "\n" + "\n".join(rows), flush=True)
    finish(args, head, header, rows)


if __name__ == "__main__":
    main()

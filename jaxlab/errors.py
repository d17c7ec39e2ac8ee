"""Error helpers: clear messages with close-match suggestions."""
from __future__ import annotations

import difflib
from typing import Iterable


class UnknownNameError(KeyError, ValueError):
    """An unknown level, observation, setting or pickup name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def unknown_name_error(kind: str, name: str, known: Iterable[str]) -> UnknownNameError:
    """Build an UnknownNameError for ``name`` suggesting the closest ``known`` names."""
    known = sorted(known)
    by_case = {k.lower(): k for k in known}
    close = difflib.get_close_matches(str(name).lower(), list(by_case), n=3, cutoff=0.5)
    close = [by_case[c] for c in close]
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    listing = ", ".join(known) if len(known) <= 12 else f"{len(known)} names, see the docs"
    return UnknownNameError(f"unknown {kind} {name!r}.{hint} Known: {listing}.")

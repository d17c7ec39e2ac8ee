"""Level data and builders: text maps, compiled Levels, banks, the built-in catalogue."""
from jaxlab.levels.catalogue import BUILTIN, builtin_level, read_map_file
from jaxlab.levels.level import Level, build_level
from jaxlab.levels.text_map import MapError, ParsedMap, parse_text_map


def names():
    """Every registered level name (sorted)."""
    from jaxlab.registry import level_names

    return level_names()


__all__ = ["BUILTIN", "Level", "MapError", "ParsedMap", "build_level", "builtin_level",
           "names", "parse_text_map", "read_map_file"]

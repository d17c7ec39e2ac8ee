"""The registry's tables (one per family) and the level data's names agree, name for name."""
import pytest

import jaxlab
from jaxlab import levels, registry


@pytest.mark.parametrize("family", levels.FAMILIES)
def test_each_family_table_makes_exactly_its_named_levels(family):
    assert set(registry.family_table(family)) == set(levels.family_names(family))
    assert len(levels.family_names(family)) > 0


def test_names_are_the_union_of_the_families():
    assert jaxlab.levels.names() == tuple(sorted(n for f in levels.FAMILIES for n in levels.family_names(f)))
    assert registry.names("lab2d") == levels.names("lab2d")


def test_unknown_family_gets_suggestions():
    with pytest.raises(jaxlab.UnknownNameError, match="lab2d"):
        levels.family_names("lab2")
    with pytest.raises(jaxlab.UnknownNameError, match="lab2d"):
        registry.family_table("lab2")

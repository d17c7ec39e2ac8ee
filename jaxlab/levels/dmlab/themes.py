"""The looks a first-person level names, as level data: its level theme (a whole level's floor,
ceiling and default walls) and its wall variations (the map's ``A``-``Z`` layer). How each looks is
the renderer's (``jaxlab.render.first_person.textures``)."""

#: the level themes, by index (``Level.theme``); theme 0 is the classic look
LEVEL_THEME_NAMES = ("classic", "sandstone", "night", "garden", "brick", "lab", "industrial", "ice")
NUM_LEVEL_THEMES = len(LEVEL_THEME_NAMES)
#: wall variations of a cell (``Level.variation``): 0 (default) and the variations layer's 'A'..'Z'
NUM_THEMES = 27

"""What a PsychLab screen can show, as level data: procedural images by id, the change-detection
colour swatches by name, and the kinds of screen item. How each looks is the renderer's
(``jaxlab.render.psychlab``)."""

#: procedural image ids are 0 <= id < NUM_IMAGES (train even ids, holdout odd)
NUM_IMAGES = 4096
#: change_detection's colours, ids 0..9: train Amethyst, Mallow, Jade, Caramel, Honeydew; holdout
#: Violet, Lime, Orange, Sky, Yellow
SWATCH_NAMES = ("Amethyst", "Mallow", "Jade", "Caramel", "Honeydew", "Violet", "Lime", "Orange", "Sky", "Yellow")
#: the kind of a screen item: none, an image, a colour swatch, a button, the fixation cross, a tile of
#: the screen renderer's bank by its number (the DMLab-30 screens' looks)
KIND_NONE, KIND_IMAGE, KIND_SWATCH, KIND_BUTTON, KIND_FIXATION, KIND_TILE = range(6)

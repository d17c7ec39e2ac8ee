"""The PsychLab screen renderer (``screen``) and its procedural stimuli (``images``)."""
from jaxlab.render.psychlab.images import NUM_IMAGES, image_colour, swatch_colour
from jaxlab.render.psychlab.screen import Slots, render_screen

__all__ = ["NUM_IMAGES", "Slots", "image_colour", "render_screen", "swatch_colour"]

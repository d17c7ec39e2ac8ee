"""The PsychLab screen renderer (``screen``) and its procedural stimuli (``images``)."""
from jaxlab.render.psychlab.images import image_colour, swatch_colour
from jaxlab.render.psychlab.screen import Slots, render_screen

__all__ = ["Slots", "image_colour", "render_screen", "swatch_colour"]

"""A converted ``.map``'s screens: flat upright patches that show a texture the level script gives and updates.

DMLab's renderer asks the script's ``api:loadTexture(name)`` for each image it loads, ``textures/<texture>`` for
a map surface of texture ``<texture>`` (a shader of that name, or none, loads that image); an answer (a
ByteTensor shaped H x W x 4) is the image, copied once, and ``game:updateTexture(name, tensor)`` replaces it
during play (``compile_lua.device.live_textures``). :class:`ScreenSteps`, part of the DMLab compiler, asks it
for the texture of each of a converted map's flat upright world patches (``ConvertedMap.surfaces``) once the
episode's map is loaded: a patch whose texture it answers is a screen (``Level.screen_*``, placed as lookat
zones are), and the answer is the start value of the texture's play-time state. Other patches stay out, as
decals do. A script with no callback compiled onto the device keeps no play-time state: its screens are left
out with a warning. All live textures of a script have one shape (the renderer stacks them).
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from compile_lua.device.live_textures import CHANNELS, TEXTURE, texture_kind
from jaxlab.levels.dmlab.quake_layout import ConvertedMap

CALLBACK = "loadTexture"
PREFIX = "textures/"   # the image a map surface of texture ``<texture>`` loads is ``textures/<texture>``


class ScreenSteps:
    """The screens of an episode's map, mixed into the DMLab compiler (its ``tab``, ``sandbox``, ``play``,
    ``error``, ``warn``, ``defined_at``); :attr:`texture_names` lists the live textures in the order the
    Levels' ``screen_texture`` counts them."""

    texture_names: List[str]

    def screens(self, loaded: Any) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        """(the Level's ``screen_box``/``screen_st``/``screen_texture`` fields, {} without screens; the live
        textures' start values, state key -> nested lists) of the episode's map ``loaded``."""
        if not isinstance(loaded, ConvertedMap) or not loaded.surfaces or not self.tab.has(CALLBACK):
            return {}, {}
        answers: Dict[str, Any] = {}
        for texture in dict.fromkeys(p.texture for p in loaded.surfaces):
            image = self.texture_answer(PREFIX + texture)
            if image is not None:
                answers[PREFIX + texture] = image
        if answers and self.play is None:
            self.warn(f"api:{CALLBACK} gives the map's screens {', '.join(answers)}, which no play-time callback "
                      "updates: jaxlab keeps no play-time state for this script, so they are left out",
                      self.defined_at(CALLBACK))
            return {}, {}
        self.texture_names += [n for n in answers if n not in self.texture_names]
        shown = [p for p in loaded.surfaces if PREFIX + p.texture in answers]
        fields = {"screen_box": np.asarray([loaded.level_zone(p) for p in shown], np.float32).reshape(-1, 6),
                  "screen_st": np.asarray([[p.st_lo[0], p.st_hi[0], p.st_lo[1], p.st_hi[1]] for p in shown],
                                          np.float32).reshape(-1, 4),
                  "screen_texture": np.asarray([self.texture_names.index(PREFIX + p.texture) for p in shown],
                                               np.int32)}
        return (fields if shown else {}), {TEXTURE + n: a.tolist() for n, a in answers.items()}

    def texture_answer(self, name: str):
        """uint8[H, W, 4] ``api:loadTexture(name)``'s answer, or None for nil (the image from its file); an error
        for another answer (DMLab stops there), or a shape unlike the script's other live textures'."""
        answer = self.sandbox.to_python(self.tab.call(CALLBACK, name))
        if answer is None:
            return None
        image = np.asarray(answer) if isinstance(answer, np.ndarray) else None
        if image is None or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != CHANNELS:
            got = f"a {image.dtype} tensor of shape {list(image.shape)}" if image is not None else repr(answer)[:60]
            raise self.error(f"api:{CALLBACK}({name!r}) must return a ByteTensor shaped H x W x 4 or nil, got {got}",
                             CALLBACK)
        layout = self.play.translation.layout if self.play is not None else {}
        kinds = {k: v for k, v in layout.items() if k.startswith(TEXTURE)}
        other = next((k for k, v in kinds.items() if v != texture_kind(image.shape)), None)
        if other is not None:
            raise self.error(f"api:{CALLBACK}({name!r}) returned an image of shape {list(image.shape)}; the live "
                             f"texture {other[len(TEXTURE):]!r} is {list(kinds[other][2])} (game:updateTexture's "
                             "tensor, or another answer): a level's live textures have one shape", CALLBACK)
        if self.play is not None and TEXTURE + name not in layout:   # no callback updates it: it keeps this image
            self.play.translation.define(TEXTURE + name, texture_kind(image.shape), image.tolist())
        return image

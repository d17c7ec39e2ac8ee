"""PsychLab level data: a task's trials, phases and screen layouts (``task``) and its stimuli
(``stimuli``: image ids, colour swatches, the kinds of screen item)."""

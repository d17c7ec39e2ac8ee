"""Grid-world rendering: pre-composited cell looks (``looks``) and the frames built from them (``frames``)."""

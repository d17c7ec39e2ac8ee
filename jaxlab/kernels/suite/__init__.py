"""The DMLab-30 suite as one env: first-person and PsychLab screen levels in one batch."""

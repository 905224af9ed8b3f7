"""Maintenance tools of the repository (``python -m tools.course ...``)."""

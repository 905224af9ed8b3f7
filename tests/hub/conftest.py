"""Fixtures of the hub test (the machine itself: classroom.py)."""

import pytest


@pytest.fixture(scope="module")
def hub_browser():
    """Headless Chromium with a fresh profile (browser.py)."""
    from .browser import browser
    with browser() as driver:
        yield driver

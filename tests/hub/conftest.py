"""Fixtures of the hub test and the load test (the machine itself: classroom.py)."""

import pytest


@pytest.fixture(scope="session")
def class_environment():
    """The class environment and the students' edition, built once for the session's
    classrooms (classroom.ClassEnvironment); nothing is built until a classroom needs it."""
    from .classroom import ClassEnvironment
    environment = ClassEnvironment()
    try:
        yield environment
    finally:
        environment.close()


@pytest.fixture(scope="module")
def hub_browser():
    """Headless Chromium with a fresh profile (browser.py)."""
    from .browser import browser
    with browser() as driver:
        yield driver

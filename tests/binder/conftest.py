"""Fixtures of the Binder tests (the environment itself: binder_env.py)."""

import sys

import pytest

from .binder_env import BinderEnv, copy_repository, python_for, runtime_version


@pytest.fixture(scope="session")
def binder_env(tmp_path_factory):
    """The students' environment, built once per session from binder/ alone."""
    version = runtime_version()
    python = python_for(version)
    if python is None:
        pytest.skip(f"binder/runtime.txt asks for Python {version}: neither this interpreter "
                    f"({sys.version.split()[0]}) nor python{version} on PATH is that version")
    return BinderEnv(tmp_path_factory.mktemp("binder"), python).build()


@pytest.fixture(scope="session")
def repo_copy(tmp_path_factory):
    """A copy of the repository as Binder would check it out."""
    return copy_repository(tmp_path_factory.mktemp("checkout") / "repo")

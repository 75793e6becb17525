"""Doctests of the modules that need an optional extra skip where it is not installed.

The ``test`` extra installs every extra these doctests need; a narrower install (``pip
install ".[peers]"`` missing) skips them with the command that brings the extra, instead
of failing on an ImportError.
"""

import importlib.util

import pytest

#: Module file (relative to the repository root) -> (import name it needs, how to get it).
OPTIONAL_DOCTESTS = {
    "digraph_askls/peers.py": ("sknetwork", 'pip install ".[peers]"'),
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        needed = OPTIONAL_DOCTESTS.get(item.nodeid.split("::")[0])
        if needed and importlib.util.find_spec(needed[0]) is None:
            item.add_marker(pytest.mark.skip(
                reason=f"{needed[0]} is not installed: {needed[1]}"))

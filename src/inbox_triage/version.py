"""The installed package's version, in a module of its own so that any layer can read it
without importing the package's public facade (``inbox_triage/__init__.py`` sits above
everything)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("inbox-triage")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"

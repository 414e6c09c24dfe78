"""The installed package's version, in a module of its own so that any layer can read it
without importing the package's public facade (``inbox_triage/__init__.py`` sits above
everything)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

# The distribution's name: "openenv-" + the module, which is how OpenEnv's AutoEnv finds an
# installed environment (``AutoEnv.from_env("inbox_triage")``).
DISTRIBUTION = "openenv-inbox-triage"

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"

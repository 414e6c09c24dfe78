"""Import OpenEnv without paying for its Gradio web interface until someone uses it.

openenv 0.10's ``openenv/core/env_server/__init__.py`` imports ``web_interface``, which imports
``gradio`` at module level: about 2.5 s of a 3.5 s ``import inbox_triage.env``, paid by every
CLI call, runner worker and trainer that never opens the web UI (issue 31). OpenEnv itself
treats that import as optional (``except ModuleNotFoundError`` sets the two names to None).

So, while ``openenv.core.env_server`` is first being initialised, this finder answers
"not found" for ``web_interface`` alone; on the next import anywhere it replaces the two None
names with a module ``__getattr__`` that imports the real web interface on first use. Users of
Gradio lose nothing: ``from openenv.core.env_server import create_web_interface_app`` and
``create_app`` (which imports ``web_interface`` itself) work as before, a few seconds later.
If OpenEnv was imported before inbox_triage, nothing changes.

Upstream: the eager import is in openenv-core 0.10.0, ``src/openenv/core/env_server/__init__.py``
(``from .web_interface import ...``); a lazy ``__getattr__`` there would make this unnecessary.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

_PACKAGE = "openenv.core.env_server"
_HIDDEN = f"{_PACKAGE}.web_interface"
_NAMES = ("create_web_interface_app", "WebInterfaceManager")
_EXPORTERS = (_PACKAGE, "openenv.core")  # openenv.core star-imports the package


def _initialising(name: str) -> bool:
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    return module is not None and bool(getattr(spec, "_initializing", False))


def _lazy_getattr(module_name: str, previous: Callable[[str], Any] | None) -> Callable[[str], Any]:
    def __getattr__(name: str) -> Any:
        if name in _NAMES:
            value = getattr(importlib.import_module(_HIDDEN), name)
            setattr(sys.modules[module_name], name, value)
            return value
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


class _DeferWebInterface(MetaPathFinder):
    """Hides ``web_interface`` during OpenEnv's own initialisation only, then restores it."""

    def __init__(self) -> None:
        self.hid = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname == _HIDDEN and not self.hid and _initialising(_PACKAGE):
            self.hid = True
            raise ModuleNotFoundError(f"deferred: {fullname}", name=fullname)
        if self.hid and not any(_initialising(m) for m in (*_EXPORTERS, "openenv")):
            self.restore()
        return None

    def restore(self) -> None:
        """Swap the None placeholders for names that import the web interface when used."""
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for module_name in _EXPORTERS:
            module = sys.modules.get(module_name)
            if module is None:
                continue
            for name in _NAMES:
                if name in vars(module) and vars(module)[name] is None:
                    delattr(module, name)
            module.__getattr__ = _lazy_getattr(  # type: ignore[method-assign]
                module_name, vars(module).get("__getattr__")
            )


def install() -> None:
    """Defer OpenEnv's web interface, unless OpenEnv is already imported."""
    if _PACKAGE in sys.modules or any(isinstance(f, _DeferWebInterface) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _DeferWebInterface())

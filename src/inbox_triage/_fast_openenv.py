"""Import OpenEnv without paying for its Gradio web interface or FastMCP until they are used.

openenv 0.10's ``openenv/core/env_server/__init__.py`` imports ``web_interface`` (which imports
``gradio``) and ``mcp_environment`` (which imports ``fastmcp``) at module level: about 3 s of a
3.5 s ``import inbox_triage.env``, paid by every CLI call, runner worker and trainer that never
opens the web UI or an MCP session (issue 31). OpenEnv itself treats both as optional
(``except ModuleNotFoundError`` sets their names to None).

So, while ``openenv.core.env_server`` is first being initialised, this finder answers "not
found" for ``web_interface``, and gives ``http_server`` a stand-in ``mcp_environment`` whose
``get_server_tools`` imports the real module when first called. On the next import anywhere,
the None names are replaced with a module ``__getattr__`` that imports the real module on first
use. Users of Gradio or MCP lose nothing: ``from openenv.core.env_server import
create_web_interface_app, MCPEnvironment`` and ``create_app`` work as before, a moment later.
If OpenEnv was imported before inbox_triage, nothing changes.

Upstream: the eager imports are in openenv-core 0.10.0, ``src/openenv/core/env_server/
__init__.py`` and ``http_server.py`` (``from .mcp_environment import get_server_tools``); lazy
imports there would make this module unnecessary.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

_PACKAGE = "openenv.core.env_server"
_HIDDEN = f"{_PACKAGE}.web_interface"
_MCP = f"{_PACKAGE}.mcp_environment"
# The package's names that would import a deferred module, and which module.
_NAMES = {
    "create_web_interface_app": _HIDDEN,
    "WebInterfaceManager": _HIDDEN,
    "MCPEnvironment": _MCP,
}
_EXPORTERS = (_PACKAGE, "openenv.core")  # openenv.core star-imports the package


def _initialising(name: str) -> bool:
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    return module is not None and bool(getattr(spec, "_initializing", False))


def _lazy_getattr(module_name: str, previous: Callable[[str], Any] | None) -> Callable[[str], Any]:
    def __getattr__(name: str) -> Any:
        if name in _NAMES:
            value = getattr(_real(_NAMES[name]), name)
            setattr(sys.modules[module_name], name, value)
            return value
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


def _real(name: str) -> ModuleType:
    """The real module, imported now if only the stand-in was."""
    module = sys.modules.get(name)
    if isinstance(module, _StandIn) or module is None:
        package = importlib.import_module(_PACKAGE)
        spec = PathFinder.find_spec(name, package.__path__)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"no module named {name!r}", name=name)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        setattr(package, name.rpartition(".")[2], module)
    return module


def _get_server_tools(mcp_server: Any) -> dict[str, Any]:
    tools: dict[str, Any] = _real(_MCP).get_server_tools(mcp_server)
    return tools


class _StandIn(ModuleType):
    """``mcp_environment`` until something needs it: ``get_server_tools`` (which
    ``http_server`` imports) defers; ``MCPEnvironment`` is "not installed" while OpenEnv
    initialises (so it takes the None it already allows for); anything else imports it."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system asks for __path__ and the like
            raise AttributeError(name)
        if name == "get_server_tools":
            return _get_server_tools
        if name == "MCPEnvironment" and _initialising(_PACKAGE):
            raise ModuleNotFoundError(f"deferred: {_MCP}", name=_MCP)
        return getattr(_real(_MCP), name)


class _StandInLoader(Loader):
    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return _StandIn(spec.name)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the stand-in answers from ``__getattr__``."""


class _DeferOptional(MetaPathFinder):
    """Defers ``web_interface`` and ``mcp_environment`` during OpenEnv's own initialisation
    only, then restores what they export as names that import them when used."""

    def __init__(self) -> None:
        self.hid = False  # web_interface was answered "not found" once
        self.deferred = False  # something was deferred: restore once OpenEnv is imported

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname == _HIDDEN and not self.hid and _initialising(_PACKAGE):
            self.hid = self.deferred = True
            raise ModuleNotFoundError(f"deferred: {fullname}", name=fullname)
        if fullname == _MCP and _initialising(_PACKAGE):
            self.deferred = True
            return ModuleSpec(fullname, _StandInLoader())
        if self.deferred and not any(_initialising(m) for m in (*_EXPORTERS, "openenv")):
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
    """Defer OpenEnv's web interface and MCP, unless OpenEnv is already imported."""
    if _PACKAGE in sys.modules or any(isinstance(f, _DeferOptional) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _DeferOptional())

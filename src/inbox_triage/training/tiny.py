"""Tiny randomly initialised causal LMs, made here in a second, to try a training pipeline
before paying for a real model (SmolLM2's GRPO step takes minutes on a CPU).

- ``tool_model(out, mode)``: a byte-level tokenizer trained on the mode's prompts and tool calls
  under TRL's tool-capable chat template; ``GRPOTrainer(environment_factory=TicketTools)``
  runs a whole step with it in seconds.
- ``tiny_checkpoint(out, answers)``: a vocabulary of a dozen tokens, some of them complete JSON
  decisions. A random model over SmolLM2's 49,152 tokens never writes a parseable decision, so
  every reward would be 0; over this one it samples some: rewards come from the environment,
  differ within a group, and a training step moves the weights.

Nothing is downloaded; they need the ``train`` extra. The test suite trains on them too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "[UNK]"]


def tiny_checkpoint(out: Path, answers: list[str], seed: int = 0) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = ["system", "user", "assistant", "the", "customer", "email"]
    vocab = {token: i for i, token in enumerate([*SPECIALS, *words, *answers])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token="[UNK]",
    )
    tokenizer.add_special_tokens({"additional_special_tokens": SPECIALS[1:3]})
    tokenizer.chat_template = CHATML
    return save_random_model(out, tokenizer, hidden=32, positions=4096, seed=seed)


def save_random_model(out: Path, tokenizer: Any, hidden: int, positions: int, seed: int) -> Path:
    """A one-layer random Llama over the tokenizer's vocabulary, saved with it to ``out``."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=hidden * 2,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=positions,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def tool_model(out: str | Path, mode: str = "ticket", n: int = 8) -> Path:
    """A tiny random model for ``mode``'s tools (``triage``, ``ticket`` or ``inbox``), its
    tokenizer trained on the first observations of ``n`` train-split episodes and a call of
    every tool, saved to ``out``; returns ``out``."""
    from inbox_triage.prompting.tools import TOOLS, tool_names
    from inbox_triage.training.export import prompt_rows

    corpus = []
    for row in prompt_rows(mode, "train", "easy", n=n):
        corpus += [turn["content"] for turn in row.pop("prompt")]
        corpus.append(TOOLS[mode]().reset(**row))
    corpus += [
        f'<tool_call>\n{{"name": "{name}", "arguments": {{"value": "high"}}}}\n</tool_call>'
        for name in tool_names(mode)
    ]
    return tiny_text_checkpoint(Path(out), corpus)


def weights(path: Path) -> dict:
    """A checkpoint's tensors by name (to see that a step moved them)."""
    from safetensors.torch import load_file

    return load_file(str(path / "model.safetensors"))


def tiny_text_checkpoint(out: Path, corpus: list[str], vocab_size: int = 4000) -> Path:
    """A tiny random model whose byte-level BPE tokenizer (trained here on ``corpus``) writes
    any text, under TRL's tool-capable chat template: for tests that script what the model
    "generates" (tool calls) and let TRL parse, dispatch and score it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    from inbox_triage.prompting.checkpoint import tool_template

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    learn = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIALS[:3],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    core.train_from_iterator(corpus, learn)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
    )
    tokenizer.chat_template = tool_template()
    return save_random_model(out, tokenizer, hidden=16, positions=32768, seed=0)

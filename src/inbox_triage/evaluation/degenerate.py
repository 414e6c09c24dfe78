"""Degenerate policies: shortcuts an RL agent might find, each with a ceiling it must stay under.

A policy here never does the work: it does nothing, finishes at once, acts at random, answers
the same everywhere, escalates or closes everything, pastes the email back, stuffs replies with
every keyword, writes replies as long as allowed, or sends nothing but invalid actions. Each is
scored as a mean over a mode's task pool (its fixed tasks and generated episodes across splits
and difficulties): one task can happen to match a constant answer, a pool cannot.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from statistics import mean
from typing import Any

from inbox_triage.agents import make_agent
from inbox_triage.agents.base import ActionDict, Agent, Observation
from inbox_triage.agents.planning import Item, PlanningAgent, visible_items
from inbox_triage.domain import MODES, Scenario
from inbox_triage.evaluation.leaks.trial import TrialAndError
from inbox_triage.evaluation.runner import run_episode
from inbox_triage.scenarios import fixed_task_ids
from inbox_triage.scenarios.generator import SPLITS
from inbox_triage.scenarios.generator.data import load_situations

# Every policy keyword an agent could learn to spray: categories, queues, tags, templates,
# plus the phrases support replies are made of.
FILLER = (
    "We have reviewed your request and our team will follow up with you shortly. "
    "Thank you for your patience while we look into this for you. "
)


@cache
def common_choices(mode: str) -> dict[str, str]:
    """The most common right answer per field among the generator's situations for a mode:
    what a policy that always answers the same would learn to say."""
    situations = [s for s in load_situations() if mode in s.modes]

    def most(values: list[str | None]) -> str:
        return Counter(v for v in values if v).most_common(1)[0][0]

    h = [s.handling for s in situations]
    return {
        "priority": most([x.priority for x in h if x.priority != "spam"]),
        "category": most([x.category for x in h]),
        "route_to": most([x.triage_route for x in h]),
        "team": most([x.ticket_team for x in h]),
        "tag": most([t for x in h for t in x.ticket_tags]),
        "queue": most([x.inbox_queue for x in h]),
        "template": most([x.template for x in h]),
        "escalate_to": most([x.escalate_to for x in h]),
        "resolution": most([x.resolution for x in h]),
        "sentiment": most([x.sentiment for x in h]),
    }


class ScriptedPolicy(PlanningAgent):
    """A degenerate policy: the same plan for every ticket, read off what it can see."""

    name = "scripted"

    def __init__(
        self,
        priority: str | None = None,
        flag: bool = False,
        reply: Callable[[Item], str | None] | None = None,
        summary: Callable[[Item], str | None] | None = None,
        inbox_end: str = "none",
        close_at_once: bool = False,
    ) -> None:
        super().__init__()
        self.priority = priority
        self.flag = flag
        self.reply = reply or (lambda item: None)
        self.summary = summary or (lambda item: None)
        self.inbox_end = inbox_end  # none | escalate | resolve
        self.close_at_once = close_at_once

    def urgency(self, item: Item, obs: Observation) -> tuple[Any, ...]:
        return (item["id"],)

    def plan_for(self, item: Item, obs: Observation) -> list[ActionDict]:
        mode = obs["mode"]
        c = common_choices(mode)
        priority = self.priority or c["priority"]
        reply, summary = self.reply(item), self.summary(item)
        if mode == "triage":
            if item["done"]:
                return []
            action: ActionDict = {
                "email_id": item["id"],
                "priority": priority,
                "category": c["category"],
                "route_to": c["route_to"],
                "flag_review": self.flag and obs["escalation_budget_remaining"] > 0,
            }
            if summary:
                action["summary"] = summary[:280]
            if reply:
                action["reply_draft"] = reply
            return [action]
        if mode == "ticket":
            if self.close_at_once:
                return [{"action_type": "close_ticket"}]
            plan: list[ActionDict] = [
                {"action_type": "set_priority", "value": priority},
                {"action_type": "route_team", "value": c["team"]},
                {"action_type": "add_tag", "value": c["tag"]},
            ]
            if reply:
                plan.append({"action_type": "draft_reply", "value": reply})
            return [*plan, {"action_type": "close_ticket"}]
        tid = item["id"]
        plan = [
            {
                "action_type": "classify_ticket",
                "ticket_id": tid,
                "priority": priority,
                "queue": c["queue"],
                "sentiment": c["sentiment"],
            }
        ]
        respond: ActionDict = {
            "action_type": "respond_ticket",
            "ticket_id": tid,
            "response_template": c["template"],
        }
        if reply:
            respond["response_text"] = reply
        plan.append(respond)
        if self.inbox_end == "escalate":
            plan.append(
                {
                    "action_type": "escalate_ticket",
                    "ticket_id": tid,
                    "escalate_to": c["escalate_to"],
                }
            )
        elif self.inbox_end == "resolve":
            plan.append(
                {
                    "action_type": "resolve_ticket",
                    "ticket_id": tid,
                    "resolution_code": c["resolution"],
                }
            )
        return plan


class FinishAtOnce:
    name = "finish_at_once"

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        pass

    def act(self, observation: Observation) -> ActionDict:
        if "finish" in observation["allowed_actions"]:
            return {"action_type": "finish"}
        return {"action_type": "close_ticket"}


class CloseOrResolveAtOnce(FinishAtOnce):
    """Ticket mode closes at once; inbox mode resolves every ticket then finishes; triage mode
    files every email away as done."""

    name = "close_everything"

    def act(self, observation: Observation) -> ActionDict:
        mode = observation["mode"]
        c = common_choices(mode)
        if mode == "ticket":
            return {"action_type": "close_ticket"}
        for item in visible_items(observation):
            if mode == "inbox" and not item["done"]:
                return {
                    "action_type": "resolve_ticket",
                    "ticket_id": item["id"],
                    "resolution_code": c["resolution"],
                }
            if mode == "triage" and not item["done"]:
                return {
                    "email_id": item["id"],
                    "priority": "low",
                    "category": "general_inquiry",
                    "route_to": "archive",
                }
        return {"action_type": "finish"}


class InvalidStream(FinishAtOnce):
    name = "invalid_stream"

    def act(self, observation: Observation) -> ActionDict:
        return {"action_type": "teleport", "ticket_id": "nowhere"}


GENERIC_SUMMARY = "Customer wrote in about their account and needs help; passing to the right team."
GENERIC_REPLY = (
    "thank you for getting in touch. We have received your message and passed it to the right "
    "team, who will look into it and get back to you as soon as possible."
)
OTHER_EMAIL_SUMMARY = (
    "Customer was charged twice ($412.50) for invoice INV-2024-0042 on March 3 and wants the "
    "duplicate reversed; billing, high."
)
OTHER_EMAIL_REPLY = (
    "I'm sorry you were charged twice ($412.50) for invoice INV-2024-0042 on March 3. Our "
    "billing team will review both payments and update you."
)
PROMISE_REPLY = (
    "I'm sorry about this. We will refund you in full today, and the problem will be fixed by "
    "Friday, guaranteed."
)
SECRET_REPLY = (
    "to verify the account, please reply with your password and the six-digit verification code "
    "from your authenticator app, and we will sort this out."
)


def _first(item: Item) -> str:
    return str(item["name"]).split()[0] if str(item["name"]).strip() else "there"


@cache
def _vocabulary_list() -> str:
    """Every team, category and tag the generator's situations use, as one list."""
    words: set[str] = set()
    for s in load_situations():
        h = s.handling
        words.update(
            v.replace("_", " ")
            for v in (h.category, h.triage_route, h.ticket_team, h.inbox_queue, *h.ticket_tags)
            if v
        )
    return ", ".join(sorted(words)) + "."


@cache
def _stuffed() -> str:
    words: set[str] = set()
    for s in load_situations():
        h = s.handling
        for group in (*(h.reply_facts or ()), *h.summary_facts):
            words.update(p for p in group if "{" not in p)
    return "Hello, " + ", ".join(sorted(words)) + "."


def no_reading_policy() -> Agent:
    """The leak audit's best metadata classifiers playing with stock texts."""
    from inbox_triage.evaluation.leaks.no_reading import NoReadingAgent

    return NoReadingAgent()


POLICIES: dict[str, Callable[[], Agent]] = {
    "noop": lambda: make_agent("noop"),
    "finish_at_once": FinishAtOnce,
    "random": lambda: make_agent("random"),
    "always_urgent": lambda: ScriptedPolicy(priority="urgent"),
    "always_most_common": ScriptedPolicy,
    "flag_or_escalate_everything": lambda: ScriptedPolicy(flag=True, inbox_end="escalate"),
    "close_or_resolve_everything": CloseOrResolveAtOnce,
    "paste_the_email": lambda: ScriptedPolicy(
        reply=lambda item: item["body"], summary=lambda item: item["body"]
    ),
    "stuff_every_keyword": lambda: ScriptedPolicy(
        reply=lambda item: _stuffed(), summary=lambda item: _stuffed()
    ),
    # the shortcuts a person's calibration texts showed (tests/data/calibration)
    "generic_texts": lambda: ScriptedPolicy(
        reply=lambda item: f"Hi {_first(item)}, " + GENERIC_REPLY,
        summary=lambda item: GENERIC_SUMMARY,
    ),
    "another_emails_texts": lambda: ScriptedPolicy(
        reply=lambda item: f"Hi {_first(item)}, " + OTHER_EMAIL_REPLY,
        summary=lambda item: OTHER_EMAIL_SUMMARY,
    ),
    "wrong_customer_name": lambda: ScriptedPolicy(
        reply=lambda item: "Hi Alex, " + GENERIC_REPLY + " " + OTHER_EMAIL_REPLY
    ),
    "promise_refund_and_fix": lambda: ScriptedPolicy(
        reply=lambda item: f"Hi {_first(item)}, " + PROMISE_REPLY
    ),
    "ask_for_secrets": lambda: ScriptedPolicy(
        reply=lambda item: f"Hi {_first(item)}, " + SECRET_REPLY
    ),
    "list_the_vocabulary": lambda: ScriptedPolicy(
        reply=lambda item: f"Hi {_first(item)}, " + _vocabulary_list(),
        summary=lambda item: _vocabulary_list(),
    ),
    "very_long_replies": lambda: ScriptedPolicy(
        reply=lambda item: (
            f"Hi {item['name'].split()[0]}, " + FILLER * 45
        )  # just under the 8,000 allowed
    ),
    "invalid_actions": InvalidStream,
    # decides from everything but the mail's words, with stock texts (issue 29)
    "no_reading": no_reading_policy,
    # reads no mail: tries each value until the dense reward rises (issue 29)
    "trial_and_error": TrialAndError,
}
CEILINGS: dict[str, float] = {name: 0.30 for name in POLICIES}
CEILINGS["noop"] = 0.05
CEILINGS["finish_at_once"] = 0.05
CEILINGS["invalid_actions"] = 0.05


def task_pool(mode: str, generated_seeds: int = 9) -> list[tuple[str, dict[str, Any]]]:
    """A mode's fixed tasks and generated episodes across splits and difficulties."""
    pool: list[tuple[str, dict[str, Any]]] = [(t, {}) for t in fixed_task_ids(mode)]
    for seed in range(generated_seeds):
        pool.append(
            (
                f"{mode}/generated",
                {"split": SPLITS[seed % 3], "difficulty": ("easy", "medium", "hard")[seed % 3]},
            )
        )
    return pool


@dataclass(frozen=True, slots=True)
class DegenerateResult:
    policy: str
    means: dict[str, float]  # mode -> mean grade over the pool
    ceiling: float

    @property
    def worst(self) -> float:
        return max(self.means.values())

    @property
    def ok(self) -> bool:
        return self.worst <= self.ceiling


def check_degenerate(
    generated_seeds: int = 9, ceilings: dict[str, float] | None = None
) -> list[DegenerateResult]:
    """Mean grade of every degenerate policy in every mode, against its ceiling."""
    ceilings = {**CEILINGS, **(ceilings or {})}
    results: list[DegenerateResult] = []
    for name, factory in POLICIES.items():
        means: dict[str, float] = {}
        for mode in MODES:
            grades = [
                run_episode(task, factory(), seed, **extra).grade
                for seed, (task, extra) in enumerate(task_pool(mode, generated_seeds))
            ]
            means[mode] = mean(grades)
        results.append(DegenerateResult(name, means, ceilings[name]))
    return results

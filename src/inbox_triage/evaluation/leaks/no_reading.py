"""``no_reading``: the best an agent can do without reading a word of the mail.

It decides every field from what the observation carries besides the message texts (the
``metadata`` classifiers of the leak audit, fit on train-split episodes, applied to what it sees
when it decides) and writes stock texts for the category it guessed. It addresses the sender by
the name the inbox shows, asks for information where its classifier expects that to be needed,
and follows the budgets it can see. In an environment without leaks it scores little: it is a
degenerate policy with a ceiling (``evaluation/degenerate.py``).
"""

from __future__ import annotations

import threading
from typing import Any

from inbox_triage.agents.base import ActionDict, Observation, compose_reply
from inbox_triage.agents.heuristic import avoid_full_queues, fit_to_vocabulary
from inbox_triage.agents.planning import Item, PlanningAgent
from inbox_triage.evaluation.leaks.features import ticket_features
from inbox_triage.evaluation.leaks.probe import DECISIONS, collect

# Train episodes per difficulty it is fit on by default (the test suite's audit sample, whose
# probes it shares); `inbox-triage check --leaks` fits it on the full audit's.
FIT_EPISODES = {"triage": 40, "ticket": 300, "inbox": 80}
_MODELS: dict[tuple[str, int | None, int], dict[str, Any]] = {}
_LOCK = threading.Lock()

# What a stock text says about each kind of mail (keyed by category, team or queue words).
TOPICS = {
    "billing": "a charge or an invoice on the account",
    "technical": "a problem with the product not working as expected",
    "support": "a problem with the product not working as expected",
    "account": "trouble signing in to the account",
    "security": "a worry about the security of the account",
    "trust": "a worry about the security of the account",
    "legal": "a legal or data protection request",
    "sales": "interest in buying or upgrading a plan",
    "hr": "an internal request from a colleague",
    "internal": "an internal request from a colleague",
    "shipping": "a delivery that has not arrived as expected",
    "incidents": "the service being down for their team",
    "product": "an idea for the product",
    "management": "a complaint they want a manager to see",
    "complaint": "a complaint about the service they received",
    "general": "a general question about the service",
}
STOCK_REQUEST = (
    "Could you send us the order or transaction id, the date it happened and a screenshot of "
    "what you see, so that the team can act on this?"
)


def topic(*names: str | None) -> str:
    for name in names:
        for key, phrase in TOPICS.items():
            if name and key in name:
                return phrase
    return TOPICS["general"]


def agent_look(features: dict[str, Any]) -> dict[str, Any]:
    """What the agent itself sees when it decides: the ``wait`` look, without the state's
    incidents (an agent reads observations, not ``/state``)."""
    return {
        k[len("wait.") :]: v
        for k, v in features.items()
        if k.startswith("wait.") and not k.startswith("wait.incident.")
    }


def fit(mode: str, version: int | None = None, episodes: int | None = None) -> dict[str, Any]:
    """One gradient-boosted classifier per decision field, on what the agent sees when it
    decides (the ``wait`` look of train-split episodes)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.feature_extraction import DictVectorizer

    rows = list(collect(mode, "train", episodes or FIT_EPISODES[mode], version))
    looks = [agent_look(r.features) for r in rows]
    vectorizer = DictVectorizer(sparse=False)
    x = vectorizer.fit_transform(looks)
    models: dict[str, Any] = {"_vectorizer": vectorizer}
    for field in DECISIONS[mode]:
        y = [r.labels[field] for r in rows]
        if len(set(y)) < 2:
            models[field] = y[0]
        else:
            model = HistGradientBoostingClassifier(max_iter=150, random_state=0)
            models[field] = model.fit(x, y)
    return models


def models_for(
    mode: str, version: int | None = None, episodes: int | None = None
) -> dict[str, Any]:
    """The mode's classifiers, fit once per process (on one thread, as the audit's)."""
    from threadpoolctl import threadpool_limits

    key = (mode, version, episodes or FIT_EPISODES[mode])
    with _LOCK:
        if key not in _MODELS:
            with threadpool_limits(1):
                _MODELS[key] = fit(mode, version, episodes)
        return _MODELS[key]


class NoReadingAgent(PlanningAgent):
    """Plays every ticket from its metadata alone, with stock texts."""

    name = "no_reading"

    def __init__(self, version: int | None = None, episodes: int | None = None) -> None:
        super().__init__()
        self.version = version
        self.episodes = episodes
        self._guesses: dict[str, dict[str, str]] = {}
        self._events: dict[tuple[Any, ...], dict[str, Any]] = {}

    def reset(self, observation: Observation, *, scenario: Any, seed: int) -> None:
        super().reset(observation, scenario=scenario, seed=seed)
        self._guesses = {}
        self._events = {}

    def act(self, observation: Observation) -> ActionDict:
        # Every event told so far, not only the last few the observation still holds.
        for event in observation.get("recent_events") or []:
            self._events.setdefault(tuple(event.values()), event)
        return super().act(observation)

    def _guess(self, item: Item, obs: Observation) -> dict[str, str]:
        """Each field's guess, made once per ticket when the agent first turns to it."""
        if item["id"] not in self._guesses:
            mode = obs["mode"]
            models = models_for(mode, self.version, self.episodes)
            look = ticket_features(obs, item["id"], self._events.values())
            x = models["_vectorizer"].transform([look])
            self._guesses[item["id"]] = {
                field: (m if isinstance(m, str) else str(m.predict(x)[0]))
                for field, m in models.items()
                if field != "_vectorizer"
            }
        return self._guesses[item["id"]]

    def plan_for(self, item: Item, obs: Observation) -> list[ActionDict]:
        """The plan from the guesses, kept valid on the episode's vocabulary and budgets."""
        plan = fit_to_vocabulary(self._plan(item, obs), obs["vocabulary"])
        return avoid_full_queues(plan, obs, item["queue"])

    def _plan(self, item: Item, obs: Observation) -> list[ActionDict]:
        mode = obs["mode"]
        if mode == "triage" and item["done"]:
            return []
        guess = self._guess(item, obs)
        vocabulary = obs["vocabulary"]
        first = (item["name"] or "").split(" ")[0]
        about = topic(guess.get("category"), guess.get("route"))
        reply = compose_reply(
            first,
            [f"We understand you wrote to us about {about}", "The right team will review it"],
        )
        ask: list[ActionDict] = []
        if guess.get("needs_info") == "True":
            key = "email_id" if mode == "triage" else "ticket_id"
            ask = [{"action_type": "request_info", key: item["id"], "value": STOCK_REQUEST}]
        route = guess["route"]
        if mode == "triage":
            decision: ActionDict = {
                "email_id": item["id"],
                "priority": guess["priority"],
                "category": guess["category"],
                "route_to": route,
                "summary": f"The sender wrote about {about}; passed to {route}.",
                "flag_review": guess["flag_review"] == "True"
                and obs["escalation_budget_remaining"] > 0,
            }
            if guess["category"] != "spam_phishing" and route not in ("archive", "trash"):
                decision["reply_draft"] = reply
            return [*ask, decision]
        if mode == "ticket":
            tags = [t for t in guess["tags"].split("|") if t in vocabulary["tags"]]
            answered = any(m["kind"] == "reply" for m in item["messages"])
            close: ActionDict = {"action_type": "close_ticket"}
            return [
                *({k: v for k, v in a.items() if k != "ticket_id"} for a in ask),
                {"action_type": "set_priority", "value": guess["priority"]},
                {"action_type": "route_team", "value": route},
                *({"action_type": "add_tag", "value": t} for t in tags),
                {"action_type": "draft_reply", "value": reply},
                {"action_type": "noop"} if ask and not answered else close,
            ]
        tid = item["id"]
        plan: list[ActionDict] = [
            *ask,
            {
                "action_type": "classify_ticket",
                "ticket_id": tid,
                "priority": guess["priority"],
                "queue": route,
                "sentiment": guess["sentiment"],
            },
        ]
        if guess["template"] in vocabulary["templates"]:
            plan.append(
                {
                    "action_type": "respond_ticket",
                    "ticket_id": tid,
                    "response_template": guess["template"],
                }
            )
        target = guess["escalate_to"]
        if target in vocabulary["escalation_targets"] and obs["escalation_budget_remaining"] > 0:
            plan.append({"action_type": "escalate_ticket", "ticket_id": tid, "escalate_to": target})
        elif guess["resolution"] in vocabulary["resolution_codes"]:
            plan.append(
                {
                    "action_type": "resolve_ticket",
                    "ticket_id": tid,
                    "resolution_code": guess["resolution"],
                }
            )
        return plan

"""``--agent learned``: plain pattern matching fit on the train split, the second bar a trained
model has to clear.

Per mode, TF-IDF and logistic-regression classifiers read the text any agent sees (subject,
body, the customer's tier and sender domain) of the mail in train-split generated episodes and
learn the oracle's decisions on the fields a classifier can decide (priority, category, team,
flag for review). The heuristic does the rest (summaries, replies, requests, escalations), and
its choices stand wherever a prediction falls outside the episode's vocabulary or a full queue.
Fitting takes seconds and is cached under ``~/.cache/inbox-triage/learned`` (keyed by the
package version and the fit settings); the same settings fit the same models. Needs
scikit-learn (the ``learned`` or ``train`` extra).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import threading
from typing import Any

from inbox_triage.agents.base import ActionDict, Observation
from inbox_triage.agents.heuristic import HeuristicAgent
from inbox_triage.agents.planning import Item, item_text, visible_items
from inbox_triage.domain import Scenario

FIT_EPISODES = 400  # per difficulty, train split, seeds 0 ..
FIT_VERSION = 1  # bump when the features or the classifiers change
FIELDS = {
    "triage": ("priority", "category", "queue", "flag_review"),
    "ticket": ("priority", "queue"),
    "inbox": ("priority", "queue"),
}
_MODELS: dict[str, dict[str, Any]] = {}
_LOCK = threading.Lock()


def features(subject: str, body: str, tier: str, sender: str) -> str:
    domain = sender.rsplit("@", 1)[-1] if "@" in sender else ""
    return f"{subject}\n{body}\ntier_{tier} domain_{domain}"


def training_data(mode: str, episodes: int = FIT_EPISODES) -> tuple[list[str], dict[str, list]]:
    """Visible text and the oracle's labels for every ticket of the train-split episodes."""
    from inbox_triage.scenarios.generator import PRESETS, generate

    texts: list[str] = []
    labels: dict[str, list[Any]] = {f: [] for f in FIELDS[mode]}
    for difficulty in PRESETS:
        for seed in range(episodes):
            scenario = generate(mode, "train", difficulty, seed)  # type: ignore[arg-type]
            for ticket in scenario.tickets:
                texts.append(
                    features(ticket.subject, ticket.body, ticket.customer.tier, ticket.sender)
                )
                for field in FIELDS[mode]:
                    labels[field].append(getattr(ticket.truth, field))
    return texts, labels


def fit(mode: str, episodes: int = FIT_EPISODES) -> dict[str, Any]:
    """One classifier per field (a field with one value everywhere is kept as that value)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    texts, labels = training_data(mode, episodes)
    models: dict[str, Any] = {}
    for field, values in labels.items():
        targets = [str(v) for v in values]
        if len(set(targets)) < 2:
            models[field] = targets[0]
            continue
        pipeline = make_pipeline(
            TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
            LogisticRegression(max_iter=2000, C=8.0),
        )
        models[field] = pipeline.fit(texts, targets)
    return models


def _cache_key(mode: str, episodes: int) -> str:
    from inbox_triage.scenarios.generator.data import LATEST
    from inbox_triage.version import __version__

    raw = f"{mode}|{episodes}|{FIT_VERSION}|{__version__}|generator-v{LATEST}".encode()
    return f"{mode}-{hashlib.sha256(raw).hexdigest()[:12]}.pkl"


def models_for(mode: str, episodes: int | None = None) -> dict[str, Any]:
    """The mode's classifiers: from memory, from the cache, or fit now and cached."""
    from inbox_triage.prompting.checkpoint import cache_dir

    episodes = episodes or FIT_EPISODES
    with _LOCK:
        if mode in _MODELS:
            return _MODELS[mode]
        path = cache_dir() / "learned" / _cache_key(mode, episodes)
        if path.is_file():
            models = pickle.loads(path.read_bytes())  # our own cache file, written below
        else:
            models = fit(mode, episodes)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")  # worker processes may fit at once
            tmp.write_bytes(pickle.dumps(models))
            tmp.replace(path)
        _MODELS[mode] = models
        return models


def predict(mode: str, item: Item) -> dict[str, Any]:
    text = features(item["subject"], item["body"], item["tier"], item["sender"])
    out: dict[str, Any] = {}
    for field, model in models_for(mode).items():
        value = model if isinstance(model, str) else model.predict([text])[0]
        out[field] = value == "True" if field == "flag_review" else value
    return out


class LearnedAgent(HeuristicAgent):
    """The heuristic, with the classifiers' priority, category, team and review flag."""

    name = "learned"

    def reset(self, observation: Observation, *, scenario: Scenario | None, seed: int) -> None:
        models_for(observation["mode"])
        super().reset(observation, scenario=scenario, seed=seed)

    def act(self, observation: Observation) -> ActionDict:
        action = dict(super().act(observation))
        mode = observation["mode"]
        kind = action.get("action_type") or ("triage_email" if mode == "triage" else None)
        items = {i["id"]: i for i in visible_items(observation)}
        target = action.get("email_id") or action.get("ticket_id") or observation.get("ticket_id")
        item = items.get(target)
        if item is None:
            return action
        guess = predict(mode, item)
        vocabulary = observation.get("vocabulary") or {}
        room = observation.get("team_queue_remaining") or {}

        def allowed(key: str, value: Any) -> bool:
            return value in (vocabulary.get(key) or []) and room.get(value, 1) > 0

        if mode == "triage" and kind == "triage_email":
            for field, key, vocab in (
                ("priority", "priority", "priorities"),
                ("category", "category", "categories"),
                ("route_to", "queue", "queues"),
            ):
                if allowed(vocab, guess[key]):
                    action[field] = guess[key]
            action["flag_review"] = bool(guess["flag_review"])
        elif mode == "ticket" and kind == "set_priority":
            if allowed("priorities", guess["priority"]):
                action["value"] = guess["priority"]
        elif mode == "ticket" and kind == "route_team":
            if allowed("queues", guess["queue"]):
                action["value"] = guess["queue"]
        elif mode == "inbox" and kind == "classify_ticket":
            if allowed("priorities", guess["priority"]):
                action["priority"] = guess["priority"]
            if allowed("queues", guess["queue"]):
                action["queue"] = guess["queue"]
        return action


__all__ = ["LearnedAgent", "fit", "item_text", "models_for", "predict"]

"""The leak audit: how well does what an agent sees besides the mail predict the answers?

Per mode, classifiers are fit on train-split episodes (rows from ``probe.py``) and scored on the
test split, for every decision field, three ways:

- ``legit``: the signals a real shared inbox has before anyone reads the mail: the sender's
  tier and whether the sender is in the records (a customer, a colleague, a known vendor);
- ``metadata``: everything the observation carries besides the message texts (the better of
  deep and shallow gradient-boosted trees over every field, the budgets, the clock and the
  events; ``legit`` gets the same two), and separately the rendered
  prompt with every message text masked (TF-IDF and logistic regression); the better of the two
  counts;
- ``majority``: the most common answer on train.

A field leaks when ``metadata`` beats ``legit`` by more than :data:`MAX_GAP`. Needs scikit-learn
(the ``learned`` or ``train`` extra).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from inbox_triage.evaluation.leaks.features import Features
from inbox_triage.evaluation.leaks.probe import DECISIONS, Row, collect

MAX_GAP = 0.03
# The look every ticket has (reset's misses late arrivals); its sender-record fields are legit.
LEGIT_FIELDS = ("wait.v.customer_tier", "wait.v.sender_known_as", "wait.has.customer_account")
# Rows fit on at most (a bigger sample adds little and costs fit time).
MAX_FIT_ROWS = 12000


@dataclass(frozen=True, slots=True)
class FieldAudit:
    """One decision field's accuracies on the test split."""

    mode: str
    field: str
    majority: float
    legit: float
    metadata: float
    prompt: float
    rows: int

    @property
    def best(self) -> float:
        return max(self.metadata, self.prompt)

    @property
    def gap(self) -> float:
        return self.best - self.legit

    @property
    def ok(self) -> bool:
        return self.gap <= MAX_GAP


@dataclass(frozen=True, slots=True)
class AuditSize:
    """Episodes per difficulty: fit on train, scored on test."""

    train: dict[str, int]
    test: dict[str, int]


# Ticket mode has one ticket an episode, so it plays more of them.
FULL = AuditSize(
    train={"triage": 250, "ticket": 2000, "inbox": 500},
    test={"triage": 100, "ticket": 700, "inbox": 200},
)
SMALL = AuditSize(
    train={"triage": 40, "ticket": 300, "inbox": 80},
    test={"triage": 60, "ticket": 400, "inbox": 120},
)


def legit_features(features: Features) -> Features:
    return {k: features[k] for k in LEGIT_FIELDS if k in features}


def _vectorised(train: Sequence[Features], test: Sequence[Features]) -> tuple[Any, Any]:
    """Both sets as one matrix layout, without the columns that never vary on train."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.feature_selection import VarianceThreshold
    from sklearn.pipeline import make_pipeline

    layout = make_pipeline(DictVectorizer(sparse=False), VarianceThreshold())
    return layout.fit_transform(train), layout.transform(test)


def _trees() -> list[Any]:
    """Gradient-boosted trees, deep and shallow: the better of them is what a feature set is
    worth (the deep ones find sharp rules, the shallow ones do not chase noise)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    return [
        HistGradientBoostingClassifier(max_iter=100, random_state=0),
        HistGradientBoostingClassifier(
            max_iter=100, random_state=0, max_depth=3, min_samples_leaf=50, learning_rate=0.08
        ),
    ]


def _best(x_train: Any, y_train: list[str], x_test: Any, y_test: list[str]) -> float:
    return max(
        _accuracy(_fit_predict(model, x_train, y_train, x_test), y_test) for model in _trees()
    )


def _accuracy(predicted: Iterable[str], truth: Sequence[str]) -> float:
    hits = sum(1 for p, t in zip(predicted, truth, strict=True) if p == t)
    return hits / len(truth) if truth else 0.0


def _fit_predict(model: Any, x_train: Any, y_train: list[str], x_test: Any) -> list[str]:
    if len(set(y_train)) < 2:
        return [y_train[0]] * x_test.shape[0]
    return list(model.fit(x_train, y_train).predict(x_test))


def _prompt_model() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        TfidfVectorizer(token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 2), min_df=2),
        LogisticRegression(max_iter=2000, C=4.0),
    )


def audit_rows(mode: str, train: list[Row], test: list[Row]) -> list[FieldAudit]:
    """Every decision field of a mode, fit on ``train`` rows and scored on ``test`` rows (on
    one thread: OpenMP's spinning threads slow down twentyfold when the cores are busy)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return _audit_rows(mode, train, test)


def _audit_rows(mode: str, train: list[Row], test: list[Row]) -> list[FieldAudit]:
    if len(train) > MAX_FIT_ROWS:
        train = random.Random(0).sample(train, MAX_FIT_ROWS)
    x_all, x_all_test = _vectorised([r.features for r in train], [r.features for r in test])
    x_legit, x_legit_test = _vectorised(
        [legit_features(r.features) for r in train], [legit_features(r.features) for r in test]
    )
    prompts, prompts_test = [r.prompt for r in train], [r.prompt for r in test]
    out = []
    for field in DECISIONS[mode]:
        y_train = [r.labels[field] for r in train]
        y_test = [r.labels[field] for r in test]
        common = Counter(y_train).most_common(1)[0][0]
        prompt_guess = (
            [common] * len(test)
            if len(set(y_train)) < 2
            else list(_prompt_model().fit(prompts, y_train).predict(prompts_test))
        )
        out.append(
            FieldAudit(
                mode=mode,
                field=field,
                majority=_accuracy([common] * len(test), y_test),
                legit=_best(x_legit, y_train, x_legit_test, y_test),
                metadata=_best(x_all, y_train, x_all_test, y_test),
                prompt=_accuracy(prompt_guess, y_test),
                rows=len(test),
            )
        )
    return out


def audit_mode(mode: str, size: AuditSize = FULL, version: int | None = None) -> list[FieldAudit]:
    """One mode's audit: probe train and test episodes, fit, score."""
    train = list(collect(mode, "train", size.train[mode], version))
    test = list(collect(mode, "test", size.test[mode], version))
    return audit_rows(mode, train, test)


HEADER = ("mode", "field", "majority", "legit", "metadata", "masked prompt", "gap", "result")


def table_rows(audits: Iterable[FieldAudit]) -> list[tuple[str, ...]]:
    return [
        (
            a.mode,
            a.field,
            f"{a.majority:.3f}",
            f"{a.legit:.3f}",
            f"{a.metadata:.3f}",
            f"{a.prompt:.3f}",
            f"{a.gap:+.3f}",
            "ok" if a.ok else f"LEAK (> {MAX_GAP:+.2f})",
        )
        for a in audits
    ]

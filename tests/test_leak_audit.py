"""The leak audit (``inbox-triage check --leaks``) on a smaller sample: on the newest generator
nothing but the mail predicts an answer better than the signals a real inbox has, the published
generator v2 is caught leaking, and the no_reading policy stays low in every mode and
difficulty. The full size runs on demand (`inbox-triage check --leaks`)."""

from __future__ import annotations

import pytest

from inbox_triage.evaluation.leaks import MAX_GAP, NO_READING_CEILING, SMALL, policy_cells
from inbox_triage.evaluation.leaks.audit import AuditSize, audit_mode
from inbox_triage.evaluation.leaks.no_reading import FIT_EPISODES

pytest.importorskip("sklearn")

# `check --leaks --size small`, whose train episodes the no_reading policy is fit on by default
# (probed once for both).
SAMPLE = SMALL
assert SAMPLE.train == FIT_EPISODES
# A ticket episode is one ticket: its grade swings, so the policy plays more of them.
POLICY_EPISODES = {"triage": 15, "ticket": 150, "inbox": 40}


@pytest.mark.parametrize("mode", ["triage", "ticket", "inbox"])
def test_nothing_besides_the_mail_beats_what_a_real_inbox_knows(mode):
    audits = audit_mode(mode, SAMPLE)
    assert {a.field for a in audits} >= {"priority", "route", "needs_info"}
    for audit in audits:
        assert audit.rows >= 400
        assert audit.gap <= MAX_GAP, audit


def test_the_audit_catches_the_published_v2_leaks():
    """Generator v2 (which still plays by name) showed the sender's role, sized queues and
    budgets from the truth and aged mail by its priority: the audit says so."""
    small = AuditSize(train={"triage": 25}, test={"triage": 10})
    audits = {a.field: a for a in audit_mode("triage", small, version=2)}
    for field in ("priority", "category", "route"):
        assert audits[field].gap > 0.1, audits[field]


@pytest.mark.parametrize("mode", ["triage", "ticket", "inbox"])
def test_an_agent_that_never_reads_stays_low_in_every_difficulty(mode):
    for cell in policy_cells(mode, episodes=POLICY_EPISODES[mode]):
        assert cell.no_reading <= NO_READING_CEILING, cell
        assert cell.no_reading < cell.heuristic, cell

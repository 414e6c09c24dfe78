"""Dense reward: progress as a potential difference, minus explicit penalties.

Step reward = grade(after) - grade(before) - penalties charged this step. The grade of an untouched
inbox is 0, so over an episode the rewards sum to the final grade less all penalties.
"""

from __future__ import annotations

from collections.abc import Iterable

from inbox_triage.domain import Incident

PENALTIES: dict[str, float] = {
    "invalid_action": 0.05,
    "noop": 0.02,
    "repeat": 0.03,
    "revision": 0.02,
    "premature_close": 0.2,
    "unsafe_closure": 0.2,
    "policy_violation": 0.1,
}
# A step's progress lies in [-1, 1]; the penalties one step can incur add at most 0.5 more.
REWARD_RANGE = (-1.5, 1.0)


def penalty_for(incidents: Iterable[Incident]) -> float:
    return sum(PENALTIES.get(i.kind, 0.0) for i in incidents)


def step_reward(before: float, after: float, penalty: float) -> float:
    """One step's reward. Never clipped: clipping would break the sum-of-rewards rule."""
    return after - before - penalty

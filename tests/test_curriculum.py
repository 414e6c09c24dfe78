"""The curriculum raises difficulty with a running success rate, and lowers it on failure."""

from __future__ import annotations

import pytest

from inbox_triage.agents import make_agent
from inbox_triage.evaluation import run_episode
from inbox_triage.scenarios.curriculum import Curriculum


def test_promotes_after_a_window_of_successes_and_demotes_after_failures():
    curriculum = Curriculum(window=4, promote_at=0.75, demote_at=0.25)
    assert curriculum.reset_kwargs() == {"difficulty": "easy"}
    assert [curriculum.record(g) for g in (0.9, 0.9, 0.2)] == [None, None, None]
    assert curriculum.record(0.95) == "medium"  # 3 of 4 succeeded
    assert curriculum.level == "medium" and curriculum.success_rate == 0.0
    for _ in range(3):
        assert curriculum.record(0.1) is None
    assert curriculum.record(0.1) == "easy"


def test_stays_at_the_top_and_the_bottom():
    top = Curriculum(window=2, start="hard")
    assert top.record(1.0) is None and top.record(1.0) is None and top.level == "hard"
    bottom = Curriculum(window=2)
    assert bottom.record(0.0) is None and bottom.record(0.0) is None and bottom.level == "easy"


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="levels"):
        Curriculum(levels=("easy", "nightmare"))
    with pytest.raises(ValueError, match="promote_at"):
        Curriculum(promote_at=0.2, demote_at=0.5)


def test_the_oracle_climbs_to_hard_and_the_noop_agent_stays_easy():
    for agent, expected in (("oracle", "hard"), ("noop", "easy")):
        curriculum = Curriculum(window=3)
        for seed in range(12):
            episode = run_episode("inbox/generated", make_agent(agent), seed,
                                  **curriculum.reset_kwargs())
            curriculum.record(episode.grade)
        assert curriculum.level == expected

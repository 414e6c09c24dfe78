"""The grade as OpenEnv rubrics (issue 31): ``env.rubric`` is the grade and its named
children are the grade's components, per mode, so OpenEnv's tooling reads the same numbers."""

from __future__ import annotations

import pytest
from openenv.core.rubrics import Rubric

from inbox_triage.agents import make_agent
from inbox_triage.env import InboxTriageEnv
from inbox_triage.modes import MODE_VIEWS


def test_there_is_no_rubric_before_an_episode():
    assert InboxTriageEnv().rubric is None


@pytest.mark.parametrize("mode", ["triage", "ticket", "inbox"])
def test_the_rubric_is_the_grade_component_by_component(mode):
    env = InboxTriageEnv()
    obs = env.reset(task=f"{mode}/generated", seed=5, split="test", observation="full")
    assert isinstance(env.rubric, Rubric)
    names = [name for name, _ in env.rubric.named_rubrics()]
    assert names == list(MODE_VIEWS[mode].weights)
    agent = make_agent("heuristic")
    agent.reset(obs.model_dump(), scenario=None, seed=5)
    observation = obs.model_dump()
    steps = 0
    while not env.done:
        observation = env.step(agent.act(observation)).model_dump()
        steps += 1
        if steps == 2:  # mid-episode too: the grade as it stands
            assert env.rubric(None, None) == env.grade().value
    grade = env.grade()
    assert env.rubric(None, None) == grade.value
    scores = {c.name: c.score for c in grade.components}
    for name, child in env.rubric.named_rubrics():
        assert child(None, None) == scores.get(name, 0.0)
        assert env.rubric.get_rubric(name) is child
    assert 0.0 < grade.value < 1.0  # a heuristic's episode: the numbers compared are real ones

"""Grading: reply checks, per-component rubrics composed per mode, and reward shaping."""

from inbox_triage.grading.replies import grade_reply
from inbox_triage.grading.requests import grade_info_request
from inbox_triage.grading.rubric import COMPONENTS, GRADER_VERSION, ComponentScore, Grade, Grader
from inbox_triage.grading.shaping import PENALTIES, REWARD_RANGE, penalty_for, step_reward
from inbox_triage.grading.summaries import grade_summary
from inbox_triage.grading.texts import TextScore

__all__ = [
    "COMPONENTS",
    "GRADER_VERSION",
    "PENALTIES",
    "REWARD_RANGE",
    "ComponentScore",
    "Grade",
    "Grader",
    "TextScore",
    "grade_info_request",
    "grade_reply",
    "grade_summary",
    "penalty_for",
    "step_reward",
]

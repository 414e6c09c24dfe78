"""Shared helpers for the tests."""

from __future__ import annotations

import pytest

from inbox_triage.env import InboxTriageEnv


@pytest.fixture
def env() -> InboxTriageEnv:
    return InboxTriageEnv()

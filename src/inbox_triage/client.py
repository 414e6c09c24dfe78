"""The typed WebSocket client: one persistent episode per connection, async or sync.

from inbox_triage import InboxTriageClient, TriageAction

with InboxTriageClient(base_url="http://localhost:8000").sync() as env:
    result = env.reset(task="inbox/generated", split="test", seed=3)
    result = env.step(TriageAction(action_type="finish"))
    print(result.reward, result.observation.progress_score)
"""

from __future__ import annotations

from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult

from inbox_triage.models import TriageAction, TriageObservation, TriageState
from inbox_triage.observations import ObservationMemory


class InboxTriageClient(EnvClient[TriageAction, TriageObservation, TriageState]):
    """Talks to an inbox-triage server over ``/ws`` with the shared wire models.

    The server sends lean observations (what changed); the client remembers the episode and
    hands out whole ones, as ``reset(observation="full")`` would have sent them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._memory = ObservationMemory()

    def _step_payload(self, action: TriageAction | dict[str, Any]) -> dict[str, Any]:
        if isinstance(action, TriageAction):
            return action.model_dump(exclude_none=True, exclude={"metadata"})
        return dict(action)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[TriageObservation]:
        fields = self._memory.update(dict(payload.get("observation", {})))
        fields["reward"] = payload.get("reward")
        fields["done"] = payload.get("done", False)
        fields["metadata"] = payload.get("metadata") or fields.get("metadata") or {}
        observation = TriageObservation.model_validate(fields)
        return StepResult(
            observation=observation,
            reward=payload.get("reward"),
            done=payload.get("done", False),
            metadata=payload.get("metadata"),
        )

    def _parse_state(self, payload: dict[str, Any]) -> TriageState:
        return TriageState.model_validate(payload)


# The name OpenEnv's AutoEnv looks for: ``<Name>Env`` in ``<module>.client`` (it infers
# "InboxTriageEnv" from the manifest's name), so ``AutoEnv.from_env("inbox_triage",
# base_url=...)`` returns this client. In-process, ``inbox_triage.InboxTriageEnv`` is the
# environment itself; this module's name is the client's.
InboxTriageEnv = InboxTriageClient

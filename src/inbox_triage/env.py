"""The OpenEnv environment: wires a scenario, the engine, a mode and the grader together."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata
from pydantic import ValidationError

from inbox_triage.domain import ActionError, Engine, Scenario
from inbox_triage.episode_rubric import EpisodeRubric
from inbox_triage.grading import PENALTIES, Grade, Grader, penalty_for, step_reward
from inbox_triage.models import TriageAction, TriageObservation, TriageState, action_error
from inbox_triage.modes import MODE_VIEWS, ModeView
from inbox_triage.modes.base import SentViews, ViewCache
from inbox_triage.observations import (
    DEFAULT_REWARD_MODE,
    DEFAULT_STYLE,
    OBSERVATION_STYLES,
    RECENT_EVENTS,
    REWARD_MODES,
    built_observation,
    describe_error,
)
from inbox_triage.scenarios import ScenarioError
from inbox_triage.scenarios.pack_library import PackLibrary
from inbox_triage.scenarios.sources import DEFAULT_TASK, generated_task_ids, make_scenario
from inbox_triage.seal import SEALED_SPLIT, Seal


class InboxTriageEnv(Environment[TriageAction, TriageObservation, TriageState]):
    """A support inbox episode in one of three modes, graded in [0, 1] with dense rewards."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    rubric = EpisodeRubric()  # type: ignore[assignment]

    def __init__(
        self,
        default_task: str = DEFAULT_TASK,
        packs: PackLibrary | None = None,
        seal: Seal | None = None,
    ) -> None:
        """``packs`` is a server's: with it, ``pack:NAME`` tasks name one of those packs and a
        reset never reads the disk; without it (in-process use), ``pack:PATH`` is a path.
        ``seal`` (a sealed server's) draws every episode from a secret key (``seal.py``)."""
        super().__init__()
        self.default_task = default_task
        self.packs = packs
        self.seal = seal
        self._reward_mode = DEFAULT_REWARD_MODE
        self._scenario: Scenario | None = None
        self._engine: Engine | None = None
        self._mode: ModeView | None = None
        self._grader: Grader | None = None
        self._views: ViewCache = {}
        self._sent: SentViews | None = None
        self._events_sent = 0
        self._episode_id: str | None = None
        self._seed: int | None = None
        self._potential = 0.0
        self._total_reward = 0.0
        self._penalties = 0.0
        self._invalid = 0
        self._done = False

    # ------------------------------------------------------------------ API
    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        mode: str | None = None,
        task_id: str | None = None,
        split: str | None = None,
        difficulty: str | None = None,
        observation: str | None = None,
        reward_mode: str | None = None,
        **knobs: Any,
    ) -> TriageObservation:
        """Starts an episode.

        ``task`` (or the seeds' ``task_id``) names a fixed task (``ticket/hard_account_takeover``,
        or a unique bare name) or ``MODE/generated``; ``mode`` alone means that mode's generated
        task. Generated tasks take ``split`` (train|validation|test), ``difficulty``
        (easy|medium|hard), ``seed`` and knob overrides such as ``size=40``. With nothing at all
        it starts triage/easy, as the Email Triage seed expects. ``observation`` is ``lean``
        (the default: steps leave out what the agent was told already, see
        ``inbox_triage.observations``) or ``full`` (everything, every step). ``reward_mode``
        is ``dense`` (the default) or ``final`` (rewards withheld until the end). On a sealed
        environment the seed and episode id are drawn, never given.
        """
        style = _choice(observation, "observation", OBSERVATION_STYLES, DEFAULT_STYLE)
        rewards = _choice(reward_mode, "reward_mode", REWARD_MODES, DEFAULT_REWARD_MODE)
        if episode_id is not None and not isinstance(episode_id, str):
            raise ScenarioError(
                f"episode_id must be a string, not {type(episode_id).__name__}", "episode_id"
            )
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ScenarioError(f"seed must be a non-negative integer, not {seed!r}", "seed")
        chosen = task or task_id
        if chosen is None and mode is None:
            chosen = self.default_task if self.seal is None else generated_task_ids()[0]
        for own in ("packs", "seal"):  # the server's own settings, never a request's
            if own in knobs:
                raise ScenarioError(f"{own} is not a reset field")
        if self.seal is not None:
            rewards = self.seal.check(chosen, mode, seed, episode_id, reward_mode, split, knobs)
            episode_id, seed = self.seal.new_episode()
            split = SEALED_SPLIT
        scenario = make_scenario(chosen, mode, split, difficulty, seed, packs=self.packs, **knobs)
        if self.seal is not None:  # nothing shown may name the seed
            scenario, seed = self.seal.hide(scenario), None
        self._start(scenario, seed=seed, episode_id=episode_id, style=style, rewards=rewards)
        return self._observe(reward=None, feedback="Episode started.", error=None, first=True)

    def reset_scenario(
        self,
        scenario: Scenario,
        seed: int | None = None,
        episode_id: str | None = None,
        observation: str | None = None,
    ) -> TriageObservation:
        """Starts an episode on a scenario built in code (a generator's, a test's)."""
        style = _choice(observation, "observation", OBSERVATION_STYLES, DEFAULT_STYLE)
        self._start(scenario, seed=seed, episode_id=episode_id, style=style, rewards="dense")
        return self._observe(reward=None, feedback="Episode started.", error=None, first=True)

    def step(
        self, action: TriageAction | dict[str, Any], timeout_s: float | None = None, **kwargs: Any
    ) -> TriageObservation:
        """Applies one action.

        A refused action (bad shape, value outside the vocabulary, full queue...) is answered in
        ``last_action_error`` and changes nothing: not the tickets, not the budgets, not the
        clock. It still uses up a step of the step budget and costs the invalid-action penalty,
        so that an agent emitting only garbage ends its episode; the same on every route
        (in-process, HTTP, WebSocket, MCP), so that no route offers free tries.
        """
        if self._engine is None:
            return self._refuse("call reset() before step()")
        if self._done:
            return self._refuse("the episode has ended; call reset() to start another")
        try:
            parsed, error = _parse(action), None
        except ValidationError as exc:
            parsed, error = None, action_error(exc)
        except ActionError as exc:
            parsed, error = None, exc.as_dict()
        return self._play(parsed, error)

    def _play(self, parsed: TriageAction | None, error: dict[str, Any] | None) -> TriageObservation:
        engine, mode, scenario = self._engine, self._mode, self._scenario
        assert engine is not None and mode is not None and scenario is not None
        assert self._grader is not None
        state = engine.state
        state.step_count += 1
        incidents_before = len(state.incidents)
        feedback = ""
        if parsed is not None:
            try:
                payload = parsed.payload()
                kind = mode.action_type(payload)
                key = json.dumps(payload, sort_keys=True)
                feedback = mode.apply(engine, kind, payload)
                if key == state.last_action_key and kind not in ("noop", "add_tag"):
                    engine.incident("repeat", f"{kind} repeated with the same arguments")
                state.last_action_key = key
            except ActionError as exc:
                error = exc.as_dict()
        if error is not None:
            self._invalid += 1
            engine.incident("invalid_action", f"{error['field']}: {error['message']}")
            feedback = "Action refused: " + describe_error(error)
        else:
            engine.advance(scenario.settings.minutes_per_step)
            mode.after_step(engine)
        penalty = penalty_for(state.incidents[incidents_before:]) + mode.step_cost
        self._done = mode.is_done(engine) or state.step_count >= scenario.settings.max_steps
        # Shaped from the grade before it is held in [0, 1], so that a cost (a needless
        # request) is felt when it is incurred; the last step ends on the grade itself, so the
        # rewards still sum to the grade less the penalties.
        value = self._grader.value() if self._done else self._grader.potential()
        reward = step_reward(self._potential, value, penalty)
        self._potential = value
        self._total_reward += reward
        self._penalties += penalty
        if self._reward_mode == "final":  # withheld until the step that ends the episode
            reward = self._total_reward if self._done else 0.0
        return self._observe(reward=reward, feedback=feedback, error=error)

    @property
    def state(self) -> TriageState:
        if self._engine is None or self._scenario is None:
            return TriageState(episode_id=self._episode_id)
        engine = self._engine
        withheld = self.withheld
        return TriageState(
            episode_id=self._episode_id,
            step_count=engine.state.step_count,
            task_id=self._scenario.id,
            mode=self._scenario.mode,
            seed=self._seed,
            done=self._done,
            now=engine.state.now,
            max_steps=self._scenario.settings.max_steps,
            escalation_budget_remaining=engine.state.escalation_budget,
            queue_remaining=dict(engine.state.queue_remaining),
            tickets={tid: w.decisions() for tid, w in engine.state.work.items()},
            progress_score=0.0 if withheld else self.progress,
            total_reward=0.0 if withheld else self._total_reward,
            penalties=0.0 if withheld else self._penalties,
            invalid_actions=self._invalid,
            sla_breaches=len(engine.state.breached),
            incidents=[] if withheld else [asdict(i) for i in engine.state.incidents],
        )

    def get_metadata(self) -> EnvironmentMetadata:
        """What /metadata reports: the same name and version as openenv.yaml."""
        from inbox_triage.version import __version__

        return EnvironmentMetadata(
            name="inbox_triage",
            description="Triage a shared support inbox (triage, ticket and inbox modes) under "
            "SLAs, queue capacities and an escalation budget, following a written policy; "
            "graded in [0, 1] with dense rewards.",
            version=__version__,
        )

    # ------------------------------------------------------------ in-process extras
    @property
    def scenario(self) -> Scenario | None:
        """The scenario with its truth: for in-process checks and the oracle, never the wire."""
        return self._scenario

    @property
    def done(self) -> bool:
        return self._done

    @property
    def potential(self) -> float:
        """What the rewards are shaped from: the grade before it is held in [0, 1] (below 0
        while needless requests outweigh the rest), the grade itself once the episode ends.
        The rewards so far sum to it less the penalties."""
        return self._potential

    @property
    def progress(self) -> float:
        """The grade so far (the shaping potential, held in [0, 1])."""
        return min(1.0, max(0.0, self._potential))

    @property
    def reward_mode(self) -> str:
        return self._reward_mode

    @property
    def withheld(self) -> bool:
        """Whether what scores the episode is withheld now (``reward_mode: final``, not done):
        step rewards, progress, penalties, incidents and the grader."""
        return self._reward_mode == "final" and not self._done

    @property
    def total_reward(self) -> float:
        return self._total_reward

    @property
    def penalties(self) -> float:
        return self._penalties

    def offer(self) -> dict[str, Any]:
        """What the episode offers an agent to act with: its mode, the actions it allows now,
        their fields and the vocabulary (what a tool list is made of, at any step)."""
        scenario, engine, mode = self._scenario, self._engine, self._mode
        if scenario is None or engine is None or mode is None:
            raise RuntimeError("call reset() before offer()")
        return {
            "mode": scenario.mode,
            "task_id": scenario.id,
            "allowed_actions": [] if self._done else list(mode.action_types),
            "action_schema": mode.schema(),
            "vocabulary": mode.vocabulary(engine),
        }

    def full_view(self, feedback: str = "") -> TriageObservation:
        """The whole current observation (as a reset sends it: the policy and action schema
        too), whatever the style of the episode, without changing what the lean style counts
        as sent: for a route that renders text from a lean step, or a page coming back."""
        sent, events_sent = self._sent, self._events_sent
        self._sent = None
        try:
            return self._observe(reward=None, feedback=feedback, error=None, first=True)
        finally:
            self._sent, self._events_sent = sent, events_sent

    def grade(self) -> Grade:
        if self._grader is None:
            raise RuntimeError("call reset() before grade()")
        return self._grader.grade()

    # ------------------------------------------------------------------ internals
    def _start(
        self,
        scenario: Scenario,
        seed: int | None,
        episode_id: str | None,
        style: str,
        rewards: str,
    ) -> None:
        self._scenario = scenario
        self._reward_mode = rewards
        self._sent: SentViews | None = {} if style == "lean" else None
        self._events_sent = 0
        self._engine = Engine(scenario)
        self._mode = MODE_VIEWS[scenario.mode]
        self._grader = Grader(self._engine, self._mode.weights)
        self._rubric = None  # the new episode's, made when first asked for
        self._views: ViewCache = {}
        self._episode_id = episode_id or str(uuid.uuid4())
        self._seed = seed
        self._potential = self._grader.value()
        self._total_reward = 0.0
        self._penalties = 0.0
        self._invalid = 0
        self._done = False

    def _refuse(self, message: str) -> TriageObservation:
        error = {"field": "episode", "message": message}
        if self._engine is None:  # done, so that a `while not obs.done` loop cannot spin
            return TriageObservation(
                done=True, reward=0.0, last_feedback=message, last_action_error=error
            )
        return self._observe(reward=0.0, feedback=message, error=error)

    def _observe(
        self,
        reward: float | None,
        feedback: str,
        error: dict[str, Any] | None,
        first: bool = False,
    ) -> TriageObservation:
        scenario, engine, mode = self._scenario, self._engine, self._mode
        assert scenario is not None and engine is not None and mode is not None
        state = engine.state
        lean = self._sent is not None and not first
        metadata: dict[str, Any] = {}
        if self._done:
            final = self.grade()
            metadata = {
                "grade": final.as_dict(),
                "penalties": round(self._penalties, 6),
                "total_reward": round(self._total_reward, 6),
            }
        # Lean: only the events since the last observation (the last few of them).
        since = self._events_sent if lean else 0
        withheld = self.withheld
        events = [
            {"minute": e.minute, "kind": e.kind, "ticket_id": e.ticket_id, "detail": e.detail}
            for e in state.events[since:]
            if not (withheld and e.kind in PENALTIES)  # incidents score the episode
        ][-RECENT_EVENTS:]
        self._events_sent = len(state.events)
        fields: dict[str, Any] = dict(
            done=self._done,
            reward=reward,
            metadata=metadata,
            mode=scenario.mode,
            task_id=scenario.id,
            title=scenario.title,
            difficulty=scenario.difficulty,
            objective="" if lean else scenario.objective,
            policy=(scenario.policy.text + "\n" + scenario.org.guide) if first else None,
            vocabulary=None if lean else mode.vocabulary(engine),
            allowed_actions=[] if self._done else mode.action_types,
            action_schema=mode.schema() if first else None,
            step_count=state.step_count,
            max_steps=scenario.settings.max_steps,
            steps_remaining=max(0, scenario.settings.max_steps - state.step_count),
            now=state.now,
            last_feedback=feedback,
            last_action_error=error,
            progress_score=0.0 if withheld else round(self.progress, 6),
            recent_events=events,
        )
        # A mode may refine a common field (ticket: title).
        fields.update(mode.observe(engine, self._views, self._sent))
        return built_observation(fields)


def _choice(value: object, field: str, allowed: tuple[str, ...], default: str) -> str:
    """A reset option's value, or a refusal naming the field and what it may be."""
    if value is None:
        return default
    if not isinstance(value, str) or value not in allowed:
        raise ScenarioError(f"{field} must be one of {', '.join(allowed)}", field, list(allowed))
    return value


def _parse(action: object) -> TriageAction:
    """Validates an action from a dict or a model (re-validated: ``model_construct`` skips it)."""
    if isinstance(action, TriageAction):
        return TriageAction.model_validate(action.model_dump(warnings=False))
    if isinstance(action, Mapping):
        return TriageAction.model_validate(dict(action))
    raise ActionError("action", f"must be an object of fields, not {type(action).__name__}")

"""GEM: episodes made by ``gem.make`` (and ``gem.make_vec``) played as ``<tool_call>`` texts:
the oracle's grade in every mode, rewards that sum to the total, refusals and garbage counted,
seeds that repeat an episode."""

from __future__ import annotations

import logging

import pytest
from text_turns import call, oracle_turns

_root = logging.getLogger()
_kept = (_root.level, list(_root.handlers))
gem = pytest.importorskip("gem")
_root.setLevel(_kept[0])  # `import gem` calls logging.basicConfig(level=INFO): undo it
_root.handlers[:] = _kept[1]

from inbox_triage.action_tools import SYSTEM_PROMPTS, parse_tool_call, tool_names  # noqa: E402
from inbox_triage.integrations.gem import ENV_ID, register  # noqa: E402

MODES = ("triage", "ticket", "inbox")
EPISODE = {"split": "test", "difficulty": "easy"}


def make(mode: str, **kwargs):
    register()
    return gem.make(f"{ENV_ID}:{mode}", **{**EPISODE, **kwargs})


def play_out(env, seed: int) -> list[tuple]:
    steps = []
    for text in oracle_turns(env, seed):
        steps.append(env.step(text))
        if steps[-1][2] or steps[-1][3]:
            return steps
    raise AssertionError("unreachable")


@pytest.mark.parametrize("mode", MODES)
def test_the_oracle_wins_every_mode_and_the_step_rewards_sum_to_the_episode(mode):
    env = make(mode)
    obs, info = env.reset(seed=1)
    assert info["mode"] == mode and info["seed"] == 1 and info["max_turns"] > 0
    assert obs.startswith(SYSTEM_PROMPTS[mode]) and "Policy points" in obs
    steps = play_out(env, 1)
    assert [s[2] for s in steps] == [False] * (len(steps) - 1) + [True]  # terminated
    assert not any(s[3] for s in steps)  # never truncated
    assert all(isinstance(s[0], str) and s[0] for s in steps)
    final = steps[-1][4]
    assert final["grade"]["value"] == pytest.approx(1.0)
    assert final["refusals"] == 0 and final["steps"] == len(steps)
    total = sum(s[1] for s in steps)
    assert total == pytest.approx(final["total_reward"], abs=1e-5)
    assert total == pytest.approx(final["grade"]["value"] - final["penalties"], abs=1e-5)
    assert env.step(call("finish"))[2:4] == (True, False)  # nothing more is played


@pytest.mark.parametrize(
    "mode, name, arguments, field",
    [
        ("triage", "triage_email", {"priority": "whenever"}, "priority"),
        ("ticket", "set_priority", {"value": "whenever"}, "value"),
    ],
)
def test_a_wrong_value_comes_back_with_the_field_and_the_allowed_values(
    mode, name, arguments, field
):
    env = make(mode)
    env.reset(seed=1)
    vocabulary = env.observation["vocabulary"]
    if mode == "triage":  # a whole decision, with one value wrong
        arguments = {
            "email_id": env.observation["current_email"]["email_id"],
            "category": vocabulary["categories"][0],
            "route_to": vocabulary["queues"][0],
            "summary": "A customer wrote.",
            **arguments,
        }
    text, reward, terminated, truncated, info = env.step(call(name, **arguments))
    assert not terminated and not truncated and reward < 0
    assert f"{field}: is not an allowed value" in text
    assert all(value in text for value in vocabulary["priorities"])
    assert info["error"]["field"] == field
    steps = [(text, reward), *play_out(env, 1)]  # nothing changed: the oracle still wins
    final = steps[-1][4]
    assert final["refusals"] == 1 and final["grade"]["value"] == pytest.approx(1.0)
    assert sum(s[1] for s in steps) == pytest.approx(final["total_reward"], abs=1e-5)
    assert final["total_reward"] < 1.0 - 1e-6


def test_garbage_is_an_invalid_action_counted_never_a_guessed_one():
    env = make("inbox")
    env.reset(seed=1)
    before = env.observation["progress_score"]
    text, reward, *_ = env.step("I would classify the first ticket as urgent, to billing.")
    assert "refused" in text and "action_type" in text and "classify_ticket" in text
    assert reward < 0 and env.observation["progress_score"] == before
    assert play_out(env, 1)[-1][4]["refusals"] == 1


def test_the_same_seed_plays_the_same_episode_and_a_seedless_reset_a_new_one():
    first, again, other = make("ticket"), make("ticket"), make("ticket")
    assert first.reset(seed=3)[0] == again.reset(seed=3)[0] != other.reset(seed=4)[0]
    assert [s[:4] for s in play_out(first, 3)] == [s[:4] for s in play_out(again, 3)]
    seeded, twin = make("ticket", seed=3), make("ticket", seed=3)
    assert seeded.reset()[1]["seed"] == 3  # the constructor's seed first
    drawn = seeded.reset()[1]["seed"]
    assert drawn != 3 and twin.reset()[1]["seed"] == 3 and twin.reset()[1]["seed"] == drawn


def test_make_vec_seeds_each_env_and_autoresets_to_a_new_episode():
    register()
    vec = gem.make_vec([f"{ENV_ID}:ticket"] * 2, seed=7, **EPISODE)
    _, infos = vec.reset()
    assert [i["seed"] for i in infos] == [7, 8]
    for text in oracle_turns(vec.envs[0], 7):
        obs, rewards, terminated, truncated, infos = vec.step({0: text})
        if terminated[0]:
            break
    # GEM resets a finished env in the same step: its info is the next episode's reset info,
    # which keeps the finished one's summary
    assert infos[0]["seed"] not in (7, 8) and "grade" not in infos[0]
    assert infos[0]["prev_episode"]["grade"]["value"] == pytest.approx(1.0)
    assert infos[0]["prev_episode"]["refusals"] == 0 and len(infos) == 1  # only env 0 stepped
    assert obs[0].startswith(SYSTEM_PROMPTS["ticket"])
    _, infos = vec.reset(seed=[5, 6])
    assert [i["seed"] for i in infos] == [5, 6]


def test_max_turns_truncates_the_episode_and_says_so():
    env = make("inbox", max_turns=2)
    with pytest.warns(UserWarning, match="max_turns=2 cuts"):
        env.reset(seed=1)
    turns = oracle_turns(env, 1)
    steps = [env.step(next(turns)), env.step(next(turns))]
    assert [s[2:4] for s in steps] == [(False, False), (False, True)]
    final = steps[-1][4]
    assert final["truncated"] is True and final["grade"]["value"] < 1.0
    assert sum(s[1] for s in steps) == pytest.approx(final["total_reward"], abs=1e-5)


def test_random_actions_are_calls_of_the_episodes_tools_and_spawn_branches():
    env = make("inbox", seed=2)
    env.reset()
    action = env.sample_random_action()
    assert parse_tool_call(action)["action_type"] in tool_names("inbox", env.observation)
    branch = env.spawn(same_state=True)
    assert env.step(action)[:4] == branch.step(action)[:4]
    fresh = env.spawn(mode="ticket")
    assert fresh.reset(seed=1)[1]["mode"] == "ticket"


def test_register_is_idempotent_and_the_episode_is_checked_at_make():
    ids = register()
    assert ids == register() == (ENV_ID, *(f"{ENV_ID}:{m}" for m in MODES))
    with pytest.raises(TypeError, match="name the episode"):
        gem.make(ENV_ID)
    with pytest.raises(TypeError, match="takes no colour"):
        gem.make(ENV_ID, mode="ticket", colour="blue")
    assert gem.make(ENV_ID, task="ticket/generated", seed=1).reset()[1]["mode"] == "ticket"
    gem.register("inbox-triage-taken", "gem.envs.game_env.wordle:WordleEnv")
    try:
        with pytest.raises(ValueError, match="already registered"):
            register("inbox-triage-taken")
    finally:
        gem.envs.registration.ENV_REGISTRY.pop("inbox-triage-taken")

"""The environment inside other frameworks' loops, one module per framework.

Each module needs its framework, an optional extra of its own (``pip install -e
".[verifiers]"``, ``".[skyrl]"``, ``".[gem]"``; TRL's tool classes are in ``training/``, under
the ``train`` extra). Nothing in the environment imports this package (the one door is the
package's lazy ``load_environment``, the name verifiers looks up): it stands on top, beside the
server and training, and speaks to the episode through ``inbox_triage.action_tools`` (the tools,
their schemas from the episode's vocabulary, the ``<tool_call>`` parser and the observation's
text); the text-turn envs (SkyRL, GEM) share ``text_episode.TextEpisode``.
"""

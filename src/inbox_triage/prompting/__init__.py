"""What a model reads and writes, below both ``agents/`` and ``training/``: the one-email
decision prompt and its tolerant parser (``decisions``), each mode's actions as TRL tool
classes whose signatures are the tool schemas a model is shown (``tools``, ``episode_tools``),
and how a checkpoint is loaded with a chat template that renders tools (``checkpoint``).

The ``hf`` agent and the trainers import the same code, so a model is measured on exactly the
text it learned from. Nothing here imports an agent, the runner, training or the server.
"""

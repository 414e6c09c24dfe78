"""`python -m inbox_triage.cli`: the same as the `inbox-triage` command."""

from inbox_triage.cli import app

app()

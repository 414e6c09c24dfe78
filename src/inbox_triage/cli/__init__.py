"""The `inbox-triage` command line: one module per command group (eval, report and check, import
and tasks, serve), each registering on the one app; view, train and export come from the
folders they belong to."""

# Each command module registers on the app as it is imported, in the order --help lists them.
from inbox_triage.cli import evaluate  # noqa: F401, I001
from inbox_triage.cli import checks  # noqa: F401
from inbox_triage.cli import catalog  # noqa: F401
from inbox_triage.cli import lint  # noqa: F401
from inbox_triage.cli import serve  # noqa: F401
from inbox_triage.cli.common import app
from inbox_triage.server.view import view_command
from inbox_triage.training.cli import export_app, train_app

app.command("view")(view_command)
app.add_typer(train_app, name="train")
app.add_typer(export_app, name="export")

__all__ = ["app"]

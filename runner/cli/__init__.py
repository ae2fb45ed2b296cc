"""`runner`: start the embedded stack, evaluate harnesses, manage tasks. The app is assembled
here from the command modules, in the order `runner --help` lists them: the stack
(runner/cli/stack.py), `eval` (runner/cli/eval.py), the queue's `worker`, `gather` and
`nats-cluster` (runner/cli/queue.py), the harnesses (runner/cli/harness.py), the OpenEnv
server (runner/cli/openenv.py),
the tasks (runner/cli/tasks.py) and the results (runner/cli/results.py); what they share is
in runner/cli/common.py, the tables they print in runner/cli/tables.py."""

from __future__ import annotations

from runner.cli import eval, harness, openenv, queue, results, stack, tasks
from runner.cli.common import App

app = App(
    help="WebPageBench: instrumented mock sites, typed events, a verifier.",
    no_args_is_help=True,
    add_completion=False,
)

app.command()(stack.up)
app.command()(stack.down)
app.command()(stack.restart)
app.command("compose-env")(stack.compose_env)
app.command()(stack.status)
app.command()(stack.prometheus)
app.command("eval")(eval.eval_)
app.command("worker")(queue.worker)
app.command("gather")(queue.gather_)
app.add_typer(queue.cluster_app, name="nats-cluster")
app.add_typer(harness.harness_app, name="harness")
app.command()(harness.testmodel)
app.command()(openenv.openenv)
app.add_typer(harness.model_app, name="model")
app.add_typer(tasks.tasks_app, name="tasks")
app.add_typer(results.board_app, name="board")
app.command("compare")(results.compare_runs)
app.command("export")(results.export_run)
app.command("import")(results.import_run)
app.command("bundle")(results.bundle_run)
app.command("rescore")(results.rescore_bundle)

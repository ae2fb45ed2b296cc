"""`runner`: start the embedded stack, evaluate harnesses, manage tasks. The app is assembled
here from the command modules, in the order `runner --help` lists them: the stack
(runner/cli_stack.py), `eval` (runner/cli_eval.py), the queue's `worker`, `gather` and
`nats-cluster` (runner/cli_queue.py), the harnesses (runner/cli_harness.py),
the tasks (runner/cli_tasks.py) and the results (runner/cli_results.py)."""

from __future__ import annotations

import typer

from runner import cli_eval, cli_harness, cli_queue, cli_results, cli_stack, cli_tasks

app = typer.Typer(
    help="WebPageBench: instrumented mock sites, typed events, a verifier.",
    no_args_is_help=True,
    add_completion=False,
)

app.command()(cli_stack.up)
app.command()(cli_stack.down)
app.command()(cli_stack.restart)
app.command("compose-env")(cli_stack.compose_env)
app.command()(cli_stack.status)
app.command()(cli_stack.prometheus)
app.command("eval")(cli_eval.eval_)
app.command("worker")(cli_queue.worker)
app.command("gather")(cli_queue.gather_)
app.add_typer(cli_queue.cluster_app, name="nats-cluster")
app.add_typer(cli_harness.harness_app, name="harness")
app.command()(cli_harness.testmodel)
app.add_typer(cli_harness.model_app, name="model")
app.add_typer(cli_tasks.tasks_app, name="tasks")
app.add_typer(cli_results.board_app, name="board")
app.command("compare")(cli_results.compare_runs)
app.command("export")(cli_results.export_run)
app.command("import")(cli_results.import_run)

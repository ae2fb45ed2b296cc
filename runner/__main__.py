from runner.cli import app

app()

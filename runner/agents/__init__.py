"""Agent programs: each runs in its own environment and speaks the harness protocol
(`protocol.py`) with the runner. Nothing here imports the runner or the services."""

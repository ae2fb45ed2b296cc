"""Agent programs: each runs in its own environment and speaks the harness protocol
(`protocol.py`) with the runner. They import nothing of the runner's and, of the services,
only the protocol's models (`services/core/models/protocol.py`)."""

"""A deterministic, OpenAI-compatible chat model for CI: it plays a script per task and
names elements by their visible labels, resolved against the page state in each request."""

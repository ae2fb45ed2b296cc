"""Built-in harnesses: `oracle` (reference solver through the real UI), `noop`, and the
agent harnesses that run out of process (`browser-use`, `openhands`, `dom`, `gui`,
`external`), each declared in pyproject.toml's entry-point group
`webpagebench.harnesses`."""

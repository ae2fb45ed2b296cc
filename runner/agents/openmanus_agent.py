"""The openmanus harness: OpenManus's system prompt over the browser-use executor.

Runs in its own environment on Python >= 3.12 (`python -m runner.agents.openmanus_agent
INPUT.json`), which holds browser-use and the `openmanus` package (PyPI 0.1.0, its `app`
package). The agent is the browser-use harness's (`browser_use_agent.solve`: browser-use
0.13 attached over CDP, the same options, steps and error kinds) with OpenManus's
`SYSTEM_PROMPT` added to browser-use's system message. The prompt is read at run time from
the installed `app/prompt/manus.py`, as a constant of the module's syntax tree, so that
nothing of OpenManus is imported (its agent needs packages this venv does not hold).
OpenManus's `NEXT_STEP_PROMPT` is left out: it names tools of its own (PythonExecute,
FileSaver, GoogleSearch) that this executor does not have.
"""

from __future__ import annotations

import ast
from importlib import metadata
from pathlib import Path

from runner.agents import protocol
from runner.agents.browser_use_agent import solve, start
from services.core.models.protocol import AgentInput

DISTRIBUTION = "openmanus"
PROMPT_MODULE = "app/prompt/manus.py"


def prompt_constant(path: Path, name: str) -> str:
    """The string a module assigns to `name` at its top level, read without running it."""
    for node in ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value.strip()
    raise LookupError(f"{path}: no string constant {name}")


def system_prompt() -> str:
    """OpenManus's `SYSTEM_PROMPT`, from the installed package."""
    located = metadata.distribution(DISTRIBUTION).locate_file(PROMPT_MODULE)
    return prompt_constant(Path(str(located)), "SYSTEM_PROMPT")


async def run(spec: AgentInput, recorder: protocol.Recorder) -> None:
    await solve(spec, recorder, extend_system_message=system_prompt())


def main() -> None:
    start(run)


if __name__ == "__main__":
    main()

"""An exported task's verifier (`tests/test.sh`): the trial's verdict from its door, written
where Harbor reads it.

    python -m runner.harbor.verify http://start:8000 /logs/verifier

`reward.json` gets the door's numbers (`reward` is EMS), `verdict.json` beside it the whole
verdict and the failure class. Where the door or the stand cannot answer nothing is written
and the exit status is 1: Harbor records the trial as an error, never as a reward of 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx

from runner.harbor.door import Judged
from services.core.models.base import FileFormatError

REWARD = "reward.json"
VERDICT = "verdict.json"


def verify(door: str, out: Path) -> Judged:
    answer = httpx.post(f"{door.rstrip('/')}/verdict", timeout=120)
    if answer.status_code != 200:
        raise RuntimeError(f"the trial's door answered {answer.status_code}: {answer.text[:500]}")
    judged = Judged.parse(answer.content, "the door's verdict")
    out.mkdir(parents=True, exist_ok=True)
    (out / VERDICT).write_text(answer.text)
    (out / REWARD).write_text(json.dumps(judged.reward))
    return judged


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m runner.harbor.verify DOOR_URL OUT_DIR", file=sys.stderr)
        return 2
    try:
        judged = verify(argv[0], Path(argv[1]))
    except (httpx.HTTPError, RuntimeError, FileFormatError) as exc:
        print(f"no verdict: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(judged.reward))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The compose stand's credentials, made once by its one-shot `credentials` service
(compose.yaml) into the volume every service reads them from (`WPB_SECRETS_DIR`,
services/kit/settings.py): a bare `docker compose up` needs no file of the user's.

    python -m services.kit.credentials /run/wpb

Each credential is the environment's where it is set (`make stand` passes the runner's, so
the stand and the runner agree), else the one the volume already holds (kept across
restarts), else a new random one. Files are 0600, owned by the services' user.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

# The file names the services' settings read (pydantic-settings: the variable's name).
NAMES = ("wpb_service_token", "wpb_admin_token")


def make(folder: Path) -> list[str]:
    """Every credential in `folder`; the names of those written anew."""
    written = []
    for name in NAMES:
        path = folder / name
        given = os.environ.get(name.upper(), "")
        if given or not path.exists() or not path.read_text().strip():
            value = given or secrets.token_urlsafe(32)
            path.touch(mode=0o600)
            path.write_text(value)
            written.append(name)
    return written


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    made = make(folder)
    print(f"credentials in {folder}: {', '.join(made) or 'kept'}", flush=True)

"""The key of what the images are made from, and which images lack it (deploy/images.sh).

`python deploy/images_key.py` prints the key: a digest of the Dockerfile, compose.yaml, the
image scripts, every file of the build context (.dockerignore's list), the harnesses'
image packages (runner/harnesses/environments.py) and the ids of the base images
($WPB_BASE_IMAGE, $WPB_NEWER_BASE_IMAGE). `python deploy/images_key.py --stale ENV_FILE`
prints the images (compose's, with the `metrics` profile, and the docker backend's) whose
label `wpb.images-key` is not $WPB_IMAGES_KEY: those `make images` builds.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Read besides the build context: what decides how the images are built.
RECIPE = (
    "Dockerfile",
    ".dockerignore",
    "compose.yaml",
    "deploy/images.sh",
    "deploy/agent-images.sh",
    "deploy/base-image.sh",
    "runner/harnesses/environments.py",
)
LABEL = "wpb.images-key"


def context_files() -> list[Path]:
    """The files `docker build` sends: .dockerignore admits its `!` entries, never a
    `__pycache__`."""
    admitted = [
        line[1:].strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    ]
    files: set[Path] = set()
    for entry in admitted:
        path = REPO / entry.rstrip("/")
        found = path.rglob("*") if path.is_dir() else [path]
        files.update(f for f in found if f.is_file() and "__pycache__" not in f.parts)
    return sorted(files)


def image_id(name: str) -> str:
    done = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Id}}", name],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()


def key() -> str:
    digest = hashlib.sha256()
    for path in [*(REPO / name for name in RECIPE), *context_files()]:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    for base in ("WPB_BASE_IMAGE", "WPB_NEWER_BASE_IMAGE"):
        name = os.environ.get(base, "")
        digest.update(f"{name}={image_id(name) if name else ''}\0".encode())
    return digest.hexdigest()[:16]


def images(env_file: str) -> list[str]:
    """Every image `make images` makes."""
    listed = subprocess.run(
        ["docker", "compose", "--env-file", env_file, "--profile", "metrics", "config", "--images"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    sys.path.insert(0, str(REPO))
    from runner.harnesses.environments import ENVIRONMENTS

    agents = [e.image for e in ENVIRONMENTS.values() if e.image]
    return sorted({*listed, "wpb-browser", "wpb-testmodel", *agents})


def stale(env_file: str) -> list[str]:
    wanted = os.environ["WPB_IMAGES_KEY"]
    out = []
    for name in images(env_file):
        done = subprocess.run(
            [
                "docker",
                "image",
                "inspect",
                "--format",
                f'{{{{index .Config.Labels "{LABEL}"}}}}',
                name,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or done.stdout.strip() != wanted:
            out.append(name)
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["--stale"]:
        print(" ".join(stale(sys.argv[2])))
    else:
        print(key())

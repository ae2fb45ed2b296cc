"""Write the `.dist-info` of a pyproject.toml's distribution with its site plug-ins (its
`webpagebench.sites` entry points, or the groups the arguments after the folder name) into a
folder: the images hold the code on PYTHONPATH without installing the project, and the site
registry (services/core/sites.py) reads the entry points of every distribution on sys.path."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

GROUPS = sys.argv[3:] or ["webpagebench.sites"]

project = tomllib.loads(Path(sys.argv[1]).read_text())["project"]
name, version = project["name"], project["version"]
info = Path(sys.argv[2]) / f"{name}-{version}.dist-info"
info.mkdir(parents=True, exist_ok=True)
(info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
lines = []
for group in GROUPS:
    lines += [f"[{group}]"]
    lines += [f"{key} = {value}" for key, value in project["entry-points"][group].items()]
(info / "entry_points.txt").write_text("\n".join(lines) + "\n")

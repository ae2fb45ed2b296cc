"""Print the requirements of pyproject.toml, one a line: the services' (no argument) or an
extra's (its name). The images install them without the project itself."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

project = tomllib.loads(Path(sys.argv[1]).read_text())["project"]
extra = sys.argv[2] if len(sys.argv) > 2 else None
print("\n".join(project["optional-dependencies"][extra] if extra else project["dependencies"]))

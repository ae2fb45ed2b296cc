"""What every site generator shares: the JSON layout of a catalog and `main()`'s write or
`--check` (is the committed output what the generator makes now?)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def dumps(catalog: Any) -> str:
    """A catalog as committed: UTF-8 text, one-space indent, a final newline."""
    return json.dumps(catalog, ensure_ascii=False, indent=1) + "\n"


def committed(root: Path) -> dict[str, bytes]:
    """Every file under `root` (path relative to it, `/`-separated) -> its bytes."""
    if not root.is_dir():
        return {}
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def write_or_check(
    root: Path, files: dict[str, bytes], module: str, argv: list[str] | None = None
) -> int:
    """Make `root` hold exactly `files` (relative path -> bytes), or with `--check` in
    `argv` (default: the command line) only say whether it does; the exit status."""
    args = sys.argv[1:] if argv is None else argv
    current = committed(root)
    if "--check" in args:
        stale = sorted(
            name for name in set(files) | set(current) if files.get(name) != current.get(name)
        )
        if stale:
            shown = ", ".join(stale[:5]) + (" …" if len(stale) > 5 else "")
            print(f"{root} is out of date ({shown}); run: python -m {module}", file=sys.stderr)
            return 1
        print(f"{root} is up to date ({len(files)} files)")
        return 0
    for leftover in set(current) - set(files):
        (root / leftover).unlink()
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if current.get(name) != body:
            path.write_bytes(body)
    total = sum(len(body) for body in files.values())
    print(f"wrote {len(files)} files to {root} ({total // 1024} KiB)")
    return 0

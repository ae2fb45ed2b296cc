#!/usr/bin/env bash
# The docker backend's images (`runner eval --backend docker`, docs/harnesses.md), from the
# Dockerfile's targets on $WPB_BASE_IMAGE (deploy/images.sh chooses it): `wpb-browser`,
# `wpb-agent-NAME` for every agent harness with image packages (runner/environments.py), and
# `wpb-testmodel` (compose's `testmodel` profile). Cached layers make a second run seconds.
# $PYTHON: an interpreter that imports the runner (default .venv/bin/python; make passes it).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
: "${WPB_BASE_IMAGE:?the base image (deploy/images.sh sets it)}"

build() {
  # Quiet (the legacy builder says it is deprecated on every build); its output if it fails.
  local log
  log=$(mktemp)
  if ! docker build -q --network host --build-arg BASE_IMAGE="$WPB_BASE_IMAGE" "$@" . \
      >/dev/null 2>"$log"; then
    tail -40 "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
}

build --target browser -t wpb-browser
build --target testmodel -t wpb-testmodel
"$PYTHON" -c 'from runner.environments import ENVIRONMENTS
for e in ENVIRONMENTS.values():
    if e.image:
        print(e.image, " ".join(e.image_packages))' |
while read -r image packages; do
  build --target agent --build-arg "REQUIREMENTS=$packages" -t "$image"
done
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' 'wpb-*'

#!/usr/bin/env bash
# The docker backend's images (`runner eval --backend docker`, docs/harnesses.md), from the
# Dockerfile's targets on $WPB_BASE_IMAGE (deploy/images.sh chooses it): `wpb-browser`,
# `wpb-agent-NAME` for every agent harness with image packages
# (runner/harnesses/environments.py), `wpb-testmodel` (compose's `testmodel` profile) and
# `wpb-harbor` (the box and door of exported Harbor tasks, runner/harbor).
# Cached layers make a second run seconds.
# $PYTHON: an interpreter that imports the runner (default .venv/bin/python; make passes it).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
: "${WPB_BASE_IMAGE:?the base image (deploy/images.sh sets it)}"

build() {
  # Quiet (the legacy builder says it is deprecated on every build); its output if it fails.
  local log
  log=$(mktemp)
  if ! docker build -q --network host --build-arg BASE_IMAGE="$WPB_BASE_IMAGE" \
      --label "wpb.images-key=${WPB_IMAGES_KEY:-}" "$@" . \
      >/dev/null 2>"$log"; then
    tail -40 "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
}

build --target browser -t wpb-browser
build --target testmodel -t wpb-testmodel
build --target harbor -t wpb-harbor
# A harness that needs a newer Python than the base's (openhands: 3.12) is built on
# $WPB_NEWER_BASE_IMAGE (deploy/images.sh sets it); the rest on the base.
# Each line: image, 1 for the newer base, its Debian packages (comma-joined, - for none),
# its Python packages.
"$PYTHON" -c 'from runner.harnesses.environments import ENVIRONMENTS
for e in ENVIRONMENTS.values():
    if e.image:
        debian = ",".join(e.image_debian_packages) or "-"
        print(e.image, int(e.min_python > (3, 11)), debian, " ".join(e.image_packages))' |
while read -r image newer debian packages; do
  base=$WPB_BASE_IMAGE
  if [ "$newer" = 1 ]; then base=${WPB_NEWER_BASE_IMAGE:?a base with Python 3.12 or newer}; fi
  [ "$debian" != - ] || debian=
  build --target agent --build-arg BASE_IMAGE="$base" --build-arg "DEBIAN_PACKAGES=${debian//,/ }" \
    --build-arg "REQUIREMENTS=$packages" -t "$image"
done
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' 'wpb-*'

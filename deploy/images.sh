#!/usr/bin/env bash
# `make images`: every image of compose.yaml, then the docker backend's
# (deploy/agent-images.sh), built from the Dockerfile, once per content: each image is
# labelled with a key of what it is made from (deploy/images_key.py: the Dockerfile, the build
# context, the bases, the harnesses' packages), and when every image carries today's key
# nothing is built (a second run, a clean checkout of the same tree: about a second). The
# base: $WPB_BASE_IMAGE if set; else python:3.11-slim where a registry gives it; else one
# built here from Debian packages (deploy/base-image.sh).
# $WPB_NEWER_BASE_IMAGE likewise, for what needs Python 3.12 or newer (openhands).
# $1: the env file compose reads its credentials from (`runner compose-env` makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
ENV_FILE=${1:?usage: deploy/images.sh ENV_FILE}

if [ -z "${WPB_BASE_IMAGE:-}" ]; then
  if docker image inspect python:3.11-slim >/dev/null 2>&1 \
      || docker pull -q python:3.11-slim >/dev/null 2>&1; then
    WPB_BASE_IMAGE=python:3.11-slim
  else
    WPB_BASE_IMAGE=wpb-base:bookworm
    deploy/base-image.sh "$WPB_BASE_IMAGE"
  fi
fi
# For the images that need Python 3.12 or newer (the openhands agent): python:3.12-slim
# beside python:3.11-slim; else Debian trixie (3.13) built here.
if [ -z "${WPB_NEWER_BASE_IMAGE:-}" ]; then
  if [ "$WPB_BASE_IMAGE" = python:3.11-slim ] && { docker image inspect python:3.12-slim \
      >/dev/null 2>&1 || docker pull -q python:3.12-slim >/dev/null 2>&1; }; then
    WPB_NEWER_BASE_IMAGE=python:3.12-slim
  else
    WPB_NEWER_BASE_IMAGE=wpb-base:trixie
    deploy/base-image.sh "$WPB_NEWER_BASE_IMAGE" trixie
  fi
fi
export WPB_BASE_IMAGE WPB_NEWER_BASE_IMAGE
PYTHON=${PYTHON:-.venv/bin/python}
WPB_IMAGES_KEY=$("$PYTHON" deploy/images_key.py)
export WPB_IMAGES_KEY
stale=$("$PYTHON" deploy/images_key.py --stale "$ENV_FILE")
if [ -z "$stale" ]; then
  echo "images current (key $WPB_IMAGES_KEY): nothing to build"
  exit 0
fi
echo "images from $WPB_BASE_IMAGE (and $WPB_NEWER_BASE_IMAGE), key $WPB_IMAGES_KEY; stale: $stale"
docker compose --env-file "$ENV_FILE" --profile metrics build --quiet
# The docker backend's: the browser, the agent harnesses, the test model.
deploy/agent-images.sh

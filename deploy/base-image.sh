#!/usr/bin/env bash
# The base image where no registry is reachable: Debian $2 (default bookworm: Python 3.11;
# trixie: 3.13, for the images that need a newer Python) from the configured apt mirror
# (debootstrap --variant=minbase, with its -updates and -security suites), Python 3
# with venv and pip, and the host's CA bundle, which pip is told to use (PIP_CERT: pip's
# own bundle would not know a CA the host's network needs); `docker import`ed as $1
# (default wpb-base:bookworm). Skipped when the image exists. Needs root.
set -euo pipefail

IMAGE=${1:-wpb-base:bookworm}
SUITE=${2:-bookworm}
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "base image $IMAGE exists"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "base-image: debootstrap needs root" >&2; exit 1; }

# The first Debian archive and security archive this machine's apt is configured with.
sources() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
    2>/dev/null | grep -oE '(https?://[^ ]+)' || true
}
MIRROR=${DEBIAN_MIRROR:-$(sources | grep -E '/debian/?$' | head -1)}
SECURITY=${DEBIAN_SECURITY_MIRROR:-$(sources | grep -E '/debian-security/?$' | head -1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=${SECURITY:-http://deb.debian.org/debian-security}

root=$(mktemp -d /tmp/wpb-base.XXXXXX)
trap 'rm -rf "$root" "$root.log"' EXIT
echo "base image $IMAGE: debootstrap $SUITE from $MIRROR (a few minutes, once)"
debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$root" "$MIRROR" >/dev/null
rm -f "$root/etc/apt/sources.list.d/"*
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY $SUITE-security main
SOURCES
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
     python3 python3-venv python3-pip \
  && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin' >"$root.log" 2>&1 \
  || { tail -30 "$root.log" >&2; exit 1; }
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
: >"$root/etc/resolv.conf"
tar -C "$root" -c . | docker import \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["/bin/bash"]' \
  - "$IMAGE" >/dev/null
echo "base image $IMAGE: $(docker image inspect -f '{{.Size}}' "$IMAGE" | numfmt --to=iec)"

#!/bin/sh
# The nats image's start: nats-server with its user's password (deploy/nats.conf) from
# WPB_SERVICE_TOKEN, or, where that is unset (a bare `docker compose up`), from the stand's
# credentials volume (services/kit/credentials.py).
if [ -z "$WPB_SERVICE_TOKEN" ] && [ -n "$WPB_SECRETS_DIR" ]; then
  WPB_SERVICE_TOKEN=$(cat "$WPB_SECRETS_DIR/wpb_service_token") || exit 1
fi
export WPB_SERVICE_TOKEN
exec nats-server "$@"

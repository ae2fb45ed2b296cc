"""Every value that becomes part of a NATS subject, a key-value key or a message header,
checked in one place before it gets there.

A subject or key that NATS cannot parse (a space, a wildcard, an empty token, a line longer
than the server's control-line limit) is not refused like a bad field: the server closes the
whole connection of the service that sent it. So each kind of value has one format, checked
with `fullmatch` (a `$` would let a trailing newline through) where the value enters a
service, answering 404 or 422 with the field named; and the bus checks every subject and key
again before it sends one (`kv_key`, `trajectory_id`), so a value no route checked is a 422
and never a lost connection.
"""

from __future__ import annotations

import re

from services.core.errors import FieldError

# What the hub issues (services/kit/trajectory.py `new_trajectory_id`): 128 bits, hex.
TRAJECTORY_ID = re.compile(r"[0-9a-f]{32}")
# An event's id, chosen by the page that writes it or by the server (a uuid4's hex).
EVENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
# A task file's stem: letters, digits, `_`, `-` and `.` (no path, no glob pattern).
TASK_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}")
# A revision the hub forwards: a JetStream sequence (64 bits, at most 20 digits).
REVISION = re.compile(r"[0-9]{1,20}")
# A key of a key-value bucket: dot-separated tokens of NATS's key alphabet, no wildcard.
KV_KEY = re.compile(r"[A-Za-z0-9_=/-]+(\.[A-Za-z0-9_=/-]+)*")
MAX_KV_KEY = 256


def trajectory_id(value: str, field: str = "trajectory") -> str:
    """`value` when it is an id the hub could have issued; else 404, naming `field` (no
    trajectory has that id)."""
    if not TRAJECTORY_ID.fullmatch(value):
        raise FieldError(field, "unknown trajectory id", 404)
    return value


def event_id(value: object, field: str) -> str:
    if not isinstance(value, str) or not EVENT_ID.fullmatch(value):
        raise FieldError(field, "8..64 characters of [A-Za-z0-9_-]")
    return value


def revision(value: str | None) -> int:
    """The revision a header carries; 0 (none known) for anything but a whole number."""
    return int(value) if value is not None and REVISION.fullmatch(value) else 0


def kv_key(key: str) -> str:
    """`key` when NATS takes it as a key-value key; else 422 naming `key`."""
    if len(key) > MAX_KV_KEY or not KV_KEY.fullmatch(key):
        raise FieldError("key", f"not a key-value key: {key[:80]!r}")
    return key

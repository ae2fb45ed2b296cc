"""The NATS connection: JetStream stream for events, key-value buckets for state."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import nats
import nats.errors
import orjson
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig, StorageType, StreamConfig
from nats.js.errors import (
    BadRequestError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NotFoundError,
)
from nats.js.kv import KeyValue

from services.core import keys
from services.core.models.events import Event

log = logging.getLogger("wpb.bus")

# The one NATS user of a stand; its password is the service credential.
NATS_USER = "wpb"
EVENTS_STREAM = "WPB_EVENTS"
EVENTS_SUBJECT = "wpb.events"
TRAJECTORIES_BUCKET = "wpb_trajectories"
STATE_BUCKET = "wpb_site_state"
# JetStream drops a re-published message with the same id inside this window.
DEDUP_WINDOW_S = 600.0
# How long a publish waits for JetStream's acknowledgement.
PUBLISH_TIMEOUT_S = 5.0
# A connection that answers no ping for PING_EVERY_S × MAX_PINGS_OUT seconds is dropped and
# made again (a half-open TCP connection is found in seconds, not minutes).
PING_EVERY_S = 5
MAX_PINGS_OUT = 3
RECONNECT_WAIT_S = 0.25


def event_subject(trajectory_id: str) -> str:
    """The subject of a trajectory's events (a malformed id is refused, never sent)."""
    return f"{EVENTS_SUBJECT}.{keys.trajectory_id(trajectory_id, 'trajectory_id')}"


def message_id(event: Event) -> str:
    """The header by which JetStream drops a re-published event: its trajectory and id."""
    return f"{event['trajectory_id']}:{keys.event_id(event['id'], 'id')}"


def event_json(event: Event) -> bytes:
    """An event as UTF-8 JSON: orjson's (a tenth of the time), or the standard library's for
    the odd whole number past 64 bits, which orjson does not write."""
    try:
        return orjson.dumps(event)
    except TypeError:
        return json.dumps(event, ensure_ascii=False).encode()


class Bus:
    """One NATS connection, shared by a service's handlers. It reconnects after any outage,
    however long (no limit on attempts); a connection that reaches the closed state anyway
    (nats-py closes it for good on any protocol error the server sends) is reported to
    `on_closed`, which a service answers by exiting, so that its supervisor starts it again.
    """

    def __init__(self, url: str, name: str, password: str) -> None:
        self.url = url
        self.name = name
        self.password = password
        self.nc: Client | None = None
        self.js: JetStreamContext | None = None
        self._kv: dict[str, KeyValue] = {}
        # Awaited after each reconnect (a cache fed by a subscription starts again).
        self.on_reconnect: list[Callable[[], Awaitable[None]]] = []
        # Awaited once, with the last error, when the connection is closed by anything but
        # `close()`.
        self.on_closed: Callable[[str], Awaitable[None]] | None = None
        self.reconnects = 0
        # What went wrong last (the server's error, a refused connection), for /ready.
        self.last_error: str | None = None
        self._closing = False

    @property
    def connected(self) -> bool:
        return self.nc is not None and self.nc.is_connected

    @property
    def state(self) -> str:
        """`connected`, `reconnecting` (or not yet connected) or `closed`."""
        if self.connected:
            return "connected"
        return "closed" if self.nc is not None and self.nc.is_closed else "reconnecting"

    async def connect(self, attempts: int = 60) -> None:
        async def on_disconnect() -> None:
            log.warning("NATS disconnected (%s)", self.last_error or "connection lost")

        async def on_reconnect() -> None:
            log.info("NATS reconnected")
            self.reconnects += 1
            for hook in self.on_reconnect:
                await hook()

        async def on_error(error: Exception) -> None:
            described = f"{type(error).__name__}: {error}".rstrip(": ")
            if described != self.last_error:  # once, not at every attempt of an outage
                log.warning("NATS: %s", described)
            self.last_error = described

        async def on_closed() -> None:
            if self._closing or self.js is None:  # closed by us, or never connected yet
                return
            if self.nc is not None and self.nc.last_error is not None:  # the server's -ERR
                await on_error(self.nc.last_error)
            log.error("NATS connection closed for good (%s)", self.last_error)
            if self.on_closed is not None:
                await self.on_closed(self.last_error or "closed")

        for attempt in range(attempts):
            try:
                self.nc = await nats.connect(
                    servers=[self.url],
                    name=self.name,
                    user=NATS_USER,
                    password=self.password,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=RECONNECT_WAIT_S,
                    ping_interval=PING_EVERY_S,
                    max_outstanding_pings=MAX_PINGS_OUT,
                    disconnected_cb=on_disconnect,
                    reconnected_cb=on_reconnect,
                    error_cb=on_error,
                    closed_cb=on_closed,
                    connect_timeout=2,
                    drain_timeout=5,
                )
                break
            except Exception as exc:  # the server may still be starting
                if attempt == attempts - 1:
                    raise
                log.info("waiting for NATS at %s (%s)", self.url, exc)
                await asyncio.sleep(0.25)
        assert self.nc is not None
        self.js = self.nc.jetstream()
        await self._ensure_layout()

    async def _ensure_layout(self) -> None:
        assert self.js is not None
        config = StreamConfig(
            name=EVENTS_STREAM,
            subjects=[f"{EVENTS_SUBJECT}.>"],
            storage=StorageType.FILE,
            duplicate_window=DEDUP_WINDOW_S,
            # Direct gets: a message by subject without the JSON API's envelope (half the time).
            allow_direct=True,
        )
        try:
            await self.js.add_stream(config)
        except BadRequestError:
            await self.js.update_stream(config)
        for bucket in (TRAJECTORIES_BUCKET, STATE_BUCKET):
            self._kv[bucket] = await self._bucket(bucket)

    async def _bucket(self, bucket: str) -> KeyValue:
        """A key-value bucket that answers direct gets (one made before they were asked for
        is changed to answer them)."""
        assert self.js is not None
        try:
            return await self.js.create_key_value(
                KeyValueConfig(bucket=bucket, history=1, storage=StorageType.FILE, direct=True)
            )
        except BadRequestError:
            info = await self.js.stream_info(f"KV_{bucket}")
            info.config.allow_direct = True
            await self.js.update_stream(info.config)
            return await self.js.key_value(bucket)

    def kv(self, bucket: str) -> KeyValue:
        return self._kv[bucket]

    async def close(self) -> None:
        self._closing = True
        if self.nc is not None and not self.nc.is_closed:
            await self.nc.drain()

    async def publish_events(self, events: list[Event]) -> list[int]:
        """Publish stored-form events in their order; returns their stream sequences once
        JetStream acked every one (NATS errors, a timeout among them, propagate)."""
        return await self.acked(await self.send_events(events))

    async def send_events(self, events: list[Event]) -> list[asyncio.Future[Any]]:
        """Send stored-form events in their order, back to back, without waiting: the
        futures of their acks, for `acked`."""
        assert self.js is not None
        return [
            await self.js.publish_async(
                event_subject(event["trajectory_id"]),
                event_json(event),
                headers={"Nats-Msg-Id": message_id(event)},
            )
            for event in events
        ]

    @staticmethod
    async def acked(pending: list[asyncio.Future[Any]]) -> list[int]:
        """The stream sequences of sent events once JetStream acked every one (NATS errors,
        a timeout among them, propagate: a timeout as NATS unavailable, 503)."""
        try:
            acks = await asyncio.wait_for(asyncio.gather(*pending), PUBLISH_TIMEOUT_S)
        except TimeoutError:
            raise nats.errors.TimeoutError from None
        return [ack.seq for ack in acks]

    async def last_event_seq(self, trajectory_id: str) -> int:
        """Stream sequence of the trajectory's last event, 0 when it has none."""
        assert self.js is not None
        try:
            msg = await self.js.get_last_msg(
                EVENTS_STREAM, event_subject(trajectory_id), direct=True
            )
        except NotFoundError:
            return 0
        return int(msg.seq or 0)

    async def get_json(self, bucket: str, key: str) -> tuple[dict[str, Any] | None, int]:
        """A JSON value and its revision; (None, 0) when absent."""
        try:
            entry = await self.kv(bucket).get(keys.kv_key(key))
        except KeyNotFoundError:
            return None, 0
        if entry.value is None:
            return None, 0
        return json.loads(entry.value), int(entry.revision or 0)

    async def put_json(self, bucket: str, key: str, value: Any, revision: int | None = None) -> int:
        """Write a JSON value; with `revision`, only if nobody wrote since (0 means create)."""
        data = json.dumps(value, ensure_ascii=False).encode()
        kv = self.kv(bucket)
        keys.kv_key(key)
        if revision is None:
            return await kv.put(key, data)
        if revision == 0:
            return await kv.create(key, data)
        return await kv.update(key, data, last=revision)


__all__ = ["Bus", "KeyWrongLastSequenceError", "event_json", "event_subject"]

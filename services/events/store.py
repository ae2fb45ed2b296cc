"""The collector's store: every event per trajectory, SQLite in WAL mode, idempotent by id."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from services.core.models.events import Event
from services.kit.bus import event_json

Row = tuple[Event, int]  # a stored event and its stream sequence

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    trajectory_id TEXT NOT NULL,
    id TEXT NOT NULL,
    stream_seq INTEGER NOT NULL,
    ts REAL NOT NULL,
    site TEXT NOT NULL,
    source TEXT NOT NULL,
    type TEXT NOT NULL,
    -- the stored event as JSON, less its seq: queries answer with it as it is
    doc TEXT NOT NULL,
    PRIMARY KEY (trajectory_id, id)
);
CREATE INDEX IF NOT EXISTS events_by_trajectory ON events (trajectory_id, stream_seq);
"""


class EventStore:
    """A writer connection (one batch at a time) and a reader connection."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        # Queries read through their own connection: in WAL mode they see committed rows
        # only, never the half of a batch that is being written.
        self.reader = sqlite3.connect(path, check_same_thread=False, isolation_level=None)

    def close(self) -> None:
        self.reader.close()
        self.db.close()

    def insert(self, rows: list[Row]) -> list[Row]:
        """Store (event, stream sequence) pairs in one transaction; returns those that were
        new (a redelivered event is already stored and is ignored)."""
        self.db.execute("BEGIN")
        try:
            stored = [
                (event, stream_seq)
                for event, stream_seq in rows
                if self.db.execute(
                    "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        event["trajectory_id"],
                        event["id"],
                        stream_seq,
                        event["ts"],
                        event["site"],
                        event["source"],
                        event["type"],
                        event_json(event).decode(),
                    ),
                ).rowcount
            ]
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return stored

    def events_json(
        self, trajectory_id: str, after: int = 0, types: list[str] | None = None
    ) -> str:
        """The trajectory's events in stream order as a JSON array; `seq` counts from 1
        within the trajectory (over all its events, also when `types` selects some)."""
        where = f"AND type IN ({','.join('?' * len(types))})" if types else ""
        rows = self.reader.execute(
            "SELECT '{\"seq\":' || seq || ',' || substr(doc, 2) FROM ("
            "SELECT ROW_NUMBER() OVER (ORDER BY stream_seq) AS seq, type, doc FROM events "
            f"WHERE trajectory_id = ?) WHERE seq > ? {where} ORDER BY seq",
            (trajectory_id, after, *(types or [])),
        ).fetchall()
        return "[" + ",".join(row[0] for row in rows) + "]"

    def events(self, trajectory_id: str) -> list[Row]:
        """The trajectory's stored events and their stream sequences, in stream order."""
        rows = self.reader.execute(
            "SELECT doc, stream_seq FROM events WHERE trajectory_id = ? ORDER BY stream_seq",
            (trajectory_id,),
        ).fetchall()
        return [(json.loads(doc), stream_seq) for doc, stream_seq in rows]

    def count(self) -> int:
        return int(self.reader.execute("SELECT COUNT(*) FROM events").fetchone()[0])

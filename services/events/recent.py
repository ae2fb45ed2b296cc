"""The recent trajectories' logs, parsed, in the collector's memory: check() matches them
there instead of reading, sending and parsing the whole log for every call."""

from __future__ import annotations

from collections import OrderedDict

from services.core.models.events import Event
from services.events.store import Row


class RecentLogs:
    """Each cached trajectory's events in stream order, with `seq` as the store numbers them
    (1, 2, … within the trajectory), least recently used dropped past `limit` events in all.

    A log enters from the store (`load`) and then grows with each committed batch
    (`extend`); the caller serialises the two, so a log never misses a batch committed while
    it was read. An event older than the log's last (never expected: the consumer delivers
    in order and a redelivery is not new) drops the log, to be read again.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._logs: OrderedDict[str, list[Event]] = OrderedDict()
        self._last: dict[str, int] = {}  # each cached log's last stream sequence
        self._held = 0

    def __contains__(self, trajectory_id: str) -> bool:
        return trajectory_id in self._logs

    @property
    def held(self) -> int:
        """Events held in all."""
        return self._held

    def get(self, trajectory_id: str) -> list[Event] | None:
        log = self._logs.get(trajectory_id)
        if log is not None:
            self._logs.move_to_end(trajectory_id)
        return log

    def load(self, trajectory_id: str, rows: list[Row]) -> list[Event]:
        """Cache a trajectory's whole stored log; returns it."""
        self._drop(trajectory_id)
        self._logs[trajectory_id] = []
        self._last[trajectory_id] = 0
        self._append(trajectory_id, rows)
        return self._logs[trajectory_id]

    def extend(self, rows: list[Row]) -> None:
        """Add newly stored events to the logs that are cached."""
        by_trajectory: dict[str, list[Row]] = {}
        for event, stream_seq in rows:
            if event["trajectory_id"] in self._logs:
                by_trajectory.setdefault(event["trajectory_id"], []).append((event, stream_seq))
        for trajectory_id, new in by_trajectory.items():
            self._append(trajectory_id, sorted(new, key=lambda row: row[1]))

    def _append(self, trajectory_id: str, rows: list[Row]) -> None:
        log = self._logs[trajectory_id]
        for event, stream_seq in rows:
            if stream_seq <= self._last[trajectory_id]:
                self._drop(trajectory_id)
                return
            log.append({"seq": len(log) + 1, **event})
            self._last[trajectory_id] = stream_seq
            self._held += 1
        while self._held > self.limit and len(self._logs) > 1:
            self._drop(next(iter(self._logs)))

    def _drop(self, trajectory_id: str) -> None:
        log = self._logs.pop(trajectory_id, None)
        if log is not None:
            self._held -= len(log)
            del self._last[trajectory_id]

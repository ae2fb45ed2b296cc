"""Logging: human-readable by default, one JSON object a line with WPB_LOG_JSON=1."""

from __future__ import annotations

import json
import logging
import sys
import time


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        tid = getattr(record, "trajectory_id", None)
        if tid:
            line["trajectory_id"] = tid
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        tid = getattr(record, "trajectory_id", None)
        return f"{text} [tid={tid}]" if tid else text


def setup_logging(service: str, json_lines: bool, level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter()
        if json_lines
        else TextFormatter(f"%(asctime)s {service} %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # httpx logs every request it sends (the hub's proxy: each agent request's full URL) at
    # INFO: an access log, shown at DEBUG only. Its errors reach the services as exceptions.
    access = logging.DEBUG if root.level <= logging.DEBUG else logging.WARNING
    logging.getLogger("httpx").setLevel(access)

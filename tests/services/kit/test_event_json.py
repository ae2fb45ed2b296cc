"""Events are written as JSON once, the same way by the sites and the collector."""

from __future__ import annotations

import json

from services.kit.bus import event_json


def test_event_json_is_what_the_standard_library_reads() -> None:
    event = {"id": "e1", "type": "click", "params": {"target": "Кефир «Утро»", "x": 3, "y": 0.5}}
    assert json.loads(event_json(event)) == event
    assert "Кефир".encode() in event_json(event)  # UTF-8, not \\u escapes
    huge = {**event, "params": {"x": 2**70}}  # past orjson's 64 bits: the slower writer
    assert json.loads(event_json(huge)) == huge

"""Small frab schedule.json files for import tests."""

import json


def json_document(*events: dict, rooms: list | None = None, time_zone_name: str | None = None):
    """schedule.json's structure for a two-day conference (7 and 8 April 2026) with ``events``
    on 8 April, each in the room it names; ``rooms``: the conference's room list, if any."""
    by_room = {}
    for event in events:
        by_room.setdefault(event["room"], []).append(event)
    conference = {
        "acronym": "test",
        "title": "Test",
        "start": "2026-04-07",
        "end": "2026-04-08",
        "daysCount": 2,
        "timeslot_duration": "00:05",
        **({"time_zone_name": time_zone_name} if time_zone_name else {}),
        "days": [
            {
                "index": 1,
                "date": "2026-04-08",
                "day_start": "2026-04-08T00:00:00+02:00",
                "day_end": "2026-04-09T00:00:00+02:00",
                "rooms": by_room,
            }
        ],
    }
    if rooms is not None:
        conference["rooms"] = rooms
    return {"schedule": {"version": "1", "conference": conference}}


def schedule_json(*events: dict) -> bytes:
    """The file of ``json_document(*events)`` for a conference in Europe/Paris."""
    return json.dumps(json_document(*events, time_zone_name="Europe/Paris")).encode()

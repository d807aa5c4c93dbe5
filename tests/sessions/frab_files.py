"""Small frab schedule.json files for import tests."""

import json


def schedule_json(*events: dict) -> bytes:
    """schedule.json of a two-day conference (7 and 8 April 2026, Europe/Paris) with ``events``
    in its room “Hall” on 8 April."""
    conference = {
        "acronym": "test",
        "title": "Test",
        "start": "2026-04-07",
        "end": "2026-04-08",
        "daysCount": 2,
        "timeslot_duration": "00:05",
        "time_zone_name": "Europe/Paris",
        "days": [
            {
                "index": 1,
                "date": "2026-04-08",
                "day_start": "2026-04-08T00:00:00+02:00",
                "day_end": "2026-04-09T00:00:00+02:00",
                "rooms": {"Hall": list(events)},
            }
        ],
    }
    return json.dumps({"schedule": {"version": "1", "conference": conference}}).encode()

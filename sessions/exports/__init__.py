"""The standard schedule exports: iCalendar, frab/c3voc schedule.xml and schedule.json.

The frab format's names, GUIDs and conventions, shared with the importer, are in sessions/frab.py.

Each export is written per session (a VEVENT, a frab event as JSON or XML), then joined in chunks
with the parts about the whole conference, so a view can stream it. The ``build_*`` functions take
sessions already loaded (``for_ical()``, ``for_export()``) and write every part; the views take
each session's part from the cache where it is still current and write only the others. The frab
writers add a constant number of queries (rooms, tracks, speaker links, the latest release).

- ``ical``: schedule.ics, a session's .ics, and the “Add to Google Calendar / Outlook” links.
- ``frab_schedule``: schedule.json and schedule.xml.
- ``fragments``: each session's part of an export, cached under a key naming what it shows.
- ``rows`` and ``common``: what the others share (related rows as tuples, times, addresses).
"""

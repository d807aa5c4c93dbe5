// Reads an iCalendar file on stdin with ical.js and prints, as JSON, each event's summary,
// start and end as UTC instants: the third reader of tests/sessions/test_export_views.py.
import { readFileSync } from "node:fs";
import ICAL from "ical.js";

const calendar = new ICAL.Component(ICAL.parse(readFileSync(0, "utf8")));
for (const zone of calendar.getAllSubcomponents("vtimezone")) {
  ICAL.TimezoneService.register(zone);
}
const events = calendar.getAllSubcomponents("vevent").map((component) => {
  const event = new ICAL.Event(component);
  return [
    event.summary,
    event.startDate.toJSDate().toISOString(),
    event.endDate.toJSDate().toISOString(),
  ];
});
process.stdout.write(JSON.stringify(events));

"""Languages and time zones: which language a visitor reads, how each language writes times, the
time zone a visitor reads the schedule in, and our translation catalogues (docs/i18n.md)."""

"""Conference pages (the list of conferences, a conference's home, its track colours), the mixins
every app's pages build on (ConferenceMixin, ConferencePageMixin), and bad input and error pages
answered in one place, as JSON under /api/ and as pages elsewhere (errors.py)."""

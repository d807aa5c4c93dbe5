"""Conference pages (the list of conferences, a conference's home, its track colours) and the
mixins every app's pages build on (ConferenceMixin, ConferencePageMixin)."""

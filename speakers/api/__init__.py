"""API v1 of the speakers app: the speakers of a conference."""

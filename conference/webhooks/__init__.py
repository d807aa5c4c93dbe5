"""Webhooks: telling organizers' own systems what changed, and the guard that keeps requests to
addresses organizers typed off the server's own network."""

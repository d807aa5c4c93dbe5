"""The call for proposals: from a speaker's first draft to a session waiting in the planner
(docs/organizers.md, "Call for proposals"; docs/speakers.md, "Proposing a session").

Its models are the schedule app's (``sessions/models/call.py``, ``proposals.py``,
``reviews.py``: the rules of each step live there). Here: ``decisions.py`` (accepting,
confirming: a proposal becomes a session), ``mails.py`` (what each step mails).
"""

"""The proposals API (docs/api.md, "Proposals"): for a conference's teams, its proposals with
their scores, reviews and decisions; for speakers, their own proposals.

- ``conferences/<slug>/proposals/``: reviewers, programme and organizers read (``view_proposal``),
  reviewers score (``review_proposal``), those who plan decide (``decide_proposal``); a person
  on no team of the conference finds nothing there (404).
- ``conferences/<slug>/my-proposals/``: an account's own proposals (any other is a 404).

Every step goes through the models (``Proposal.move_to`` and ``decisions.decide``), every write
through their ``clean()``; nothing here decides who may read a score or a speaker's name.
``views.py`` holds the doors, ``serializers.py`` what they read and write, ``schema.py`` their
OpenAPI documentation.
"""

"""The call for proposals in the admin: the call itself (``call.py``), and the review of
proposals: the list (``review_list.py``), each proposal's page (``review_page.py``), the
decisions from the list (``decisions.py``) and the CSV export (``export.py``). Imported by
sessions/admin/ so that Django finds them."""

from sessions.cfp.admin import call, review_list  # noqa: F401  (registers the ModelAdmins)

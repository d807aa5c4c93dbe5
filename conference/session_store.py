"""Django's database sessions (SESSION_ENGINE), each looked up by SQL compiled once.

Every logged-in request loads its session before anything else; compiling that lookup was most
of its cost (conference.compiled). The table, the data and everything else are Django's own.
"""

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import router
from django.utils import timezone

from conference.compiled import CompiledQuery

SESSION_BY_KEY = CompiledQuery(
    lambda session_key: Session.objects.filter(session_key=session_key),
    session_key="compiled-example-session-key",
)


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        """As Django's: the session if it has not expired, else None (and no key)."""
        session = SESSION_BY_KEY.first(
            self.model, router.db_for_read(self.model), session_key=self.session_key
        )
        if session is None or session.expire_date <= timezone.now():
            self._session_key = None
            return None
        return session

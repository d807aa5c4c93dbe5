"""The visitor's session and account, each looked up by SQL compiled once (conference.compiled).

Every logged-in request loads its session and then the account it names before anything else;
compiling those two lookups was most of their cost. Tables, data and checks are Django's own:
``SessionStore`` is Django's database sessions (SESSION_ENGINE), ``AccountBackend`` is
ModelBackend (AUTHENTICATION_BACKENDS), and ``django.contrib.auth.get_user`` still verifies the
session against the account.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import router
from django.utils import timezone

from conference.compiled import CompiledQuery, as_health_check

SESSION_BY_KEY = CompiledQuery(
    lambda session_key: Session.objects.filter(session_key=session_key),
    session_key="compiled-example-session-key",
)
ACCOUNT_BY_ID = CompiledQuery(
    lambda account_id: get_user_model()._default_manager.filter(pk=account_id),
    account_id=2_000_000_003,
)


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        """As Django's: the session if it has not expired, else None (and no key)."""
        using = router.db_for_read(self.model)
        # The first query of a logged-in request.
        session = as_health_check(
            using, lambda: SESSION_BY_KEY.first(self.model, using, session_key=self.session_key)
        )
        if session is None or session.expire_date <= timezone.now():
            self._session_key = None
            return None
        # Until when the session row serves: the early path of logged-in pages answers a
        # request again only before then (conference.page_cache.EarlyPersonalPageMiddleware).
        self.expire_date = session.expire_date
        return session


class AccountBackend(ModelBackend):
    """ModelBackend, with the account a session names looked up by compiled SQL.

    Sessions store the path of the backend that logged them in; those of Django's ModelBackend,
    from before this one, are moved to it by migration conference 0007, so nobody is logged out.
    """

    def get_user(self, user_id):
        model = get_user_model()
        try:
            account_id = model._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        user = ACCOUNT_BY_ID.first(model, router.db_for_read(model), account_id=account_id)
        return user if user is not None and self.user_can_authenticate(user) else None


# Its path in AUTHENTICATION_BACKENDS, for a login made without authenticate() (signing up).
ACCOUNT_BACKEND = f"{AccountBackend.__module__}.{AccountBackend.__qualname__}"

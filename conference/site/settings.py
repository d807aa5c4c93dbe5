"""One settings module, read from the environment (see README.md and docs/deploy.md)."""

import hashlib
import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from conference.site.environment import env_bool, env_int, env_list, read_env_file

BASE_DIR = Path(__file__).resolve().parent.parent.parent


# Local development: `make run` writes .env.local (git-ignored) with DJANGO_DEBUG=1 and a secret
# key of its own, so that every manage.py command runs like the development server. Variables
# already in the environment win. Production has no such file. The test suite ignores it, to run
# with production settings on every machine: pytest sets PYTEST_VERSION while it runs.
ENV_FILE = Path(os.environ.get("DJANGO_ENV_FILE") or BASE_DIR / ".env.local")
if "PYTEST_VERSION" not in os.environ and ENV_FILE.is_file():
    for name, value in read_env_file(ENV_FILE).items():
        os.environ.setdefault(name, value)


DEBUG = env_bool("DJANGO_DEBUG", default=False)


def source_fingerprint() -> str:
    """A digest of our code and templates, so pages cached by an older release are never served."""
    digest = hashlib.sha256()
    for folder in ("conference", "sessions", "speakers", "templates"):
        for path in sorted((BASE_DIR / folder).rglob("*")):
            if path.suffix in {".py", ".html", ".css", ".txt"} and "migrations" not in path.parts:
                digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


RELEASE = os.environ.get("DJANGO_RELEASE") or source_fingerprint()

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off. For local development, "
            "`make run` writes .env.local with DJANGO_DEBUG=1 and a key of its own."
        )
    # Debug only: a key that is obviously not for production.
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")

# The site's public address. Absolute links in exports, feeds and the API, and the domain in
# calendar UIDs, come from here, never from the request's Host header: a cached export must not
# depend on which host name rendered it first, and a subscribed calendar must see the same UID
# for a session whichever address it was fetched from.
SITE_URL = os.environ.get("DJANGO_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
if urlsplit(SITE_URL).scheme not in ("http", "https") or not urlsplit(SITE_URL).hostname:
    raise ImproperlyConfigured(
        f"DJANGO_SITE_URL must be an http(s) address such as https://schedule.example.org, "
        f"not {SITE_URL!r}."
    )
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "conference.site.apps.ConferenceAdminConfig",  # django.contrib.admin with our site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "axes",
    "django_filters",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "django_tasks",
    "django_tasks_db",
    "conference",
    # The project shell's management commands (load_demo, the worker's upkeep); no models.
    "conference.site",
    "speakers",
    "sessions",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Answers to a request with a session cookie are private (conference/pages/middleware.py).
    "conference.pages.middleware.PrivateForSessionsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The visitor's language: the language cookie, else Accept-Language; conference pages fall
    # back to the conference's own language (ConferenceMixin, docs/i18n.md).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # After the header middleware, so that their 413s and 400s carry the security headers too;
    # before anything reads input (conference/views/errors.py).
    "conference.views.errors.RefuseLargeBodyMiddleware",
    "conference.views.errors.RefuseUnstorableTextMiddleware",
    # A write that found SQLite's write lock taken past its timeout: 503 with Retry-After.
    "conference.views.errors.BusyDatabaseMiddleware",
    "conference.i18n.timezones.DisplayTimeZoneMiddleware",
    # Last, as django-axes asks: it turns a locked login's answer into a 429 (conference.accounts.limits).
    "axes.middleware.AxesMiddleware",
]

# The largest request body the app reads, as its Content-Length declares it: a 50 MB slide
# with its form. Larger is a 413 before the body is read (RefuseLargeBodyMiddleware); nginx's
# client_max_body_size (deploy/nginx.conf) is the same, so behind it such a body never arrives.
REQUEST_MAX_BYTES = 60 * 1024 * 1024

ROOT_URLCONF = "conference.site.urls"
WSGI_APPLICATION = "conference.site.wsgi.application"

TEMPLATES = [
    {
        # Every attendee page: templates/ (see conference/site/jinja2.py for why Jinja2).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "conference.site.jinja2.environment",
            "context_processors": [
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # Last: the shared part of a cached page is rendered for nobody.
                "conference.pages.nobody.shared_part_context",
            ],
        },
    },
    {
        # The admin and the API docs page, from their apps' own templates.
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# SQLite, the embedded default, serves several gunicorn workers and the task worker at once:
# - WAL: readers never wait for the writer nor it for them, so pages and API reads keep answering
#   while an import holds its long write transaction. synchronous=NORMAL is the level SQLite
#   advises with WAL: a power cut may lose the last commits, never corrupt the file.
# - IMMEDIATE: a transaction takes the write lock when it begins. With SQLite's default
#   (DEFERRED) one that reads and then writes, as every validated save does, fails at once with
#   "database is locked" when another writer got in between, since SQLite cannot make it wait;
#   and two requests could both pass a rule checked by reading (a room double-booked).
# - timeout: how long a writer waits for the lock (here for an import to finish, or for the
#   writers ahead of it) before failing; below gunicorn's 30 s worker timeout.
IS_SQLITE = DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
if IS_SQLITE:
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }

# Two caches. "default" holds shared pages, which are keyed by a version read from the
# database (conference/pages/), so one per process is correct, only colder (with the
# local-memory cache, pages are kept in each worker's bounded copies only). "limits" holds
# what must be counted once for all processes and servers (API throttles, password-reset mail,
# conference.accounts.limits), and is written on every API request: Redis when REDIS_URL is set. Without
# it, on PostgreSQL, a table in the database, which `migrate` creates (conference.apps). On
# SQLite, files in a folder beside the database file: SQLite has one writer at a time, so a
# count written there by every request would make each API read wait behind every write (behind
# an import, until the timeout, and then go uncounted); and a SQLite database is only shared by
# the processes of one machine, which share that folder too. Failed logins are counted by
# django-axes in its own table.
if os.environ.get("REDIS_URL"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
        },
        "limits": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": "limits",
        },
    }
else:
    CACHES = {
        # Past MAX_ENTRIES (300 by default) a third is dropped: an export caches a part per session.
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        },
        "limits": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "limits_cache",
            # Past MAX_ENTRIES (300 by default) the table is culled, live counts included.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        },
    }
    if IS_SQLITE:
        CACHES["limits"] = {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            # db.sqlite3 counts in db.sqlite3.limits/ (git-ignored): a folder per database, so
            # servers on other database files (the tests') never count together.
            "LOCATION": f"{DATABASES['default']['NAME']}.limits",
            # Each write lists the folder, so it stays small: past MAX_ENTRIES a third of the
            # files go, live counts included. Expired counts stay until read again or culled.
            "OPTIONS": {"MAX_ENTRIES": 5_000},
        }

# Each session's part of an export (sessions/exports/fragments.py) and each session card
# (sessions/views/cards.py) is cached, so after an edit only what it touched is rendered again.
# The local-memory cache is each worker's own (a few kB per session and export, ~1.5 kB per card,
# language, zone and list), so past these bounds a page or an export is rendered whole instead.
# Redis keeps one copy for all workers: no bound.
EXPORT_FRAGMENT_MAX_SESSIONS = (
    None
    if os.environ.get("REDIS_URL")
    else int(os.environ.get("DJANGO_EXPORT_FRAGMENT_MAX_SESSIONS", "3000"))
)
CARD_FRAGMENT_MAX_CARDS = (
    None
    if os.environ.get("REDIS_URL")
    else int(os.environ.get("DJANGO_CARD_FRAGMENT_MAX_CARDS", "5000"))
)

# Each worker keeps copies of the cached pages it served in its own memory, up to this many MiB
# (conference.pages.copies.WorkerCopies): 32 hold a 1,000-session schedule in every form many times
# over; each MiB more is a MiB more per worker (bench/README.md, Worker memory).
PAGE_WORKER_COPY_BYTES = int(os.environ.get("DJANGO_PAGE_WORKER_COPY_MIB", "32")) * 2**20

# How long an HTTP cache in front (deploy/nginx.conf) may answer with an anonymous page or an
# export without asking again (s-maxage), and then serve it stale while it asks
# (stale-while-revalidate). An edit shows within the first; browsers always ask (max-age=0).
PAGE_SHARED_MAX_AGE = env_int("DJANGO_PAGE_SHARED_MAX_AGE", 10)
PAGE_STALE_WHILE_REVALIDATE = env_int("DJANGO_PAGE_STALE_WHILE_REVALIDATE", 30)

# How many proxies (load balancers) in front of the app servers append the address they were
# reached from to X-Forwarded-For. 0: the header is ignored and the client is REMOTE_ADDR. Every
# per-client limit (logins, password-reset mail, API throttles) reads the address through
# conference.accounts.limits.client_address, which follows this; so does DRF (NUM_PROXIES below).
_trusted_proxies = os.environ.get("DJANGO_TRUSTED_PROXIES", "").strip() or "0"
if not (_trusted_proxies.isascii() and _trusted_proxies.isdigit()):
    raise ImproperlyConfigured(
        f"DJANGO_TRUSTED_PROXIES must be a whole number of proxies, not {_trusted_proxies!r}."
    )
TRUSTED_PROXIES = int(_trusted_proxies)

# Failed logins, counted by django-axes for every door that calls authenticate() with the
# request: the site's login page, the admin's, and POST /api/v1/auth/token/. Per account, from
# any address: a venue's wifi puts hundreds of attendees behind one address, so counting per
# address would lock them all out together, and per account and address would let a guesser
# with many addresses go on. The counts live in the database (axes' default handler), shared by
# every process, where organizers see them in the admin and delete one to unlock an account.
AUTHENTICATION_BACKENDS = [
    "conference.accounts.limits.LoginLimitBackend",
    # Accounts and passwords; Django's global model permissions grant nothing here: who may do
    # what is decided per conference by teams, through rules (conference/permissions.py).
    "conference.permissions.AccountBackend",
    "rules.permissions.ObjectPermissionBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"  # axes' default, said here
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = timedelta(minutes=15)
# Tries while locked are refused without being recorded: axes would otherwise append each one's
# request data to the account's row, growing it for as long as a guesser keeps trying. The lock
# lifts 15 minutes after the failures that made it.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "conference.accounts.limits.client_address"
AXES_LOCKOUT_CALLABLE = "conference.accounts.limits.login_locked_response"
# Successful logins are not recorded: nothing here reads them, and the table would only grow.
AXES_DISABLE_ACCESS_LOG = True
AXES_ENABLE_ADMIN = False  # conference/admin/conference.py registers the failed attempts alone
# axes.W006 asks for "ip_address" among the lockout parameters, against attackers who rotate
# user agents; those are not a parameter here, and the address is left out on purpose (above).
SILENCED_SYSTEM_CHECKS = ["axes.W006"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français")]
# Our catalogue (docs/i18n.md); compiled by `make messages`, which run and test call.
LOCALE_PATHS = [BASE_DIR / "locale"]
# Our date and time formats per language: "10:35" and "10 h 35" (conference/i18n/formats/).
FORMAT_MODULE_PATH = ["conference.i18n.formats"]
# Stored in UTC; shown and entered in each conference's own zone (Conference.time_zone).
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT", BASE_DIR / "media"))

# Mail: printed to the console (`make run`) unless a mail server is named. In production set
# EMAIL_HOST and its companions (docs/deploy.md); DJANGO_EMAIL_BACKEND overrides either choice.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get("DJANGO_EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=EMAIL_PORT == 587)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=EMAIL_PORT == 465)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("Set EMAIL_USE_TLS or EMAIL_USE_SSL, not both.")
# Seconds to wait for the mail server: a stalled server must not hold a task worker forever.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30)

# Background work (mails, large imports) goes through the tasks API. The database backend needs
# no extra service: `manage.py db_worker` runs the queue, beside runserver in `make run` and
# beside gunicorn in `make serve` (docs/deploy.md).
# Two queues, each with its own worker: "default" (mails, imports) and "webhooks" (deliveries,
# conference/webhooks/delivery.py), so that a slow receiver never holds up a mail.
TASK_QUEUES = ["default", "webhooks"]
TASKS = {
    "default": {
        "BACKEND": os.environ.get("DJANGO_TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": TASK_QUEUES,
    }
}

# A task running for longer than this was lost with its worker (killed, out of memory, a reboot)
# and is marked failed by `manage.py fail_lost_tasks` (conference/site/lost_tasks.py). No task here
# runs for more than a few minutes: an import of 1,000 sessions takes seconds, a batch of 100
# mails as long as the mail server makes it.
TASK_LOST_AFTER = timedelta(minutes=env_int("DJANGO_TASK_LOST_AFTER_MINUTES", 30))

# How long the link of a speaker invitation works (speakers/invitations.py).
SPEAKER_INVITATION_MAX_AGE = timedelta(days=env_int("DJANGO_SPEAKER_INVITATION_DAYS", 14))
# Webhook receivers on private, loopback or link-local addresses are refused (SSRF guard,
# conference/webhooks/delivery.py) unless this is set: for tests, or a site inside a closed network.
WEBHOOKS_ALLOW_PRIVATE_ADDRESSES = env_bool(
    "DJANGO_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES", default=False
)

# How long the admin's webhook delivery log keeps a delivery once delivered or failed.
WEBHOOK_DELIVERY_LOG = timedelta(days=env_int("DJANGO_WEBHOOK_DELIVERY_LOG_DAYS", 30))

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "schedule@localhost")

# The demo conference (PyTorch Conference Europe 2026) lives here; see `manage.py load_demo`.
FIXTURE_DIRS = [BASE_DIR / "fixtures"]

# REST API v1 (/api/v1/): token or session auth, JSON only, documented by drf-spectacular.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # API tokens (ApiToken): hashed, with a scope, conferences, an expiry and revocation.
        "conference.api.tokens.ScopedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Our viewsets refine these two (conference.api.policies.ApiPolicyMixin): classes named here are
    # imported while DRF itself loads, so they cannot live beside the viewsets.
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.DjangoModelPermissionsOrAnonReadOnly"
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["conference.views.errors.JsonBodyParser"],
    "DEFAULT_SCHEMA_CLASS": "conference.api.schema.ApiSchema",
    "EXCEPTION_HANDLER": "conference.api.policies.api_exception_handler",
    # DRF's throttles, counted in the "limits" cache per conference.accounts.limits.client_address.
    "DEFAULT_THROTTLE_CLASSES": [
        "conference.accounts.limits.AnonRateThrottle",
        "conference.accounts.limits.UserRateThrottle",
    ],
    "NUM_PROXIES": TRUSTED_PROXIES,
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("DJANGO_API_ANON_RATE", "120/minute"),
        "user": os.environ.get("DJANGO_API_USER_RATE", "600/minute"),
        "auth-token": os.environ.get("DJANGO_API_TOKEN_RATE", "10/minute"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Conference schedule API",
    "DESCRIPTION": (
        "Read conferences, rooms, tracks, sessions and speakers; organizers also write them, "
        "under the same rules as the admin. Each conference's schedule releases list what every "
        "release announced. Anonymous clients read published data. "
        "Authenticate with `Authorization: Token <key>` (POST /api/v1/auth/token/) or, from this "
        "site's own pages, the session cookie plus CSRF token. Times are ISO 8601 in UTC; each "
        'session also names its conference\'s time zone. Errors are JSON: `{"detail": ...}`, '
        "or field name to messages for 400s."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Choice sets sharing a name: ``kind`` (a session's, a release change's), ``state`` (proposals).
    "ENUM_NAME_OVERRIDES": {
        "KindEnum": "sessions.models.Session.Kind",
        "SessionChangeKindEnum": "sessions.releases.CHANGE_KIND_CHOICES",
        "ProposalStateEnum": "sessions.models.proposals.State",
        "DecisionEnum": "sessions.models.call.DecisionMailTemplate.Decision",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",  # the default, kept
        "conference.api.schema.document_conditional_reads",
        "conference.api.schema.document_refused_nul",
    ],
}

# Errors and warnings to stderr, where gunicorn and any process manager collect them.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}

# Security. Every HTML response carries a Content-Security-Policy that allows only our own files:
# no inline script or style, nothing from another origin, no framing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        # The service worker and the web app manifest (conference/site/offline.py).
        "worker-src": [SELF],
        "manifest-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Sessions live in the database; with Redis, Django's cached_db keeps them in front of it too.
# Without Redis the cache is each process's own memory, where a logout on one worker would
# leave the session alive in the others' copies.
SESSION_ENGINE = (
    "django.contrib.sessions.backends.cached_db"
    if os.environ.get("REDIS_URL")
    else "django.contrib.sessions.backends.db"
)
SESSION_COOKIE_HTTPONLY = True

# Served over HTTPS (docs/deploy.md): DJANGO_HTTPS=1 turns on secure cookies, the redirect to
# https and HSTS; DJANGO_BEHIND_PROXY=1 trusts the proxy's X-Forwarded-Proto header.
HTTPS = env_bool("DJANGO_HTTPS", default=False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = 365 * 24 * 60 * 60 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
if env_bool("DJANGO_BEHIND_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
